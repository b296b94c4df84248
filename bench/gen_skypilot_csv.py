#!/usr/bin/env python3
"""Writes a deterministic, SkyPilot-like AWS `vms.csv` of N rows, for the large-catalog quote
benchmark (bench/quote_large.sh) and its smoke test.

The layout is the one of SkyPilot's public catalog (skypilot-org/skypilot-catalog,
catalogs/v7/aws/vms.csv; real rows in fixtures/skypilot/): the same header, one row per
(instance type, availability zone) with AWS zone ids ("use1-az1"), counts as floats ("8.0"),
GpuInfo as a quoted Python dict literal, on-demand price per hour, a spot price with 6 decimals
(empty on one row in eight). The instance types are synthetic ("zg123.4xlarge"): families of 10
sizes, each type with one GPU model of the bundled catalog in one of 1/2/4/8 counts, in 10
regions, one zone each, so N rows are N offers after import.

    bench/gen_skypilot_csv.py --rows 100000 --out /tmp/vms-100k.csv
"""
import argparse
import random

HEADER = ("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,"
          "SpotPrice,Region,AvailabilityZone")
# (SkyPilot accelerator name, GPU memory in MiB, on-demand USD per GPU-hour)
GPUS = [("V100", 16384, 3.06), ("V100-32GB", 32768, 3.9), ("T4", 16384, 0.526),
        ("A10G", 24576, 1.006), ("A100", 40960, 4.1), ("A100-80GB", 81920, 5.12),
        ("L4", 24576, 0.805), ("H100", 81920, 12.29), ("K80", 12288, 0.9), ("L40S", 46068, 1.86)]
REGIONS = [("us-east-1", "use1"), ("us-east-2", "use2"), ("us-west-2", "usw2"),
           ("eu-west-1", "euw1"), ("eu-central-1", "euc1"), ("ap-northeast-1", "apne1"),
           ("ap-southeast-1", "apse1"), ("ap-southeast-2", "apse2"), ("ca-central-1", "cac1"),
           ("sa-east-1", "sae1")]
SIZES = ["xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge",
         "32xlarge", "48xlarge", "metal"]
COUNTS = [1, 2, 4, 8]


def rows(n, seed):
    rng = random.Random(seed)
    out = []
    types = (n + len(REGIONS) - 1) // len(REGIONS)
    for t in range(types):
        family, size = divmod(t, len(SIZES))
        name, mib, per_gpu = GPUS[family % len(GPUS)]
        count = COUNTS[size % len(COUNTS)]
        vcpus = 4 * (size + 1) * count
        memory = 16 * (size + 1) * count
        info = ("\"{'Gpus': [{'Name': '%s', 'Manufacturer': 'NVIDIA', 'Count': %d, "
                "'MemoryInfo': {'SizeInMiB': %d}}], 'TotalGpuMemoryInMiB': %d}\""
                % (name, count, mib, mib * count))
        base = per_gpu * count * (1 + size / 20)
        for r, (region, zone) in enumerate(REGIONS):
            if len(out) == n:
                return out
            price = round(base * (1 + r / 50 + rng.random() / 100), 4)
            spot = "" if rng.random() < 0.125 else "%.6f" % (price * (0.3 + rng.random() / 5))
            out.append("zg%d.%s,%s,%d.0,%d.0,%d.0,%s,%s,%s,%s,%s-az%d" %
                       (family, SIZES[size], name, count, vcpus, memory, info,
                        repr(price), spot, region, zone, 1 + t % 4))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=100000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    with open(a.out, "w", newline="\n") as f:
        f.write(HEADER + "\n")
        for line in rows(a.rows, a.seed):
            f.write(line + "\n")


if __name__ == "__main__":
    main()
