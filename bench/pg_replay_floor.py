#!/usr/bin/env python3
"""A replay into PostgreSQL against SQLite's and against a COPY floor (issue 25, "Speed").

Generates a usage log (gpubill_gen_log), replays it with gpubill_replay_bench into a new
PostgreSQL database (--runs times, a new database each) and into a new SQLite file, then takes
the rows that replay wrote — events, charges, balance movements, instance states — out of the
last PostgreSQL database (COPY … TO) and times inserting them again with COPY … FROM, in one
transaction, into an empty copy of that database: the floor of writing those rows to that
server. Prints, for each run, the replay's seconds, input events/s and charge rows/s, and the
ratio of the replay's time to the floor's.

    url=$(scripts/pg_cluster.sh start /tmp/pg)
    bench/pg_replay_floor.py --bench build/bench/gpubill_replay_bench \\
        --gen-log build/bench/gpubill_gen_log --pg-url "$url" --instances 1000 --days 30 --runs 3
    scripts/pg_cluster.sh stop /tmp/pg

The PostgreSQL module is the bench's build's (libgpubill_postgres.so beside bench/, or
GPUBILL_POSTGRES_MODULE). psql must be on the PATH.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

TABLES = ["event", "charge", "balance_movement", "instance_state"]


def db_url(server, name):
    # scripts/pg_cluster.sh prints postgresql:///postgres?host=…: the database is the path.
    return re.sub(r"^(postgres(?:ql)?://[^/]*/)[^?]*", r"\g<1>" + name, server)


def psql(url, *args, stdin=None):
    return subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url, *args], check=True,
                          stdout=subprocess.PIPE, text=True, input=stdin).stdout


def bench(cmd, log, db, env):
    out = subprocess.run(cmd + [log, "--db", db, "--no-bare"], check=True,
                         stdout=subprocess.PIPE, text=True, env=env).stdout
    value = lambda key: float(re.search(key + r"\s+([0-9.]+)", out).group(1))  # noqa: E731
    return {"seconds": value("replay time"), "events": value("events read"),
            "charges": value("charge rows written"), "events/s": value("input events/s"),
            "charge rows/s": value("charge rows/s")}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bench", required=True)
    p.add_argument("--gen-log", required=True)
    p.add_argument("--pg-url", required=True)
    p.add_argument("--instances", type=int, default=1000)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()

    env = dict(os.environ)
    module = os.path.join(os.path.dirname(os.path.abspath(a.bench)), "..", "libgpubill_postgres.so")
    if "GPUBILL_POSTGRES_MODULE" not in env and os.path.exists(module):
        env["GPUBILL_POSTGRES_MODULE"] = os.path.abspath(module)

    work = tempfile.mkdtemp(prefix="gpubill_pg_floor_")
    log = os.path.join(work, "usage.jsonl")
    subprocess.run([a.gen_log, "--instances", str(a.instances), "--days", str(a.days), "--out",
                    log], check=True, stdout=subprocess.DEVNULL)
    tag = str(os.getpid())
    made = []
    try:
        sqlite = bench([a.bench], log, os.path.join(work, "replay.db"), env)
        print(f"sqlite: {sqlite['seconds']:.3f} s, {sqlite['events']:.0f} events, "
              f"{sqlite['events/s']:.0f} events/s, {sqlite['charge rows/s']:.0f} charge rows/s")
        runs = []
        for i in range(a.runs):
            name = f"gpubill_floor_{tag}_{i}"
            psql(a.pg_url, "-c", f"CREATE DATABASE {name}")
            made.append(name)
            r = bench([a.bench], log, db_url(a.pg_url, name), env)
            runs.append(r)
            print(f"postgres run {i + 1}: {r['seconds']:.3f} s, {r['events/s']:.0f} events/s, "
                  f"{r['charge rows/s']:.0f} charge rows/s")
        replayed = made[-1]
        rows = {}
        for t in TABLES:
            path = os.path.join(work, t + ".copy")
            psql(db_url(a.pg_url, replayed), "-c", f"\\copy {t} TO '{path}'")
            with open(path) as f:
                rows[t] = sum(1 for _ in f)
        floor_db = f"gpubill_floor_{tag}_copy"
        psql(a.pg_url, "-c", f"CREATE DATABASE {floor_db} TEMPLATE {replayed}")
        made.append(floor_db)
        psql(db_url(a.pg_url, floor_db), "-c", "TRUNCATE " + ", ".join(TABLES) + " CASCADE")
        script = "\\timing on\nBEGIN;\n" + "".join(
            f"\\copy {t} FROM '{os.path.join(work, t + '.copy')}'\n" for t in TABLES) + "COMMIT;\n"
        floors = []
        for _ in range(a.runs):
            psql(db_url(a.pg_url, floor_db), "-c", "TRUNCATE " + ", ".join(TABLES) + " CASCADE")
            # The statements' times as psql measures them (\\timing): not its start-up.
            out = psql(db_url(a.pg_url, floor_db), stdin=script)
            floors.append(sum(float(ms) for ms in re.findall(r"Time: ([0-9.]+) ms", out)) / 1000)
        floor = min(floors)
        total = sum(rows.values())
        print("rows: " + ", ".join(f"{t} {rows[t]}" for t in TABLES) + f" ({total} in all)")
        print(f"COPY floor: {floor:.3f} s (best of {len(floors)}: "
              + ", ".join(f"{f:.3f}" for f in floors) + f"), {total / floor:.0f} rows/s")
        best = min(r["seconds"] for r in runs)
        print(f"postgres best {best:.3f} s: {runs[0]['events'] / best:.0f} events/s, "
              f"ratio to the COPY floor {best / floor:.2f}; "
              f"events/s against sqlite {sqlite['seconds'] / best:.2f}x")
    finally:
        for name in made:
            try:
                psql(a.pg_url, "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            except subprocess.CalledProcessError:
                pass
        for f in os.listdir(work):
            os.remove(os.path.join(work, f))
        os.rmdir(work)


if __name__ == "__main__":
    sys.exit(main())
