#!/usr/bin/env python3
"""replay --workers on SQLite and PostgreSQL: events/s and charge rows/s (issue 25).

Generates a usage log of N instances x D days (gpubill_gen_log), then, for each backend and
worker count, makes a new database (`gpubill init`, not timed), replays the log into it with
`gpubill replay --workers W` and times that process (wall time): events read, charge rows,
events/s, rows/s and the process's peak RSS (the server's memory is not counted). Then checks what `charges --format csv` prints after each replay against
the first: the whole file's md5 (workers give rows the numbers one worker gives them:
docs/postgresql.md, "replay --workers"), and without the `id` and `event_seqs` columns. Exits 1
when a file differs.

With --pg-cluster (the state directory of scripts/pg_cluster.sh) and --kill-server-after S, one
more PostgreSQL replay with the largest worker count has its server stopped S seconds in
(`pg_ctl stop -m immediate`, as a crash), the server started again and the replay run again;
its charges are checked against the first run's too.

    url=$(scripts/pg_cluster.sh start /tmp/pg)
    bench/replay_workers.py --gpubill build/gpubill --gen-log build/bench/gpubill_gen_log \\
        --pg-url "$url" --instances 10000 --days 30
    bench/replay_workers.py ... --instances 20 --days 2       # a smoke run
    bench/replay_workers.py ... --pg-cluster /tmp/pg --kill-server-after 20 --workers 1,4

Without --pg-url only SQLite is run. Each PostgreSQL database is dropped after its run.
"""
import argparse
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def url_of_database(url, name):
    # scripts/pg_cluster.sh prints postgresql://…/postgres?host=…: swap the database name.
    if "/postgres?" in url:
        return url.replace("/postgres?", "/%s?" % name, 1)
    return url + ("&" if "?" in url else "?") + "dbname=" + name


def psql(url, sql):
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True,
                   stdout=subprocess.DEVNULL)


def csv_md5s(text):
    """md5 of the whole CSV, and of it without the id and event_seqs columns."""
    whole = hashlib.md5(text.encode()).hexdigest()
    rows = list(csv.reader(io.StringIO(text)))
    drop = [i for i, name in enumerate(rows[0]) if name in ("id", "event_seqs")] if rows else []
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    for r in rows:
        w.writerow([c for i, c in enumerate(r) if i not in drop])
    return whole, hashlib.md5(out.getvalue().encode()).hexdigest(), max(len(rows) - 1, 0)


def pg_ctl(cluster, *args):
    """pg_ctl on the cluster of scripts/pg_cluster.sh's state directory (as its owner)."""
    with open(os.path.join(cluster, "bindir")) as f:
        bindir = f.read().strip()
    with open(os.path.join(cluster, "cluster")) as f:
        data = os.path.join(f.read().strip(), "data")
    cmd = [os.path.join(bindir, "pg_ctl"), "-D", data] + list(args)
    if os.getuid() == 0:
        cmd = ["runuser", "-u", "nobody", "--"] + cmd
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def killed_then_rerun(gpubill, db, log, workers, cluster, after):
    """A replay whose server is stopped (immediate) `after` seconds in, the server started
    again, the replay run again: (seconds the first ran, its exit code, the charges' md5s)."""
    env = dict(os.environ, GPUBILL_DB=db)
    subprocess.run([gpubill, "init"], check=True, env=env, stdout=subprocess.DEVNULL)
    start = time.monotonic()
    proc = subprocess.Popen([gpubill, "replay", "--quiet", "--workers", str(workers), log],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.wait(timeout=after)
        raise SystemExit("the replay ended before the server was stopped: raise --kill-server-after")
    except subprocess.TimeoutExpired:
        pass
    pg_ctl(cluster, "-m", "immediate", "-w", "stop")
    code = proc.wait()
    ran = time.monotonic() - start
    pg_ctl(cluster, "-w", "-t", "60", "restart")  # postmaster.opts: the options it had
    subprocess.run([gpubill, "replay", "--quiet", "--workers", str(workers), log], check=True,
                   env=env, stdout=subprocess.DEVNULL)
    charges = subprocess.run([gpubill, "charges", "--format", "csv"], check=True, env=env,
                             stdout=subprocess.PIPE, text=True).stdout
    return ran, code, csv_md5s(charges)


def replay(gpubill, db, log, workers):
    env = dict(os.environ, GPUBILL_DB=db)
    subprocess.run([gpubill, "init"], check=True, env=env, stdout=subprocess.DEVNULL)
    start = time.monotonic()
    with tempfile.TemporaryFile(mode="w+") as f:
        proc = subprocess.Popen([gpubill, "replay", "--quiet", "--format", "json", "--workers",
                                 str(workers), log], env=env, stdout=f)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        if proc.returncode != 0:
            raise SystemExit("gpubill replay failed (%d)" % proc.returncode)
        f.seek(0)
        out = f.read()
    report = json.loads(out)
    if isinstance(report, list):
        report = report[0]
    charges = subprocess.run([gpubill, "charges", "--format", "csv"], check=True, env=env,
                             stdout=subprocess.PIPE, text=True).stdout
    return (wall, usage.ru_maxrss / 1024, int(report["events_read"]), int(report["charge_rows"]),
            csv_md5s(charges))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpubill", required=True)
    p.add_argument("--gen-log", required=True, help="gpubill_gen_log (or gpubill_tests_gen_log)")
    p.add_argument("--pg-url", help="a PostgreSQL server's URL (databases are made on it)")
    p.add_argument("--instances", type=int, default=10000)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--workers", default="1,4", help="worker counts, comma-separated")
    p.add_argument("--keep", help="directory for the log and databases (kept)")
    p.add_argument("--pg-cluster", help="scripts/pg_cluster.sh's state directory of --pg-url")
    p.add_argument("--kill-server-after", type=float,
                   help="seconds into a replay to stop the server (needs --pg-cluster)")
    a = p.parse_args()

    work = a.keep or tempfile.mkdtemp(prefix="gpubill-replay-workers-")
    os.makedirs(work, exist_ok=True)
    log = os.path.join(work, "u%d-%d.jsonl" % (a.instances, a.days))
    if not os.path.exists(log):
        subprocess.run([a.gen_log, "--instances", str(a.instances), "--days", str(a.days),
                        "--out", log], check=True, stdout=subprocess.DEVNULL)
    counts = [int(w) for w in a.workers.split(",")]
    runs = []
    killed = None
    try:
        for w in counts:
            db = os.path.join(work, "w%d.db" % w)
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            runs.append(("SQLite", w) + replay(a.gpubill, db, log, w))
        if a.pg_url:
            for w in counts:
                name = "gpubill_workers_bench_%d" % w
                psql(a.pg_url, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)
                psql(a.pg_url, "CREATE DATABASE %s" % name)
                try:
                    runs.append(("PostgreSQL", w) +
                                replay(a.gpubill, url_of_database(a.pg_url, name), log, w))
                finally:
                    psql(a.pg_url, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)
            if a.pg_cluster and a.kill_server_after:
                name = "gpubill_workers_bench_killed"
                psql(a.pg_url, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)
                psql(a.pg_url, "CREATE DATABASE %s" % name)
                try:
                    killed = (max(counts),) + killed_then_rerun(
                        a.gpubill, url_of_database(a.pg_url, name), log, max(counts),
                        a.pg_cluster, a.kill_server_after)
                finally:
                    psql(a.pg_url, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)
    finally:
        if not a.keep:
            shutil.rmtree(work, True)

    print("log: %d instances x %d days" % (a.instances, a.days))
    print("%-10s %7s %10s %10s %9s %10s %10s %9s  %s" %
          ("backend", "workers", "events", "rows", "wall s", "events/s", "rows/s", "RSS MiB",
           "charges csv against the first run"))
    first = runs[0][6]
    for backend, w, wall, rss, events, rows, md5 in runs:
        same = ("same bytes" if md5[0] == first[0] else
                "same without id, event_seqs" if md5[1] == first[1] else "DIFFERENT")
        print("%-10s %7d %10d %10d %9.1f %10.0f %10.0f %9.0f  %s (%d lines)" %
              (backend, w, events, rows, wall, events / wall, rows / wall, rss, same, md5[2]))
    bad = any(md5[0] != first[0] for *_, md5 in runs)
    if killed:
        w, ran, code, md5 = killed
        same = "same bytes" if md5[0] == first[0] else "DIFFERENT"
        bad = bad or md5[0] != first[0]
        print("PostgreSQL, %d workers, server stopped %.1f s in (replay exit %d), started "
              "again, replay run again: charges csv %s (%d lines)" % (w, ran, code, same, md5[2]))
    if bad:
        sys.exit(1)


if __name__ == "__main__":
    main()
