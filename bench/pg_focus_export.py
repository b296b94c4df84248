#!/usr/bin/env python3
"""The FOCUS export streamed from PostgreSQL against the same export from SQLite (issue 25).

Generates a usage log (gpubill_gen_log), replays it into an SQLite database with gpubill,
copies that into a PostgreSQL database (gpubill_pg_focus_bench copy: the replay does not run on
PostgreSQL yet), checks that both backends write the same FOCUS CSV (md5), then times the
export from each, interleaved (abtime.py): rows, wall and CPU time of the client process, rows/s
by wall time (the server works for the PostgreSQL client) and peak RSS. Target: at least 300k
rows/s at most 100 MB from PostgreSQL.

    url=$(scripts/pg_cluster.sh start /tmp/pg)
    bench/pg_focus_export.py --gpubill build/gpubill --gen-log build/gpubill_tests_gen_log \\
        --bench build/gpubill_pg_focus_bench --pg-url "$url" --instances 1000 --days 30 --runs 3
    bench/pg_focus_export.py ... --instances 20 --days 2 --runs 1     # the CI smoke (no timing)

Without --pg-url it uses the CTest fixture's cluster (GPUBILL_TEST_PG_CLUSTER, its state
directory), and exits 77 (skipped) when that fixture found no server binaries.
"""
import argparse
import hashlib
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abtime  # noqa: E402
from replayed_log import replayed_database  # noqa: E402


def server_url(given):
    if given:
        return given
    state = os.environ.get("GPUBILL_TEST_PG_CLUSTER", "")
    if state and os.path.exists(os.path.join(state, "url")):
        with open(os.path.join(state, "url")) as f:
            return f.readline().strip()
    if state and os.path.exists(os.path.join(state, "skip")):
        with open(os.path.join(state, "skip")) as f:
            print("skipped: " + f.readline().strip())
        sys.exit(77)
    raise SystemExit("no PostgreSQL server: give --pg-url (scripts/pg_cluster.sh start DIR prints one)")


def md5_of(cmd, out):
    subprocess.run(cmd + [out], check=True, stdout=subprocess.DEVNULL)
    h = hashlib.md5()
    with open(out, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    os.remove(out)
    return h.hexdigest()


def rows_of(cmd):
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout.split()
    return int(out[out.index("rows") + 1])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpubill", required=True)
    p.add_argument("--gen-log", required=True, help="gpubill_gen_log (or gpubill_tests_gen_log)")
    p.add_argument("--bench", required=True, help="gpubill_pg_focus_bench")
    p.add_argument("--pg-url", help="a PostgreSQL server's URL (a database is made on it)")
    p.add_argument("--instances", type=int, default=1000)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--keep", help="directory for the log and database (kept between calls)")
    a = p.parse_args()
    url = server_url(a.pg_url)

    work, db, env = replayed_database(a.gpubill, a.gen_log, a.instances, a.days, a.keep,
                                      "gpubill-pg-focus-bench-")
    name = "gpubill_focus_bench_%d_%d" % (a.instances, a.days)
    copied = subprocess.run([a.bench, "copy", db, url, name], check=True, stdout=subprocess.PIPE,
                            text=True).stdout.splitlines()
    print(copied[0])
    pg = copied[1]

    on_sqlite, on_pg = [a.bench, "focus", db], [a.bench, "focus", pg]
    out = os.path.join(work, "focus.csv")
    if md5_of(on_sqlite, out) != md5_of(on_pg, out):
        raise SystemExit("the FOCUS export from PostgreSQL differs from SQLite's")
    rows = rows_of(on_pg)
    print("log: %d instances x %d days; FOCUS rows %d, the same bytes from both (md5)" %
          (a.instances, a.days, rows))
    result = abtime.compare(on_pg, on_sqlite, a.runs)
    abtime.report("FOCUS from PostgreSQL", "FOCUS from SQLite", result, rows, rows)
    wall = abtime.median([r[0] for r in result["a"]])
    rss = max(r[2] for r in result["a"]) / 1024
    print("from PostgreSQL: %.0f rows/s by wall time, peak RSS %.1f MiB (target >= 300000 rows/s, "
          "<= 100 MB)" % (rows / wall if wall > 0 else 0, rss))


if __name__ == "__main__":
    main()
