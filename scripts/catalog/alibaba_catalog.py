#!/usr/bin/env python3
"""Generate fixtures/catalog/20-alibaba.json (Alibaba Cloud ECS GPU offers).

Inputs (local git directories of public repositories, passed as arguments):

  --ecs-docs-git   AlibabaCloudDocs/ecs (all refs; history 2018-06 .. 2021-07).
                   Every GPU instance-type table row ("|ecs.gn5-c4g1.xlarge|4|30.0|...")
                   in any version of any file is collected; a type's spec is taken from
                   its newest English row, its source is the commit that first carried
                   that row.
  --libcloud-git   apache/libcloud, commit 9ea43856b3b04794427fb267de7c88009760eee5,
                   path libcloud/data/pricing.json ("ecs-<region>" sections): a copy,
                   made 2019-05-23 by libcloud's contrib/update_ecs_prices.py, of
                   Alibaba's international price file
                   g.alicdn.com/aliyun/ecs-price-info-intl/2.0.15/price/download/instancePrice.json
                   (USD; hours[0] = pay-as-you-go per hour, months[0] = 1-month subscription).
  --sparecores-git SpareCores/sc-data-dumps, commit e8749bef991dfd1c531e84f09c2882945064a18d,
                   data/server/alicloud/*.json (specs of GPU types the docs snapshot lacks).

Hand-transcribed facts (prices, dates) are kept in the tables below with their sources.

Rerun (from /work/main):
  python3 scripts/catalog/alibaba_catalog.py \
      --ecs-docs-git /path/to/AlibabaCloudDocs+ecs.git \
      --libcloud-git /path/to/apache+libcloud.git \
      --sparecores-git /path/to/SpareCores+sc-data-dumps.git \
      --out fixtures/catalog/20-alibaba.json
Python 3 standard library only; needs the `git` command.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from decimal import Decimal, ROUND_HALF_EVEN
from fractions import Fraction

PROVIDER = "alibaba"
LIBCLOUD_COMMIT = "9ea43856b3b04794427fb267de7c88009760eee5"
LIBCLOUD_PATH = "libcloud/data/pricing.json"
SPARECORES_COMMIT = "e8749bef991dfd1c531e84f09c2882945064a18d"
ARTHUR_COMMIT = "31706d3fb6495605c25031da2f74e64947a37193"

# ---------------------------------------------------------------- regions
REGION_NAMES = {
    "cn-hangzhou": "China (Hangzhou)", "cn-beijing": "China (Beijing)",
    "cn-shenzhen": "China (Shenzhen)", "cn-qingdao": "China (Qingdao)",
    "cn-zhangjiakou": "China (Zhangjiakou)", "cn-huhehaote": "China (Hohhot)",
    "cn-chengdu": "China (Chengdu)", "cn-hongkong": "China (Hong Kong)",
    "cn-shanghai": "China (Shanghai)", "us-west-1": "US West 1",
    "us-east-1": "US (Virginia)", "ap-northeast-1": "Japan (Tokyo)",
    "ap-south-1": "India (Mumbai)", "ap-southeast-1": "Singapore",
    "ap-southeast-2": "Australia (Sydney)", "ap-southeast-3": "Malaysia (Kuala Lumpur)",
    "ap-southeast-5": "Indonesia (Jakarta)", "eu-central-1": "Germany (Frankfurt)",
    "eu-west-1": "UK (London)", "me-east-1": "UAE (Dubai)",
}
REGIONS_IN_SHARED_FILE = {"cn-shanghai", "us-west-1"}  # already in 01-providers.json

# ---------------------------------------------------------------- GPUs
FULL_GPU_MB = {"T4": 16384, "A10": 24576}
GPU_NOTES = {
    "P100-PCIE-16GB": "P100 16 GB; Alibaba docs do not state PCIe or SXM2 [U].",
    "H20": "Alibaba and the crawl call the GPU 'GPU H' (96 GB); read as NVIDIA H20 96 GB [U].",
}


def dec(x):
    """Exact decimal string, at most 12 places, no exponent, trailing zeros kept off."""
    if isinstance(x, Fraction):
        d = (Decimal(x.numerator) / Decimal(x.denominator))
    else:
        d = Decimal(str(x))
    d = d.quantize(Decimal("0.000000000001"), rounding=ROUND_HALF_EVEN).normalize()
    s = format(d, "f")
    return s


def git(repo, *args):
    return subprocess.check_output(["git", "--git-dir", repo] + list(args))


# ---------------------------------------------------------------- docs (specs)
ROW = re.compile(r'^\|\s*(ecs\.(?:v?gn\w*|ga\d\w*|sgn\w*|ebmgn\w*|sccgn\w*)[-.][\w.-]+)\s*\|(.*)$', re.M)
MODEL = re.compile(r'(M40|P100|P4|V100|T4|A100|A10|S7150)')


def docs_rows(repo):
    """{type: {'row': cells, 'date': d, 'commit': c, 'path': p}} newest English row per type."""
    objs = {}
    for line in git(repo, "rev-list", "--all", "--objects").decode("utf8", "replace").splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2:
            objs.setdefault(parts[0], parts[1])
    first = {}
    cur = None
    raw = git(repo, "log", "--all", "--format=C %H %ad", "--date=short", "--raw",
              "--no-abbrev", "--no-renames").decode("utf8", "replace")
    for line in raw.splitlines():
        if line.startswith("C "):
            _, h, d = line.split()
            cur = (d, h)
        elif line.startswith(":"):
            b = line.split("\t")[0].split()[3]
            if b not in first or cur[0] < first[b][0]:
                first[b] = cur
    p = subprocess.Popen(["git", "--git-dir", repo, "cat-file", "--batch"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    found = {}
    seen = {}
    for sha, path in objs.items():
        p.stdin.write((sha + "\n").encode())
        p.stdin.flush()
        hdr = p.stdout.readline().split()
        n = int(hdr[2])
        data = p.stdout.read(n)
        p.stdout.read(1)
        if hdr[1] != b"blob" or sha not in first:
            continue
        text = data.decode("utf8", "replace")
        for t, rest in ROW.findall(text):
            cells = [c.strip() for c in rest.split("|")]
            d, h = first[sha]
            en = path.startswith("intl.en-US")
            key = (en, d)
            old = found.get(t)
            if old is None or key > old["key"]:
                found[t] = {"row": cells, "date": d, "commit": h, "path": path, "key": key}
            seen[t] = min(seen.get(t, d), d)
    p.stdin.close()
    p.wait()
    for t in found:
        found[t]["first_seen"] = seen[t]
    return found


def frac_of(s):
    s = s.replace(" ", "")
    if "/" in s:
        a, b = s.split("/")
        return Fraction(int(a), int(b))
    return Fraction(int(s))


def gpu_id(family, model, mem_gb):
    if model == "M40":
        return "M40"
    if model == "P100":
        return "P100-PCIE-16GB"
    if model == "V100":
        return "V100-SXM2-32GB" if mem_gb == 32 or family in ("gn6e", "ebmgn6e", "sccgn6e", "sccgn6ne") else "V100-SXM2-16GB"
    if model == "A100":
        return "A100-80GB" if family in ("gn7e", "ebmgn7e", "ebmgn7ex", "sccgn7ex") else "A100-40GB"
    return model  # P4, T4, A10, S7150


def parse_doc_row(t, cells):
    fam = t[4:].split("-")[0].split(".")[0]
    vcpu = int(cells[0].replace(",", ""))
    ram = dec(Decimal(cells[1]))
    local = None
    if fam in ("gn5", "ga1"):
        m = re.search(r'([\d,]+)\s*$', cells[2])
        if m:
            local = int(m.group(1).replace(",", ""))
    gi = next(i for i, c in enumerate(cells) if MODEL.search(c))
    g = cells[gi].replace("\\", "")
    model = MODEL.search(g).group(1)
    if model == "A10" and "A100" in g:
        model = "A100"
    m = re.search(r'^(\d+)\s*\*', g)
    if m:
        count = Fraction(int(m.group(1)))
    else:
        m = re.search(model + r'[^×*]*[×*]\s*(\d+\s*(?:/\s*\d+)?)', g)
        count = frac_of(m.group(1)) if m else Fraction(1)
    mem_gb = None
    for c in cells[gi + 1:gi + 2]:
        m = re.search(r'^(\d+)\s*GB', c.replace(" ", "") .replace("GB", " GB"))
        if m:
            mem_gb = int(m.group(1))
    return fam, vcpu, ram, local, model, count, mem_gb


# ---------------------------------------------------------------- SpareCores (specs)
SC_MODEL = {"A100": None, "A10": "A10", "T4": "T4", "V100": None, "A30": "A30", "L20": "L20",
            "GPU H": "H20", "A800": "A800-80GB", "RTX 6000": "RTX6000", "P4": "P4"}
SC_SKIP_PREFIX = ("ecs.gn5t", "ecs.gn7r", "ecs.gn7ia", "ecs.gn7t", "ecs.gn8t", "ecs.gn8te",
                  "ecs.gn8e", "ecs.gn8ep", "ecs.gn8ga", "ecs.gn9", "ecs.sgn8", "ecs.ebmgn8t",
                  "ecs.ebmgn8ga", "ecs.ebmgn9", "ecs.ebmgn7t", "ecs.ebmgn7v.", "ecs.poc")


def sparecores_rows(repo):
    out = {}
    names = git(repo, "ls-tree", "--name-only", SPARECORES_COMMIT, "data/server/alicloud/").decode().split()
    for path in names:
        d = json.loads(git(repo, "show", SPARECORES_COMMIT + ":" + path))
        t = d["server_id"]
        if not d.get("gpu_count") or t.startswith(SC_SKIP_PREFIX):
            continue
        model = d.get("gpu_model")
        if model not in SC_MODEL:
            continue
        fam = t[4:].split("-")[0].split(".")[0]
        mem = d.get("gpu_memory_min")
        if model == "A100":
            gid = "A100-80GB" if (mem or 0) >= 81920 else "A100-40GB"
        elif model == "V100":
            gid = "V100-SXM2-32GB" if (mem or 0) >= 32768 else "V100-SXM2-16GB"
        elif model == "A800":
            if (mem or 0) < 81920:
                continue
            gid = "A800-80GB"
        else:
            gid = SC_MODEL[model]
        count = Fraction(d["gpu_count"])
        if gid in FULL_GPU_MB and mem and mem < FULL_GPU_MB[gid] and d["gpu_count"] == 1:
            count = Fraction(mem, FULL_GPU_MB[gid])  # vGPU slice
        out[t] = {"family": fam, "gpu": gid, "count": count, "vcpu": d["vcpus"],
                  "ram": dec(Decimal(d["memory_amount"]) / 1024), "path": path}
    return out


# ---------------------------------------------------------------- hand-transcribed prices
ARTHUR_SRC = ("ArthurChiao/arthurchiao.github.io@%s:_posts/2023-06-17-gpu-prices.md "
              "(section 2.1 cn-shanghai, 'as of 2023.06', read from the ecs-buy.aliyun.com price "
              "estimation page; list price, CNY) [S]" % ARTHUR_COMMIT)
# type: (CNY per hour pay-as-you-go, CNY per month subscription)
ARTHUR_CN_SHANGHAI = {
    "ecs.gn7e-c16g1.4xlarge": ("34.74", "16676"), "ecs.gn7-c12g1.3xlarge": ("31.58", "15160"),
    "ecs.gn7e-c16g1.16xlarge": ("138.96", "66704"), "ecs.gn7e-c16g1.32xlarge": ("277.93", "133408"),
    "ecs.gn7-c13g1.13xlarge": ("126.33", "60640"), "ecs.gn7-c13g1.26xlarge": ("252.66", "121280"),
    "ecs.ebmgn7e.32xlarge": ("277.93", "133408"),
    "ecs.gn6v-c8g1.2xlarge": ("26.46", "7620"), "ecs.gn6v-c8g1.8xlarge": ("105.84", "30480"),
    "ecs.gn6v-c8g1.16xlarge": ("211.68", "60960"), "ecs.gn6v-c10g1.20xlarge": ("219.64", "63255"),
    "ecs.gn6e-c12g1.3xlarge": ("19.73", "9475"), "ecs.gn6e-c12g1.12xlarge": ("78.95", "37900"),
    "ecs.ebmgn6v.24xlarge": ("237.12", "68292"), "ecs.gn6e-c12g1.24xlarge": ("157.91", "75800"),
    "ecs.gn6i-c4g1.xlarge": ("11.63", "3348"), "ecs.gn6i-c8g1.2xlarge": ("14.00", "4032"),
    "ecs.gn6i-c16g1.4xlarge": ("16.41", "4725"), "ecs.gn6i-c24g1.6xlarge": ("17.19", "4950"),
    "ecs.gn6i-c40g1.10xlarge": ("14.81", "7112.9"), "ecs.gn6i-c24g1.12xlarge": ("34.38", "9900"),
    "ecs.gn6i-c24g1.24xlarge": ("68.75", "19800"), "ecs.ebmgn6i.24xlarge": ("68.75", "19800"),
    "ecs.gn7i-c8g1.2xlarge": ("9.53", "4575.66"), "ecs.gn7i-c16g1.4xlarge": ("10.09", "4844.81"),
    "ecs.gn7i-c32g1.8xlarge": ("13.30", "6387.98"), "ecs.gn7i-c48g1.12xlarge": ("17.94", "8613.00"),
    "ecs.gn7i-c56g1.14xlarge": ("21.53", "10335.60"), "ecs.gn7i-c32g1.16xlarge": ("26.61", "12775.95"),
    "ecs.gn7i-c32g1.32xlarge": ("53.23", "25551.90"),
}
ARTHUR_DATE = "2023-06-17"

LEGACY_SRC = ("third-party README quoting ecs.gn5-c4g1.xlarge at ¥11.916/h pay-as-you-go and ¥1.224/h "
              "preemptible in US West 1 (c. 2018); the README was not re-located in this pass, so the "
              "figures cannot be cited to their original; 11.916 = 1.706 USD (the 2019 international list "
              "price) x 6.985, so the '¥' figures look like a USD->CNY conversion; not stated whether the "
              "spot figure is a lowest-zone price [U] [as-of approximate: c. 2018; 2018-01-01 chosen]")
# Dropped: the README these figures come from could not be found again, so they cannot be cited
# to an original, and they look like a USD->CNY conversion of the 2019 list price, not a price.
LEGACY_ROWS = []  # instance_type, region, mode, amount, currency
LEGACY_DATE = "2018-01-01"

DOCS_BW_COMMIT = "daea8c282fcc205b417b89a31afea00b0be99292"
DOCS_BW_SRC = ("AlibabaCloudDocs/ecs@%s:cn.zh-CN/产品定价/公网带宽计费.md (billing example, China (Hangzhou): %%s; "
               "mainland CNY list price, used for every region; same figures in later versions up to "
               "cn.zh-CN/产品定价/计费项/公网带宽计费.md@fe544030f1d9c64e85963f5c698f581a565cdcac, 2021-02-02) [P]"
               % DOCS_BW_COMMIT)
BANDWIDTH = [
    ("fixed_mbps", "prepaid", "mbps_month", "23",
     "first tier: 2 Mbps = 46.00 CNY/month, i.e. 23 per Mbps; the doc prices 1-5 Mbps as per-n-Mbps "
     "packages (5 Mbps = 125.00/month) and 80.00 CNY per Mbps-month from the 6th Mbps (tiers not "
     "expressible: one amount per kind)"),
    ("fixed_mbps", "payg", "mbps_hour", "0.063",
     "1-5 Mbps: 0.063 CNY per Mbps-hour; from the 6th Mbps 0.248 CNY per Mbps-hour (not expressible)"),
    ("traffic_gb", "payg", "gb", "0.80", "pay-by-traffic 0.80 CNY/GB outbound"),
    ("traffic_gb", "prepaid", "gb", "0.80",
     "pay-by-traffic 0.80 CNY/GB outbound, billed hourly whatever the instance billing method ('不限')"),
]
BW_DATE = "2018-06-08"

DISK_2020_09 = ("c907c2b8a3df46088a5bb64733a87b8fab534d48", "2020-09-29")
DISK_2020_12 = ("42e3a78f94ee09446bded53629c886edf64881ea", "2020-12-01")
DISK_PATH = "cn.zh-CN/产品定价/计费项/块存储计费.md"
DISKS = [  # kind, mode, unit, amount, (commit, date), note
    ("cloud_efficiency", "prepaid", "gb_month", "0.35", DISK_2020_09, "高效云盘 data disk 0.35 CNY/GiB/month"),
    ("cloud_efficiency", "payg", "gb_hour", "0.0005", DISK_2020_09, "高效云盘 0.0005 CNY/GiB/hour"),
    ("cloud_ssd", "prepaid", "gb_month", "1.00", DISK_2020_09,
     "SSD云盘 system disk: 40.00 CNY for the first 40 GiB, 1.00 CNY/GiB/month beyond"),
    ("cloud_ssd", "payg", "gb_hour", "0.0014", DISK_2020_09,
     "SSD云盘 0.056 CNY per 40 GiB-hour, 0.0014 per GiB beyond (the doc writes '元/GIB/月', a typo for hour)"),
    ("cloud_essd", "prepaid", "gb_month", "1.00", DISK_2020_12, "ESSD PL1 1.00 CNY/GiB/month"),
    ("cloud_essd", "payg", "gb_hour", "0.0021", DISK_2020_12, "ESSD PL1 0.0021 CNY/GiB/hour"),
    ("cloud_essd_pl0", "prepaid", "gb_month", "0.50", DISK_2020_12, "ESSD PL0 0.50 CNY/GiB/month"),
    ("cloud_essd_pl0", "payg", "gb_hour", "0.0010", DISK_2020_12, "ESSD PL0 0.0010 CNY/GiB/hour"),
]

DISCOUNTS = [{
    "provider": PROVIDER, "mode": "prepaid", "min_months": 12, "max_months": 23, "factor": "0.85",
    "effective_from": "2019-02-19",
    "source": "AlibabaCloudDocs/ecs@c75a0d40126f12e336bb3fdddea6ce26b9ede6e1:cn.zh-CN/API参考/其他接口/DescribePrice.md "
              "(pricing-rule example '买满1年，立享官网价格8.5折优惠'; English doc: 'Receive a 15% discount on a "
              "1-year subscription') [P]; applied to 12-23 months; discounts for 2-5 year terms not found [U]",
    "as_of": "2019-02-19",
}]

POLICY_COMMON = {
    "settlement_period": "hour", "settlement_rounding": "down", "settlement_decimals": 2,
    "arrears_grace_hours": 360, "arrears_retention_hours": 360, "recycle_bin_days": 15,
    "auto_renew_days_before": 9, "auto_renew_local_time": "08:00", "auto_renew_months": 1,
    "prepaid_destroy_before_expiry": False,
}
POLICY_TAIL = (
    "rounding: alibabacloud.com/help/faq-detail/106922 (PAYG cost recorded to 3 decimals, final fee rounded "
    "down to 2 decimals) [P]; auto-renewal: help.aliyun.com/document_detail/52843 (ModifyInstanceAutoRenewAttribute: "
    "deducted on the 9th day before expiry at 08:00 UTC+8) [P]; subscription expiry: "
    "alibabacloud.com/help/en/elastic-compute-service/latest/billing-methods-subscription (resources retained "
    "15 days after expiry, then released) [P]; arrears: alibabacloud.com/help/en/ecs/product-overview/overdue-payments "
    "(2023+: keeps running 15 days, stopped on T+15, released 15 days after being stopped) [P] — the current rule "
    "is applied to every period although an older API doc (ReActivateInstances) only says stopped instances are "
    "released after 15 days [U]; prepaid early destroy and stopped-instance compute charging not stated (defaults) [U]")
POLICIES = [
    dict(provider=PROVIDER, effective_from="2017-01-01", effective_to="2017-06-06T12:00:00+08:00",
         metering_granularity_seconds=3600, **POLICY_COMMON,
         source="granularity: alibabacloud.com notice 'Upgrade to ECS Pay-As-You-Go Instance Billing Method' "
                "(2017-05-31): pay-as-you-go was billed hourly before the change on 2017-06-06 12:00 GMT+8 [P]; "
                "expressed as 3600 s metering (partial hour counted as a whole hour) [U]; period start 2017-01-01 "
                "is the catalog's start, not a documented date [U]; " + POLICY_TAIL,
         as_of="2017-05-31"),
    dict(provider=PROVIDER, effective_from="2017-06-06T12:00:00+08:00", effective_to="2017-09-28T12:00:00Z",
         metering_granularity_seconds=60, min_charge_per_lifetime="0.01", **POLICY_COMMON,
         source="granularity: alibabacloud.com notice 'Upgrade to ECS Pay-As-You-Go Instance Billing Method' "
                "(2017-05-31): per-minute billing from 2017-06-06 12:00 (GMT+8), minimum charge per instance "
                "lifecycle 0.01 CNY [P]; " + POLICY_TAIL,
         as_of="2017-05-31"),
    dict(provider=PROVIDER, effective_from="2017-09-28T12:00:00Z",
         metering_granularity_seconds=1, min_charge_per_lifetime="0.01", **POLICY_COMMON,
         source="granularity: alibabacloud.com/notice/ECS-0928: per-second billing from 2017-09-28 12:00 UTC, "
                "fees accurate to the 6th decimal place, 0.01 minimum per lifecycle (stated in USD for the "
                "international site) [P]; current doc alibabacloud.com/help/en/ecs/pay-as-you-go-1 adds a "
                "vCPU-dependent minimum billing duration within each 1-hour cycle (values not retrieved) [U]; "
                "from 2024-04-01 hourly bills are accumulated and rounded monthly (mirror of a help.aliyun.com "
                "notice) [U] — not modelled; " + POLICY_TAIL + " [as-of approximate: notice date not given; "
                "2017-09-28 chosen]",
         as_of="2017-09-28"),
]


# ---------------------------------------------------------------- build
def build(args):
    docs = docs_rows(args.ecs_docs_git)
    sc = sparecores_rows(args.sparecores_git)
    types = {}
    for t, e in sorted(docs.items()):
        fam, vcpu, ram, local, model, count, mem_gb = parse_doc_row(t, e["row"])
        gid = gpu_id(fam, model, mem_gb)
        notes = ["first listed in the Alibaba docs copy on %s%s" % (
            e["first_seen"], " (the copy starts then; the type is older)" if e["first_seen"] <= "2018-06-08" else "")]
        if gid in GPU_NOTES:
            notes.append(GPU_NOTES[gid])
        if count.denominator != 1:
            notes.append("vGPU slice: %s of one %s" % (count, model))
        row = {"provider": PROVIDER, "id": t, "family": fam, "gpu": gid, "gpu_count": dec(count),
               "vcpu": vcpu, "ram_gb": ram}
        if local:
            row["local_disk_gb"] = local
            row["local_disk_kind"] = "ssd"
        row["notes"] = "; ".join(notes) + "."
        row["source"] = "AlibabaCloudDocs/ecs@%s:%s (instance-type table; spec from this newest row) [P]" % (
            e["commit"], e["path"])
        types[t] = row
    for t, e in sorted(sc.items()):
        if t in types:
            continue
        notes = ["listed by the Spare Cores crawl of Alibaba's API (2026-01); not in the 2018-2021 docs copy"]
        if e["gpu"] in GPU_NOTES:
            notes.append(GPU_NOTES[e["gpu"]])
        if e["count"].denominator != 1:
            notes.append("vGPU slice: %s of one %s (GPU memory share)" % (e["count"], e["gpu"]))
        types[t] = {"provider": PROVIDER, "id": t, "family": e["family"], "gpu": e["gpu"],
                    "gpu_count": dec(e["count"]), "vcpu": e["vcpu"], "ram_gb": e["ram"],
                    "notes": "; ".join(notes) + ".",
                    "source": "SpareCores/sc-data-dumps@%s:%s (crawled from Alibaba's DescribeInstanceTypes API) [S]"
                              % (SPARECORES_COMMIT, e["path"])}

    prices = []
    # 1. 2019-05-23 international price file (USD), via libcloud
    lc = json.loads(git(args.libcloud_git, "show", LIBCLOUD_COMMIT + ":" + LIBCLOUD_PATH))["compute"]
    lc_src = ("apache/libcloud@%s:%s ('ecs-%%s' section; copy made 2019-05-23 by contrib/update_ecs_prices.py of "
              "Alibaba's international price file g.alicdn.com/aliyun/ecs-price-info-intl/2.0.15/price/download/"
              "instancePrice.json, linux, %%s; international-site USD list price) [P] "
              "[as-of approximate: copy made 2019-05-23; price-file version 2.0.15 may be older]") % (
        LIBCLOUD_COMMIT, LIBCLOUD_PATH)
    for sect in sorted(lc):
        if not sect.startswith("ecs-"):
            continue
        region = sect[4:]
        for t in sorted(lc[sect]):
            if t not in types:
                continue
            p = lc[sect][t].get("linux")
            if not p:
                continue
            for mode, unit, key, what in (("payg", "hour", "pay_as_you_go", "hours[0] = pay-as-you-go per hour"),
                                          ("prepaid", "month", "prepaid", "months[0] = 1-month subscription")):
                if p.get(key) in (None, "", "0", 0):
                    continue
                prices.append({"provider": PROVIDER, "instance_type": t, "region": region, "mode": mode,
                               "unit": unit, "amount": dec(Decimal(str(p[key]))), "currency": "USD",
                               "effective_from": "2019-05-23", "source": lc_src % (region, what),
                               "as_of": "2019-05-23"})
    # 2. 2023-06 cn-shanghai (CNY), ArthurChiao
    for t, (h, m) in sorted(ARTHUR_CN_SHANGHAI.items()):
        if t not in types:
            sys.exit("ArthurChiao type missing from instance_types: " + t)
        for mode, unit, amt in (("payg", "hour", h), ("prepaid", "month", m)):
            prices.append({"provider": PROVIDER, "instance_type": t, "region": "cn-shanghai", "mode": mode,
                           "unit": unit, "amount": dec(Decimal(amt)), "currency": "CNY",
                           "effective_from": ARTHUR_DATE, "source": ARTHUR_SRC, "as_of": ARTHUR_DATE})
    # 3. c. 2018 legacy rows
    for t, region, mode, amt, cur in LEGACY_ROWS:
        prices.append({"provider": PROVIDER, "instance_type": t, "region": region, "mode": mode, "unit": "hour",
                       "amount": amt, "currency": cur, "effective_from": LEGACY_DATE, "source": LEGACY_SRC,
                       "as_of": LEGACY_DATE})
    # close periods: effective_to = next row's effective_from for the same key
    prices.sort(key=lambda r: (r["instance_type"], r["region"], r["mode"], r["effective_from"]))
    for a, b in zip(prices, prices[1:]):
        if (a["instance_type"], a["region"], a["mode"]) == (b["instance_type"], b["region"], b["mode"]):
            a["effective_to"] = b["effective_from"]
            # keep field order readable
            src, asof = a.pop("source"), a.pop("as_of")
            a["source"], a["as_of"] = src, asof

    used_regions = sorted({r["region"] for r in prices})
    regions = [{"provider": PROVIDER, "id": r, "name": REGION_NAMES[r]}
               for r in used_regions if r not in REGIONS_IN_SHARED_FILE]

    disk_prices = []
    for kind, mode, unit, amt, (commit, date), note in DISKS:
        disk_prices.append({"provider": PROVIDER, "kind": kind, "mode": mode, "unit": unit, "amount": amt,
                            "currency": "CNY", "effective_from": date,
                            "source": "AlibabaCloudDocs/ecs@%s:%s (billing example: %s; mainland China CNY list "
                                      "price, used for every region) [P]" % (commit, DISK_PATH, note),
                            "as_of": date})
    bandwidth = []
    for kind, mode, unit, amt, note in BANDWIDTH:
        bandwidth.append({"provider": PROVIDER, "kind": kind, "mode": mode, "unit": unit, "amount": amt,
                          "currency": "CNY", "effective_from": BW_DATE,
                          "source": DOCS_BW_SRC % note,
                          "as_of": BW_DATE})

    out = {"format": "gpubill-catalog/1", "regions": regions,
           "instance_types": [types[t] for t in sorted(types)],
           "prices": prices, "discounts": DISCOUNTS, "disk_prices": disk_prices,
           "bandwidth_prices": bandwidth, "policies": POLICIES}
    return out


def write(out, path):
    lines = ["{", '  "format": "gpubill-catalog/1",']
    sections = [k for k in out if k != "format"]
    for i, k in enumerate(sections):
        rows = out[k]
        body = ",\n".join(json.dumps(r, ensure_ascii=False) for r in rows)
        lines.append('  "%s": [\n%s\n  ]%s' % (k, body, "," if i < len(sections) - 1 else ""))
    lines.append("}")
    text = "\n".join(lines) + "\n"
    json.loads(text)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".alibaba-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf8") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ecs-docs-git", required=True)
    ap.add_argument("--libcloud-git", required=True)
    ap.add_argument("--sparecores-git", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = build(args)
    write(out, args.out)
    print("instance_types %d, prices %d, regions %d" % (len(out["instance_types"]), len(out["prices"]),
                                                        len(out["regions"])))


if __name__ == "__main__":
    main()
