#!/usr/bin/env python3
"""FOCUS export against its floor, the CSV export of the same hourly charges (issue 32).

Generates a usage log (gpubill_gen_log), replays it into a fresh database, then times
`gpubill charges --format focus` against `gpubill charges --hourly --format csv` on it,
interleaved (abtime.py), and prints each one's rows, CPU time, rows/s and the median ratio of
the pairs. Target: FOCUS within 1.3x of CSV.

    bench/focus_export.py --gpubill build/gpubill --gen-log build/bench/gpubill_gen_log \\
        --instances 10000 --days 30 --runs 3
    bench/focus_export.py ... --instances 20 --days 2 --runs 1     # the CI smoke (no timing)
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abtime  # noqa: E402
from replayed_log import replayed_database  # noqa: E402


def count_rows(cmd, env):
    """Data rows of a CSV export (newlines outside quotes, less the header)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env)
    rows, quoted = 0, False
    for chunk in iter(lambda: proc.stdout.read(1 << 20), b""):
        if b'"' not in chunk:
            if not quoted:
                rows += chunk.count(b"\n")
                continue
        for part in chunk.split(b'"'):
            if not quoted:
                rows += part.count(b"\n")
            quoted = not quoted
        quoted = not quoted  # split() toggles once more than there were quotes
    if proc.wait() != 0:
        raise SystemExit("failed: " + " ".join(cmd))
    return rows - 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpubill", required=True)
    p.add_argument("--gen-log", required=True, help="gpubill_gen_log (or gpubill_tests_gen_log)")
    p.add_argument("--instances", type=int, default=10000)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--keep", help="directory for the log and database (kept between calls)")
    a = p.parse_args()

    work, db, env = replayed_database(a.gpubill, a.gen_log, a.instances, a.days, a.keep,
                                      "gpubill-focus-bench-")
    focus = [a.gpubill, "charges", "--format", "focus"]
    csv = [a.gpubill, "charges", "--hourly", "--format", "csv"]
    rows_focus, rows_csv = count_rows(focus, env), count_rows(csv, env)
    print("log: %d instances x %d days; FOCUS rows %d, CSV rows %d" %
          (a.instances, a.days, rows_focus, rows_csv))
    result = abtime.compare(focus, csv, a.runs, env)
    name_a, name_b = "charges --format focus", "charges --hourly --format csv"
    abtime.report(name_a, name_b, result, rows_focus, rows_csv)
    cpu_focus = abtime.median([r[1] for r in result["a"]])
    cpu_csv = abtime.median([r[1] for r in result["b"]])
    if cpu_focus > 0 and cpu_csv > 0:
        print("CPU per row, FOCUS / CSV: %.2f (target <= 1.3)" %
              ((cpu_focus / rows_focus) / (cpu_csv / rows_csv)))


if __name__ == "__main__":
    main()
