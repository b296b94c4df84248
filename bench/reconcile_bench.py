#!/usr/bin/env python3
"""Reconcile a large export (issue 24): a billing export of about a million lines against the
charges of the same account, timed.

Generates a usage log (gpubill_gen_log, every instance in one account), replays it into a fresh database, writes the FOCUS
export of its busiest account with `gpubill charges --format focus` (the export generator: every
hourly line, rounding rows included); then times
`gpubill reconcile` on it and prints the lines read, the wall and CPU time, the lines per second
and the peak RSS. Target: 1,000,000 lines in under 10 s.

    bench/reconcile_bench.py --gpubill build/gpubill --gen-log build/bench/gpubill_gen_log \\
        --instances 1500 --days 30 --runs 3
    bench/reconcile_bench.py ... --instances 20 --days 2 --runs 1     # the CI smoke (no timing)
"""
import argparse
import re
import atexit
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpubill", required=True)
    p.add_argument("--gen-log", required=True, help="gpubill_gen_log (or gpubill_tests_gen_log)")
    p.add_argument("--instances", type=int, default=1500)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--keep", help="directory for the log, database and export (kept)")
    a = p.parse_args()

    work = a.keep or tempfile.mkdtemp(prefix="gpubill-reconcile-bench-")
    os.makedirs(work, exist_ok=True)
    if not a.keep:
        atexit.register(shutil.rmtree, work, True)
    log = os.path.join(work, "u%d-%d.jsonl" % (a.instances, a.days))
    db = os.path.join(work, "u%d-%d.db" % (a.instances, a.days))
    export = os.path.join(work, "u%d-%d.focus.csv" % (a.instances, a.days))
    env = dict(os.environ, GPUBILL_DB=db)
    if not os.path.exists(db):
        subprocess.run([a.gen_log, "--instances", str(a.instances), "--days", str(a.days),
                        "--out", log + ".gen"], check=True, stdout=subprocess.DEVNULL)
        # One account for every instance (the generator makes one per 10 instances), so that
        # one account's export is large.
        with open(log + ".gen") as src, open(log, "w") as dst:
            for line in src:
                dst.write(re.sub(r'"account":"[^"]*"', '"account":"bench"', line))
        os.remove(log + ".gen")
        subprocess.run([a.gpubill, "init"], check=True, env=env, stdout=subprocess.DEVNULL)
        subprocess.run([a.gpubill, "replay", log, "--quiet"], check=True, env=env,
                       stdout=subprocess.DEVNULL)
    account = "bench"
    with open(export, "w") as f:
        subprocess.run([a.gpubill, "charges", "--account", account, "--format", "focus"],
                       check=True, env=env, stdout=f)
    with open(export) as f:
        lines = sum(1 for _ in f) - 1
    print("log: %d instances x %d days; account %s; export lines %d" %
          (a.instances, a.days, account, lines))
    cmd = [a.gpubill, "reconcile", "--account", account, "--invoice", export, "--format", "json"]
    walls, cpus = [], []
    for _ in range(a.runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.monotonic()
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True)
        walls.append(time.monotonic() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        if proc.returncode != 0:
            print(proc.stdout)
            raise SystemExit("reconcile of gpubill's own export did not match (exit %d)" %
                             proc.returncode)
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    walls.sort()
    cpus.sort()
    wall, cpu = walls[len(walls) // 2], cpus[len(cpus) // 2]
    print("reconcile: median wall %.2f s, CPU %.2f s, %.0f lines/s (wall), peak RSS %.0f MB "
          "(target: 1,000,000 lines in < 10 s)" % (wall, cpu, lines / wall if wall else 0, rss_mb))


if __name__ == "__main__":
    sys.exit(main())
