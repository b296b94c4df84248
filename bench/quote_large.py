#!/usr/bin/env python3
"""A whole-process quote on a large catalog against its floor, the same quote on the bundled
catalog (issue 32).

Makes two databases: the bundled catalog alone, and the bundled catalog plus a SkyPilot-like
vms.csv of N rows (gen_skypilot_csv.py; N offers more) imported with `gpubill catalog import`.
Then times each quote on both, interleaved (abtime.py), and prints wall and CPU time, peak RSS
and the median ratio large / bundled of the pairs. Targets: bundled <= 25 ms; 100,000 rows
<= 50 ms and <= 40 MiB.

    bench/quote_large.py --gpubill build/gpubill --rows 100000 --runs 10
    bench/quote_large.py --gpubill build/gpubill --rows 200 --runs 1      # the CI smoke
"""
import argparse
import atexit
import os
import subprocess
import sys
import shutil
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abtime  # noqa: E402
import gen_skypilot_csv  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUOTES = [
    ["quote", "--gpu", "V100", "--count", "1", "--hours", "720"],
    ["quote", os.path.join(HERE, "fixtures/workloads/resnet-training-4gpu.json"),
     "--format", "json"],
    ["quote", "--gpu", "A100", "--count", "8", "--hours", "720", "--top", "20"],
]


def make_db(gpubill, path, csv=None):
    env = dict(os.environ, GPUBILL_DB=path)
    if os.path.exists(path):
        return env
    subprocess.run([gpubill, "init"], check=True, env=env, stdout=subprocess.DEVNULL)
    if csv:
        # --force: at 100,000 rows the generator's random spot prices repeat across types with
        # different GPUs, which `catalog check` refuses (repeated_price); the quote does not care.
        subprocess.run([gpubill, "catalog", "import", csv, "--as-of", "2026-01-15", "--quiet",
                        "--force"],
                       check=True, env=env, stdout=subprocess.DEVNULL)
    return env


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpubill", required=True)
    p.add_argument("--rows", type=int, default=100000)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--keep", help="directory for the CSV and databases (kept between calls)")
    a = p.parse_args()

    work = a.keep or tempfile.mkdtemp(prefix="gpubill-quote-bench-")
    os.makedirs(work, exist_ok=True)
    if not a.keep:
        atexit.register(shutil.rmtree, work, True)
    csv = os.path.join(work, "vms-%d.csv" % a.rows)
    if not os.path.exists(csv):
        with open(csv, "w", newline="\n") as f:
            f.write(gen_skypilot_csv.HEADER + "\n")
            for line in gen_skypilot_csv.rows(a.rows, 7):
                f.write(line + "\n")
    bundled = make_db(a.gpubill, os.path.join(work, "bundled.db"))
    large = make_db(a.gpubill, os.path.join(work, "large-%d.db" % a.rows), csv)
    print("catalogs: bundled; bundled + %d SkyPilot rows" % a.rows)
    for args in QUOTES:
        cmd = [a.gpubill] + args
        # Both databases in one call: the same command, A on the large one, B on the bundled.
        result = {"a": [], "b": []}
        abtime.run_once(cmd, large)
        abtime.run_once(cmd, bundled)
        for _ in range(a.runs):
            result["a"].append(abtime.run_once(cmd, large))
            result["b"].append(abtime.run_once(cmd, bundled))
        name = " ".join(a if not a.endswith(".json") else os.path.basename(a) for a in args)
        print(name)
        abtime.report("  large (%d rows)" % a.rows, "  bundled", result)


if __name__ == "__main__":
    main()
