"""Interleaved A/B timing of whole processes, for the bench/*.py scripts (issue 32).

Runs command A, then B, then A, ... (after one untimed warm-up of each), each with its output
thrown away, and takes from the kernel each finished child's user + system CPU time and peak
RSS (getrusage / wait4), plus wall time. A shared machine's speed drifts between runs, so the
figure to quote is the median of the ratios A/B of each pair, measured in one run.
"""
import os
import statistics
import subprocess
import time


def run_once(cmd, env=None):
    """(wall s, cpu s, peak RSS KiB, exit status) of one run of `cmd` (a list)."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(cmd, stdout=null, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace")
        proc.stderr.close()
    wall = time.perf_counter() - start
    if proc.returncode not in (0,):
        raise SystemExit("command failed (%d): %s\n%s" % (proc.returncode, " ".join(cmd), err))
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def compare(cmd_a, cmd_b, runs, env=None):
    """Interleaved runs; returns {"a": [...], "b": [...]} of (wall, cpu, rss) tuples."""
    run_once(cmd_a, env)
    run_once(cmd_b, env)
    out = {"a": [], "b": []}
    for _ in range(runs):
        out["a"].append(run_once(cmd_a, env))
        out["b"].append(run_once(cmd_b, env))
    return out


def median(values):
    return statistics.median(values)


def report(name_a, name_b, result, rows_a=None, rows_b=None):
    """Prints medians of each command and the median of the pairwise ratios A/B."""
    lines = []
    for key, name, rows in (("a", name_a, rows_a), ("b", name_b, rows_b)):
        runs = result[key]
        wall = median([r[0] for r in runs])
        cpu = median([r[1] for r in runs])
        rss = max(r[2] for r in runs)
        line = "%-44s wall %8.1f ms  cpu %8.1f ms  peak RSS %7.1f MiB" % (
            name, wall * 1e3, cpu * 1e3, rss / 1024)
        if rows:
            line += "  %9.0f rows/s (cpu)" % (rows / cpu if cpu > 0 else 0)
        lines.append(line)
    pairs = list(zip(result["a"], result["b"]))
    wall_ratio = median([a[0] / b[0] for a, b in pairs if b[0] > 0])
    cpu_ratio = median([a[1] / b[1] for a, b in pairs if b[1] > 0] or [0])
    lines.append("ratio %s / %s, median of %d pairs: wall %.2f, cpu %.2f" % (
        name_a, name_b, len(pairs), wall_ratio, cpu_ratio))
    print("\n".join(lines), flush=True)
    return wall_ratio, cpu_ratio
