#!/usr/bin/env python3
"""What each translation unit costs to compile, in CPU seconds.

Two uses:
  compile_cost.py --log FILE COMPILER ARGS...   as CMAKE_CXX_COMPILER_LAUNCHER: runs the
                                                compiler, appends "cpu_seconds<TAB>output" to FILE
  compile_cost.py --report FILE [--top N]       the costliest files first, and the total

scripts/measure_build.sh configures a scratch build with it; docs/benchmarks.md has the figures.
CPU time (user + system of the compiler and its children) barely depends on what else the
machine is doing, unlike wall time.
"""
import os
import resource
import subprocess
import sys


def run_and_log(log, argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    status = subprocess.call(argv)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    output = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-o"), "?")
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"{cpu:.2f}\t{output}\n")
    return status


def report(log, top):
    rows = []
    with open(log, encoding="utf-8") as f:
        for line in f:
            cpu, output = line.rstrip("\n").split("\t", 1)
            rows.append((float(cpu), output))
    rows.sort(reverse=True)
    total = sum(cpu for cpu, _ in rows)
    for cpu, output in rows[:top] if top else rows:
        print(f"{cpu:8.2f}  {output}")
    print(f"{total:8.2f}  total CPU seconds, {len(rows)} compiler runs")
    return 0


def main():
    args = sys.argv[1:]
    if len(args) >= 3 and args[0] == "--log":
        return run_and_log(os.path.abspath(args[1]), args[2:])
    if len(args) >= 2 and args[0] == "--report":
        top = int(args[3]) if len(args) >= 4 and args[2] == "--top" else 0
        return report(args[1], top)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
