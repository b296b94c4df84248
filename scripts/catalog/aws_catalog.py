#!/usr/bin/env python3
"""Build fixtures/catalog/40-aws.json (AWS EC2 GPU instances) for gpubill.

Inputs (all passed as arguments; nothing is read from fixed paths):

  --snapshot v0=FILE   SkyPilot AWS catalog CSV, repository skypilot-org/skypilot-catalog,
                       commit 5940ede7074d3fc5a668be7902bb20d1fb7ef13d, path catalogs/aws/instances.csv
                       (one row per availability zone, AZ *names*).
  --snapshot v8=FILE   SkyPilot AWS catalog CSV, repository skypilot-org/skypilot-catalog,
                       commit e385a0d348eda9cefd9806423e7725944dc249e4, path catalogs/v8/aws/vms.csv
                       (one row per availability zone, AZ *IDs*).
     FILE may be the complete original vms.csv or any subset of its rows that keeps the
     header names InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB,
     GpuInfo (optional), Price, SpotPrice, Region, AvailabilityZone; only GPU families
     listed in FAMILIES are used.
  --karpenter-git DIR  a git directory (bare is fine) of github.com/aws/karpenter-provider-aws;
                       the first-parent history of its generated us-east-1 on-demand price
                       tables (zz_generated.pricing*.go) gives dated us-east-1 on-demand prices.
  --out FILE           output JSON (written to FILE.tmp, then renamed).

Rerun:
  python3 scripts/catalog/aws_catalog.py --snapshot v0=aws_v0.csv --snapshot v8=aws_v8.csv \
      --karpenter-git /path/to/karpenter-provider-aws.git --out fixtures/catalog/40-aws.json

Python 3 standard library only.
"""
import argparse
import csv
import json
import os
import re
import subprocess
from decimal import Decimal

FAMILIES = re.compile(r'^(g3|g3s|g4ad|g4dn|g5|g5g|g6|g6e|g6f|gr6|gr6f|p2|p3|p3dn|p4d|p4de|p5|p5e|p5en|p6-b200)\.')

SKY = 'skypilot-org/skypilot-catalog'
SNAPSHOTS = {
    'v0': {
        'commit': '5940ede7074d3fc5a668be7902bb20d1fb7ef13d',
        'path': 'catalogs/aws/instances.csv',
        'date': '2022-09-01',
        'approx': ('[as-of approximate: commit undated in the copy read; it lists me-central-1 '
                   '(opened 2022-08-30) and uses AZ names, which SkyPilot replaced by AZ IDs in '
                   '2022-12 (skypilot-catalog PR #7); 2022-09-01 chosen]'),
    },
    'v8': {
        'commit': 'e385a0d348eda9cefd9806423e7725944dc249e4',
        'path': 'catalogs/v8/aws/vms.csv',
        'date': '2025-08-25',
        'approx': ('[as-of approximate: commit undated in the copy read; it lists p5.4xlarge '
                   '(first in the AWS price list of aws/karpenter-provider-aws on 2025-08-25) and '
                   'not p6-b300 (first there 2026-05-22), and v8 was frozen on 2026-07-09 '
                   '(skypilot-catalog PR #185); the earliest possible date, 2025-08-25, chosen]'),
    },
}
# the June-2025 cut of P4d/P4de/P5/P5en on-demand prices (seen in us-east-1 in the AWS price
# list on this date); regional values from the later snapshot are dated with it.
CUT_FAMILIES = ('p4d', 'p4de', 'p5', 'p5en')
CUT_DATE = '2025-06-23'
CUT_COMMIT = '1b59328e55'

GPU_MAP = {
    'K80': 'K80', 'M60': 'M60', 'Radeon Pro V520': 'V520', 'T4': 'T4', 'T4g': 'T4',
    'A10G': 'A10G', 'L4': 'L4', 'L40S': 'L40S', 'V100': 'V100-SXM2-16GB',
    'V100-32GB': 'V100-SXM2-32GB', 'A100': 'A100-40GB', 'A100-80GB': 'A100-80GB',
    'H100': 'H100', 'H200': 'H200', 'B200': 'B200',
}

REGION_NAMES = {
    'us-east-1': 'US East (N. Virginia)', 'us-east-2': 'US East (Ohio)',
    'us-west-1': 'US West (N. California)', 'us-west-2': 'US West (Oregon)',
    'af-south-1': 'Africa (Cape Town)', 'ap-east-1': 'Asia Pacific (Hong Kong)',
    'ap-northeast-1': 'Asia Pacific (Tokyo)', 'ap-northeast-2': 'Asia Pacific (Seoul)',
    'ap-northeast-3': 'Asia Pacific (Osaka)', 'ap-south-1': 'Asia Pacific (Mumbai)',
    'ap-southeast-1': 'Asia Pacific (Singapore)', 'ap-southeast-2': 'Asia Pacific (Sydney)',
    'ap-southeast-3': 'Asia Pacific (Jakarta)', 'ca-central-1': 'Canada (Central)',
    'eu-central-1': 'Europe (Frankfurt)', 'eu-north-1': 'Europe (Stockholm)',
    'eu-south-1': 'Europe (Milan)', 'eu-south-2': 'Europe (Spain)',
    'eu-west-1': 'Europe (Ireland)', 'eu-west-2': 'Europe (London)',
    'eu-west-3': 'Europe (Paris)', 'me-central-1': 'Middle East (UAE)',
    'me-south-1': 'Middle East (Bahrain)',
}
REGIONS_IN_PROVIDERS_FILE = {'us-east-1', 'ap-southeast-1', 'eu-central-1'}

KARPENTER = 'aws/karpenter-provider-aws'
KARPENTER_PATHS = [
    'pkg/cloudprovider/aws/zz_generated.pricing.go',
    'pkg/cloudprovider/zz_generated.pricing.go',
    'pkg/providers/pricing/zz_generated.pricing.go',
    'pkg/providers/pricing/zz_generated.pricing_aws.go',
]


def dec(s):
    """Normalise a decimal string: '0.526000' -> '0.526', '61.0' -> '61'."""
    d = Decimal(s)
    t = format(d.normalize(), 'f')
    return t


def family(t):
    return t.split('.')[0]


# ---------------------------------------------------------------- SkyPilot snapshots
def read_snapshot(path):
    groups = {}   # (type, region) -> {'price': str|None, 'spot': [(az, Decimal)], 'azs': n}
    specs = {}
    with open(path, newline='') as f:
        for r in csv.DictReader(f):
            t = r['InstanceType']
            if not FAMILIES.match(t):
                continue
            if r.get('AcceleratorName'):
                gm = None
                m = re.search(r"'SizeInMiB': (\d+)", r.get('GpuInfo') or '')
                if m:
                    gm = int(m.group(1))
                specs[t] = {'acc': r['AcceleratorName'], 'count': dec(r['AcceleratorCount']),
                            'vcpu': int(Decimal(r['vCPUs'])), 'mem': dec(r['MemoryGiB']),
                            'gpumem_mib': gm}
            g = groups.setdefault((t, r['Region']), {'price': None, 'spot': [], 'azs': 0})
            g['azs'] += 1
            if r['Price']:
                g['price'] = dec(r['Price'])
            if r['SpotPrice']:
                g['spot'].append((r['AvailabilityZone'], Decimal(r['SpotPrice'])))
    return groups, specs


# ---------------------------------------------------------------- karpenter history
def git(repo, *args):
    return subprocess.run(['git', '-C', repo] + list(args), capture_output=True, text=True)


def karpenter_history(repo):
    """Return {type: [(date, commit40, path, price_str)]} change points for us-east-1."""
    log = git(repo, 'log', '--first-parent', '--reverse', '--format=%H %cs', '--', *KARPENTER_PATHS).stdout
    hist = {}
    prev = {}
    for line in log.splitlines():
        h, d = line.split()
        txt, used = None, None
        for p in reversed(KARPENTER_PATHS):
            r = git(repo, 'show', f'{h}:{p}')
            if r.returncode == 0:
                txt, used = r.stdout, p
                break
        if txt is None:
            continue
        m = re.search(r'(initialOnDemandPrices\["us-east-1"\]|"us-east-1": \{)', txt, re.I)
        sec = txt
        if m:
            sec = txt[m.end():]
            m2 = re.search(r'(initialOnDemandPrices\["|\n\t"[a-z]{2}-[a-z-]+-\d": \{)', sec, re.I)
            if m2:
                sec = sec[:m2.start()]
        elif 'for us-east-1' not in txt:
            continue
        prices = {k: dec(v) for k, v in re.findall(r'"([a-z0-9.-]+)": ([0-9.]+)', sec) if FAMILIES.match(k)}
        for k, v in prices.items():
            if prev.get(k) != v:
                hist.setdefault(k, []).append((d, h, used, v))
        prev = prices
    return hist


# ---------------------------------------------------------------- static (hand-checked) data
def static_us_east_1_payg():
    """Pre-SkyPilot/karpenter us-east-1 on-demand rows (kept from the previous file, sources
    re-cited to the original documents)."""
    p2src = ('blog.innodatalabs.com (post of Nov 2016: p2.xlarge $0.90/h in us-east-1) [S]; '
             'iterative/cml (GitHub) notes on P2 pricing [S]; the same prices appear unchanged in '
             'the AWS price list copies in aws/karpenter-provider-aws from 2022-06-23 on [P] '
             '[as-of approximate: Nov 2016; 2016-11-01 chosen]')
    p2scaled = ('p2 prices scale linearly at $0.90 per GPU-hour; p2.xlarge quote from blog.innodatalabs.com '
                '(Nov 2016) [S]; {t} at {a} confirmed in the AWS price list copies in aws/karpenter-provider-aws '
                'from 2022-06-23 on [P] [as-of approximate: Nov 2016 dated by the p2.xlarge quote; 2016-11-01 chosen]')
    p3src = ('P3 launch 2017-10-25 (AWS announcement, reported by nextplatform.com/2017/10/26/aws-first-volta-gpus-cloud/) [S]; '
             'us-east-1 on-demand {a} as listed in the AWS price list copies in aws/karpenter-provider-aws from '
             '2022-06-23 on and in skypilot-org/skypilot-catalog snapshots [P] [as-of approximate: price not found with '
             'an earlier date; assumed unchanged since launch and dated at the P3 launch 2017-10-25]')
    rows = [
        ('p2.xlarge', '0.9', '2016-11-01', p2src),
        ('p2.8xlarge', '7.2', '2016-11-01', p2scaled.format(t='p2.8xlarge', a='7.20')),
        ('p2.16xlarge', '14.4', '2016-11-01', p2scaled.format(t='p2.16xlarge', a='14.40')),
        ('p3.2xlarge', '3.06', '2017-10-25', p3src.format(a='3.06')),
        ('p3.8xlarge', '12.24', '2017-10-25', p3src.format(a='12.24')),
        ('p3.16xlarge', '24.48', '2017-10-25', p3src.format(a='24.48')),
        ('p5.48xlarge', '98.32', '2023-07-27',
         'nextplatform.com/2023/07/27/h100-gpu-instance-pricing-on-aws-grin-and-bear-it/ — p5.48xlarge on-demand '
         '$98.32/h (us-east-1) [S]; same value in the AWS price list copy aws/karpenter-provider-aws from 2023-08-09 [P]'),
    ]
    return rows


def static_regional_payg():
    """Dated third-party quotes that let a region's row start before the SkyPilot snapshots."""
    src = ('ArthurChiao/arthurchiao.github.io _posts/2023-06-17-gpu-prices.md — {r} g4dn.xlarge {a} USD/h (2023-06) [S]; '
           'same value in skypilot-org/skypilot-catalog@e385a0d348eda9cefd9806423e7725944dc249e4:catalogs/v8/aws/vms.csv [S]')
    return [
        ('g4dn.xlarge', 'ap-southeast-1', '0.736', '2023-06-17', src.format(r='ap-southeast-1', a='0.736')),
        ('g4dn.xlarge', 'eu-central-1', '0.658', '2023-06-17', src.format(r='eu-central-1', a='0.658')),
    ]


def static_reserved():
    src = ('nextplatform.com/2023/07/27/h100-gpu-instance-pricing-on-aws-grin-and-bear-it/ (figures relayed in the '
           'Hacker News discussion of that article) — p5.48xlarge {what} [S]; region assumed us-east-1 like the '
           'on-demand figure [U]; the June 2025 GPU price cut (usage.ai blog, 2026: on-demand and Savings Plans '
           'rates lowered) is not reflected here [U]')
    return [
        {'provider': 'aws', 'instance_type': 'p5.48xlarge', 'region': 'us-east-1', 'mode': 'reserved_1y', 'unit': 'hour',
         'amount': '57.63', 'currency': 'USD', 'effective_from': '2023-07-27',
         'source': src.format(what='1-yr reserved ≈ $57.63/h ($7.20/GPU-h), an estimate [U]'), 'as_of': '2023-07-27'},
        {'provider': 'aws', 'instance_type': 'p5.48xlarge', 'region': 'us-east-1', 'mode': 'reserved_3y', 'unit': 'hour',
         'amount': '43.16', 'currency': 'USD', 'effective_from': '2023-07-27',
         'source': src.format(what='3-yr reserved $43.16/h ($5.40/GPU-h)'), 'as_of': '2023-07-27'},
    ]


GPUS_EXTRA = [
    {'id': 'V520', 'aliases': ['Radeon Pro V520', 'AMD Radeon Pro V520'], 'vendor': 'AMD',
     'architecture': 'RDNA (Navi 12)', 'memory_gb': '8',
     'source': ('skypilot-org/skypilot-catalog@e385a0d348eda9cefd9806423e7725944dc249e4:catalogs/v8/aws/vms.csv '
                '(EC2 DescribeInstanceTypes GpuInfo: Radeon Pro V520, AMD, 8192 MiB per GPU, AWS g4ad) [S]; '
                'architecture from general knowledge, not a retrieved source [U]')},
    {'id': 'B200', 'aliases': ['NVIDIA B200', 'Blackwell B200'], 'vendor': 'NVIDIA', 'architecture': 'Blackwell',
     'memory_gb': '179',
     'source': ('skypilot-org/skypilot-catalog@e385a0d348eda9cefd9806423e7725944dc249e4:catalogs/v8/aws/vms.csv '
                '(EC2 DescribeInstanceTypes GpuInfo for p6-b200: B200, NVIDIA, 183359 MiB ≈ 179 GiB per GPU) [S]; '
                'other figures not retrieved, omitted')},
]


def disk_and_bandwidth():
    disks = [
        {'provider': 'aws', 'kind': 'cloud_ssd', 'mode': 'payg', 'unit': 'gb_month', 'amount': '0.1', 'currency': 'USD',
         'effective_from': '2019-08-02', 'effective_to': '2020-12-01',
         'source': ('gp2 General Purpose SSD, us-east-1 figure used for every region: gist.github.com/chicagobuss/'
                    '87bdbe2b4323efc18fff3591a68ee425 (2019-08-02, us-east-1 gp2 0.1 per GB-month) [S]; gp2 at '
                    '$0.10 per GiB-month also in docs.aws.amazon.com/prescriptive-guidance/latest/optimize-costs-'
                    'microsoft-workloads/ebs-migrate-gp2-gp3.html [P]; gp2 kept this price after 2020-12 but gp3 '
                    'became the cheaper general-purpose SSD (next row)'),
         'as_of': '2019-08-02'},
        {'provider': 'aws', 'kind': 'cloud_ssd', 'mode': 'payg', 'unit': 'gb_month', 'amount': '0.08', 'currency': 'USD',
         'effective_from': '2020-12-01',
         'source': ('gp3 General Purpose SSD storage, us-east-1 figure used for every region: gp3 GA in December 2020 '
                    'at up to 20% lower price per GB than gp2 (AWS Storage Blog, "Migrate your Amazon EBS volumes '
                    'from gp2 to gp3 and save up to 20% on costs"; docs.aws.amazon.com/prescriptive-guidance/latest/'
                    'optimize-costs-microsoft-workloads/ebs-migrate-gp2-gp3.html) [P]; $0.08/GB-month N. Virginia '
                    'quoted from the EBS pricing page by saisci.com/aws/gp2-vs-gp3-cost-comparison-ebs-volumes/ '
                    '(2021-02-04) [S]; excludes gp3 IOPS above 3,000 ($0.005/IOPS-month) and throughput above '
                    '125 MB/s ($0.04/MB/s-month), which the format cannot express; gp2 stays $0.10 [P] '
                    '[as-of approximate: GA day in December 2020 not retrieved; 2020-12-01 chosen]'),
         'as_of': '2021-02-04'},
        {'provider': 'aws', 'kind': 'cloud_hdd', 'mode': 'payg', 'unit': 'gb_month', 'amount': '0.045', 'currency': 'USD',
         'effective_from': '2019-08-02',
         'source': ('st1 Throughput Optimized HDD, us-east-1 figure used for every region: gist.github.com/chicagobuss/'
                    '87bdbe2b4323efc18fff3591a68ee425 (2019-08-02, us-east-1 st1 0.045 per GB-month; sc1 0.025) [S]'),
         'as_of': '2019-08-02'},
        {'provider': 'aws', 'kind': 'cloud_premium', 'mode': 'payg', 'unit': 'gb_month', 'amount': '0.125', 'currency': 'USD',
         'effective_from': '2019-08-02',
         'source': ('io1 Provisioned IOPS SSD storage only, us-east-1 figure used for every region: gist.github.com/'
                    'chicagobuss/87bdbe2b4323efc18fff3591a68ee425 (2019-08-02, us-east-1 io1 0.125 per GB-month) [S]; '
                    'the separate per-provisioned-IOPS charge is not expressible in the format and is not included [U]'),
         'as_of': '2019-08-02'},
    ]
    bw = [
        {'provider': 'aws', 'kind': 'traffic_gb', 'mode': 'payg', 'unit': 'gb', 'amount': '0.09', 'currency': 'USD',
         'effective_from': '2022-06-09',
         'source': ('EC2 data transfer out to the internet, first paid tier (up to 10 TB/month) in us-east-1, used for '
                    'every region: www.egresscost.com/aws ("$0.09/GB first 10 TB, after the 100 GB free tier") [S]; '
                    'the monthly free allowance (100 GB aggregated across services) and the lower tiers above 10 TB '
                    'are not expressible and not modelled [U] [as-of approximate: page undated; dated with '
                    'cloudthread.io/blog/demystifying-how-aws-data-transfer-pricing-works (2022-06-09), which '
                    'describes the same tiered internet egress [S]]'),
         'as_of': '2022-06-09'},
    ]
    return disks, bw


POLICIES = [
    {'provider': 'aws', 'effective_from': '2016-01-01', 'effective_to': '2017-10-02',
     'metering_granularity_seconds': 3600, 'settlement_period': 'hour', 'settlement_rounding': 'half_up',
     'settlement_decimals': 2, 'min_charge_seconds_per_run': 0, 'recycle_bin_days': 0,
     'stopped_payg_compute_charged': False,
     'source': ('before per-second billing each partial instance-hour was billed as a full hour: AWS EC2 '
                'documentation text "Each partial instance-hour is billed as a full hour" as quoted by '
                'yoospot.blogg.se/2023/july/on-demand-ec2-pricing.html [S]; the change date is from '
                'aws.amazon.com/about-aws/whats-new/2017/10/announcing-amazon-ec2-per-second-billing/ [P]; period '
                'start 2016-01-01 is the catalog\'s start for AWS, not a documented date [U]; rounding: AWS rounds the '
                'bill line, modelled as half_up to 2 decimals per settlement — an assumption [U]; no recycle bin / '
                'prepaid monthly mode (recycle_bin_days 0); arrears behaviour not documented — defaults kept, not '
                'AWS facts [U]; stopped instances: the EC2 StopInstances API reference ("We don\'t charge usage for a '
                'stopped instance, or data transfer fees; ... you are charged for Amazon EBS volume usage", '
                'docs.amazonaws.cn/sdkfornet/v3/apidocs/items/EC2/TStopInstancesRequest.html) [P]'),
     'as_of': '2017-10-02'},
    {'provider': 'aws', 'effective_from': '2017-10-02',
     'metering_granularity_seconds': 1, 'settlement_period': 'hour', 'settlement_rounding': 'half_up',
     'settlement_decimals': 2, 'min_charge_seconds_per_run': 60, 'recycle_bin_days': 0,
     'stopped_payg_compute_charged': False,
     'source': ('aws.amazon.com/about-aws/whats-new/2017/10/announcing-amazon-ec2-per-second-billing/ — per-second '
                'billing from 2017-10-02 for Linux On-Demand, Reserved and Spot, minimum 60 s [P]; Windows/SQL Server '
                'moved on 2021-06-11 (cloudsteak.com relaying AWS) [S] (not modelled, Linux only); rounding: AWS '
                'rounds the bill line, modelled as half_up to 2 decimals per settlement — an assumption [U]; no '
                'recycle bin / prepaid monthly mode (recycle_bin_days 0); arrears behaviour not documented — defaults '
                'kept, not AWS facts [U]; stopped instances: the EC2 StopInstances API reference ("We don\'t charge '
                'usage for a stopped instance, or data transfer fees; ... you are charged for Amazon EBS volume '
                'usage", docs.amazonaws.cn/sdkfornet/v3/apidocs/items/EC2/TStopInstancesRequest.html) [P]'),
     'as_of': '2017-10-02'},
]


# ---------------------------------------------------------------- assembly
def sky_src(name):
    s = SNAPSHOTS[name]
    return f"{SKY}@{s['commit']}:{s['path']}"


def spot_text(g):
    spots = sorted(g['spot'], key=lambda x: (x[1], x[0]))
    lo, hi = spots[0][1], max(v for _, v in spots)
    n = g['azs']
    if len(spots) == 1 and n == 1:
        return dec(str(lo)), f'spot: only zone listed ({spots[0][0]}) {dec(str(lo))}'
    extra = '' if len(spots) == n else f' ({n - len(spots)} of {n} zones without a spot price)'
    return dec(str(lo)), (f'spot: lowest of {len(spots)} zones ({spots[0][0]}), range '
                          f'{dec(str(lo))}-{dec(str(hi))}{extra}')


def build(args):
    snaps = {}
    specs = {}
    files = dict(i.split('=', 1) for i in args.snapshot)
    for name in ('v0', 'v8'):          # later snapshot specs win
        if name in files:
            g, s = read_snapshot(files[name])
            snaps[name] = g
            specs.update(s)
    khist = karpenter_history(args.karpenter_git) if args.karpenter_git else {}

    segs = {}   # (type, region, mode) -> list of dict(from, amount, source, as_of, to?)

    def add(key, frm, amount, source, as_of, to=None):
        segs.setdefault(key, []).append({'from': frm, 'amount': amount, 'source': source, 'as_of': as_of, 'to': to})

    # 1. us-east-1 on-demand: static early rows + karpenter change points
    static = {t: (a, d, s) for t, a, d, s in static_us_east_1_payg()}
    for t, (a, d, s) in static.items():
        add((t, 'us-east-1', 'payg'), d, a, s, d)
    for t, points in khist.items():
        for d, h, p, v in points:
            key = (t, 'us-east-1', 'payg')
            cur = segs.get(key)
            if cur and cur[-1]['amount'] == v:
                continue  # unchanged: confirmation already cited in the static source
            add(key, d, v, (f'{KARPENTER}@{h}:{p} — us-east-1 Linux on-demand {v} USD/h in the AWS price list '
                            f'table generated for Karpenter (AWS-maintained repository, AWS Price List API) [P]; '
                            f'first seen at this value in this commit ({d})'), d)

    # 2. other regions on-demand and all spot from the SkyPilot snapshots
    order = [n for n in ('v0', 'v8') if n in snaps]
    regional_static = {(t, r): (a, d, s) for t, r, a, d, s in static_regional_payg()}
    for name in order:
        meta = SNAPSHOTS[name]
        for (t, region), g in sorted(snaps[name].items()):
            # on-demand
            if region != 'us-east-1' and g['price'] is not None:
                key = (t, region, 'payg')
                cur = segs.get(key)
                frm = meta['date']
                src = (f"{sky_src(name)} — {region} Linux on-demand as collected by SkyPilot's AWS fetcher "
                       f"(EC2 price list) [S] {meta['approx']}")
                if cur and cur[-1]['amount'] == g['price'] and cur[-1]['to'] is None:
                    cur[-1]['source'] += f"; unchanged in {sky_src(name)} [S]"
                elif (t, region) in regional_static and not cur:
                    a, d, s = regional_static[(t, region)]
                    if a == g['price']:
                        add(key, d, a, s, d)
                    else:
                        add(key, d, a, s, d)
                        add(key, frm, g['price'], src, frm)
                else:
                    if cur and family(t) in CUT_FAMILIES and name == 'v8':
                        frm = CUT_DATE
                        src = (f"{sky_src(name)} — {region} Linux on-demand as collected by SkyPilot's AWS fetcher "
                               f"(EC2 price list) [S] [as-of approximate: value from the later snapshot, dated with "
                               f"the June 2025 P4d/P4de/P5/P5en on-demand price cut first seen in us-east-1 in "
                               f"{KARPENTER}@{CUT_COMMIT} on {CUT_DATE}; cut reported by usage.ai (\"In June 2025, "
                               f"AWS reduced pricing across several high-performance GPU instance families\") [S]]")
                    add(key, frm, g['price'], src, frm)
            # spot
            if g['spot']:
                key = (t, region, 'spot')
                amt, txt = spot_text(g)
                cur = segs.get(key)
                if cur and cur[-1]['amount'] == amt:
                    continue
                add(key, meta['date'], amt, f"{sky_src(name)} — {region} {txt} [S] {meta['approx']}", meta['date'])
        # close rows from earlier snapshots that the later snapshot no longer lists
        if name == 'v8' and 'v0' in snaps:
            for (t, region), g in snaps['v0'].items():
                g8 = snaps['v8'].get((t, region))
                for mode, present in (('payg', g8 is not None and g8['price'] is not None),
                                      ('spot', g8 is not None and bool(g8['spot']))):
                    if mode == 'payg' and region == 'us-east-1':
                        continue
                    key = (t, region, mode)
                    if key in segs and not present and segs[key][-1]['to'] is None:
                        segs[key][-1]['to'] = meta['date']
                        segs[key][-1]['source'] += (f"; no longer listed in {sky_src('v8')} (closed at that "
                                                    f"snapshot's approximate date {meta['date']}) [U]")

    # 3. rows
    prices = []
    for (t, region, mode), lst in sorted(segs.items()):
        lst.sort(key=lambda x: x['from'])
        for i, s in enumerate(lst):
            row = {'provider': 'aws', 'instance_type': t, 'region': region, 'mode': mode, 'unit': 'hour',
                   'amount': s['amount'], 'currency': 'USD', 'effective_from': s['from']}
            to = lst[i + 1]['from'] if i + 1 < len(lst) else s['to']
            if to:
                row['effective_to'] = to
            row['source'] = s['source']
            row['as_of'] = s['as_of']
            prices.append(row)
    prices.extend(static_reserved())

    # 4. instance types
    itypes = []
    seen_types = sorted({k[0] for k in segs} | set(specs))
    for t in seen_types:
        sp = specs.get(t)
        if not sp:
            continue
        gpu = GPU_MAP.get(sp['acc'])
        row = {'provider': 'aws', 'id': t, 'family': family(t)}
        if gpu:
            row['gpu'] = gpu
        row['gpu_count'] = sp['count']
        row['vcpu'] = sp['vcpu']
        row['ram_gb'] = sp['mem']
        notes = []
        if sp['gpumem_mib']:
            what = 'for the GPU partition' if family(t) in ('g6f', 'gr6f') else 'per GPU'
            notes.append(f"GPU memory {sp['gpumem_mib']} MiB {what} as reported by EC2 DescribeInstanceTypes")
        if sp['acc'] == 'K80':
            notes.append("each 'K80' is one GK210 die with 12 GiB (a Tesla K80 board has two)")
        if sp['acc'] == 'M60':
            notes.append("each 'M60' is one GM204 die with 8 GiB (a Tesla M60 board has two)")
        if sp['acc'] == 'T4g':
            notes.append('NVIDIA T4G (T4 for Arm/Graviton hosts), mapped to T4')
        if family(t) in ('g6f', 'gr6f'):
            notes.append('fractional L4 (GPU partition)')
        if family(t) == 'p5e':
            notes.append('no on-demand price in the source (sold mainly through Capacity Blocks / reservations)')
        if notes:
            row['notes'] = '; '.join(notes) + '.'
        src_snap = 'v8' if any(k[0] == t for k in snaps.get('v8', {})) else 'v0'
        row['source'] = f"{sky_src(src_snap)} (EC2 DescribeInstanceTypes data relayed by SkyPilot) [S]"
        itypes.append(row)

    regions = sorted({k[1] for k in segs} - REGIONS_IN_PROVIDERS_FILE)
    disks, bw = disk_and_bandwidth()
    out = {
        'format': 'gpubill-catalog/1',
        'regions': [{'provider': 'aws', 'id': r, 'name': REGION_NAMES.get(r, r)} for r in regions],
        'gpus': GPUS_EXTRA,
        'instance_types': itypes,
        'prices': prices,
        'disk_prices': disks,
        'bandwidth_prices': bw,
        'policies': POLICIES,
    }
    return out


def write(out, path):
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write('{\n')
        keys = list(out)
        for i, k in enumerate(keys):
            v = out[k]
            f.write(json.dumps(k) + ': ')
            if isinstance(v, list):
                f.write('[\n')
                f.write(',\n'.join(json.dumps(x, ensure_ascii=False) for x in v))
                f.write('\n]')
            else:
                f.write(json.dumps(v, ensure_ascii=False))
            f.write(',\n' if i + 1 < len(keys) else '\n')
        f.write('}\n')
    json.load(open(tmp, encoding='utf-8'))
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--snapshot', action='append', default=[], help='NAME=CSV (NAME: v0 or v8)')
    ap.add_argument('--karpenter-git', help='git dir of aws/karpenter-provider-aws')
    ap.add_argument('--out', required=True)
    args = ap.parse_args()
    write(build(args), args.out)


if __name__ == '__main__':
    main()
