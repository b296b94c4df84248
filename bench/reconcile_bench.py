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
    bench/reconcile_bench.py ... --invoice-format aws-cur    # the same lines as a CUR CSV
    bench/reconcile_bench.py ... --invoice-format google-bq  # ... as Google's JSON Lines
    bench/reconcile_bench.py ... --instances 20 --days 2 --runs 1     # the CI smoke (no timing)

--invoice-format aws-cur or google-bq rewrites the FOCUS export in that format, row by row
(one CUR line or JSON object per FOCUS row; a FOCUS rounding row becomes a line of its own for
the same resource and hour, as the provider's own rounding would be).
"""
import argparse
import csv
import json
import re
import atexit
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


CUR_HEADER = ["identity/LineItemId", "lineItem/LineItemType", "lineItem/UsageStartDate",
              "lineItem/UsageEndDate", "lineItem/UsageType", "lineItem/ResourceId",
              "lineItem/UsageAmount", "lineItem/CurrencyCode", "lineItem/UnblendedRate",
              "lineItem/UnblendedCost", "product/instanceType"]


def convert(focus_path, out_path, fmt):
    """The FOCUS export's billed rows as an AWS CUR CSV or Google JSON Lines file."""
    lines = 0
    with open(focus_path, newline="") as src, open(out_path, "w", newline="") as dst:
        rows = csv.DictReader(src)
        cur = csv.writer(dst, lineterminator="\n") if fmt == "aws-cur" else None
        if cur:
            cur.writerow(CUR_HEADER)
        for r in rows:
            if r["x_RowKind"] in ("amortisation", "forecast"):
                continue
            lines += 1
            resource = r["ResourceId"].split("/")[0]
            meter = "BoxUsage:" + r["x_InstanceType"] if r["x_Component"] == "compute" else \
                "EBS:VolumeUsage"
            hours = r["PricingQuantity"] if r["PricingUnit"] == "Hours" else ""
            # A FOCUS Purchase, or the rounding row of one, is a CUR fee, a Google commitment.
            purchase = r["ChargeCategory"] == "Purchase" or r["x_ChargeKind"] in (
                "prepaid_order", "renewal", "auto_renewal", "upgrade", "refund")
            if cur:
                cur.writerow([str(lines), "Fee" if purchase else "Usage", r["ChargePeriodStart"], r["ChargePeriodEnd"],
                              meter, resource, hours, r["BillingCurrency"],
                              r["ListUnitPrice"] if hours else "", r["BilledCost"],
                              r["x_InstanceType"] if r["x_Component"] == "compute" else ""])
            else:
                sku = "Commitment v1: Instance Core" if purchase else \
                    "Instance Core running" if r["x_Component"] == "compute" else \
                    "Storage PD Capacity"
                dst.write(json.dumps({
                    "sku": {"description": sku},
                    "usage_start_time": r["ChargePeriodStart"],
                    "usage_end_time": r["ChargePeriodEnd"],
                    "resource": {"name": resource},
                    "cost": r["BilledCost"], "currency": r["BillingCurrency"],
                    "cost_type": "regular", "credits": []}, separators=(",", ":")) + "\n")
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gpubill", required=True)
    p.add_argument("--gen-log", required=True, help="gpubill_gen_log (or gpubill_tests_gen_log)")
    p.add_argument("--instances", type=int, default=1500)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--keep", help="directory for the log, database and export (kept)")
    p.add_argument("--invoice-format", default="focus", choices=["focus", "aws-cur", "google-bq"])
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
    if a.invoice_format == "focus":
        with open(export) as f:
            lines = sum(1 for _ in f) - 1
    else:
        converted = export + (".cur.csv" if a.invoice_format == "aws-cur" else ".bq.jsonl")
        lines = convert(export, converted, a.invoice_format)
        export = converted
    print("log: %d instances x %d days; account %s; %s export lines %d (%d MB)" %
          (a.instances, a.days, account, a.invoice_format, lines,
           os.path.getsize(export) // (1 << 20)))
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
