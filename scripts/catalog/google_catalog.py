#!/usr/bin/env python3
"""Generate fixtures/catalog/50-google.json (Google Compute Engine GPU offers).

Inputs (all passed as arguments; nothing is read from fixed paths):

  --cyclenerd GITDIR   a git directory of Cyclenerd/google-cloud-pricing-cost-calculator
                       (https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator).
                       Every commit that changed `pricing.yml` and whose blob is present is read
                       with `git show <commit>:pricing.yml` (the snapshot used for the bundled file
                       held 290 readable versions, 2022-02-09 .. 2026-07-30; versions of 4 MiB and
                       more were missing from the snapshot and are skipped).
  --pricelist FILE     Google's Cloud Pricing Calculator price list v1.75 ("updated 14-March-2022"),
                       as copied in deepgenomics/cromwell-monitor@95a717c35e96e0a328a82e86c1b0f4067998a16f
                       :tests/data/pricelist.json (extract it with `git show`).
  --pricelist-2016 FILE  the same price list v1.10 ("updated 30-November-2016"), as copied in
                       jeffgodwyll/nanobox-googlecloud-adapter@daed04b528e5f5526a4bda2df0329179613451aa
                       :pricelist.json (used for persistent disk and egress only).
  --base FILE          the previous 50-google.json (its `policies` rows are carried over, their
                       `source` replaced by POLICY_SOURCE below).
  --out FILE           output path (written to FILE.tmp, then renamed).

Small hand-transcribed tables below (TERRA_N1, early_rows, SKYPILOT_GPU) hold dated prices from other
public sources (terra-ui, binga/cloud-gpus, fastai/course-v3, the SkyPilot catalog); each row names
its source.  To rerun (about 3 minutes on 2 cores; --cache makes later runs take seconds):

  git --git-dir=<deepgenomics/cromwell-monitor git dir> show \
      95a717c35e96e0a328a82e86c1b0f4067998a16f:tests/data/pricelist.json > pl175.json
  git --git-dir=<jeffgodwyll/nanobox-googlecloud-adapter git dir> show \
      daed04b528e5f5526a4bda2df0329179613451aa:pricelist.json > pl110.json
  python3 scripts/catalog/google_catalog.py --cyclenerd <calculator git dir> --pricelist pl175.json \
      --pricelist-2016 pl110.json --base fixtures/catalog/50-google.json \
      --out fixtures/catalog/50-google.json [--cache parsed.json] [--spot-months 1]

--spot-months picks the months whose first snapshot is sampled for Spot rows (default January:
one Spot row per key and year; "1,7" adds July and makes 11,223 rows instead of 7,089, which the
bundled catalog's load-time budget did not afford).

Python 3 standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from decimal import Decimal

CYC = 'Cyclenerd/google-cloud-pricing-cost-calculator'

# ---------------------------------------------------------------------------------------------
# machine types
N1 = {}
for n in (1, 2, 4, 8, 16, 32, 64, 96):
    N1['n1-standard-%d' % n] = (n, Decimal('3.75') * n)
for n in (2, 4, 8, 16, 32, 64, 96):
    N1['n1-highmem-%d' % n] = (n, Decimal('6.5') * n)
    N1['n1-highcpu-%d' % n] = (n, Decimal('0.9') * n)

# machine types with built-in GPUs: prefix -> (gpu id, yaml key giving the GPU count)
BUILTIN = [
    ('a2-highgpu-', 'A100-40GB', 'a100'),
    ('a2-megagpu-', 'A100-40GB', 'a100'),
    ('a2-ultragpu-', 'A100-80GB', 'a100-80gb'),
    ('a3-highgpu-', 'H100', 'h100-80gb'),
    ('a3-megagpu-', 'H100', 'h100-80gb-mega'),
    ('a3-ultragpu-', 'H200', 'h200-141gb'),
    ('g2-standard-', 'L4', 'l4'),
]

def builtin_of(t):
    for p, g, k in BUILTIN:
        if t.startswith(p):
            return g, k
    return None

# Google's documented limits for GPUs attached to N1 VMs: GPU count -> (max vCPUs, max GB memory).
# Transcribed in DataBiosphere/terra-ui@04857028d8e5690249c06f5eefa0e26d9ffa81de:src/data/machines.js
# ("As of June 21, 2021", citing https://cloud.google.com/compute/docs/gpus#other_available_nvidia_gpu_models).
GPU_LIMITS = {
    'T4': {1: (24, 156), 2: (48, 312), 4: (96, 624)},
    'K80': {1: (8, 52), 2: (16, 104), 4: (32, 208), 8: (64, 208)},
    'P4': {1: (24, 156), 2: (48, 312), 4: (96, 624)},
    'V100-SXM2-16GB': {1: (12, 78), 2: (24, 156), 4: (48, 312), 8: (96, 624)},
    'P100-PCIE-16GB': {1: (16, 104), 2: (32, 208), 4: (96, 624)},
}
GPU_LIMITS_SRC = ('counts from the per-count vCPU/memory limits of GPUs on N1 VMs as transcribed in '
                  'DataBiosphere/terra-ui@04857028d8e5690249c06f5eefa0e26d9ffa81de:src/data/machines.js '
                  '("As of June 21, 2021", citing https://cloud.google.com/compute/docs/gpus#other_available_nvidia_gpu_models) [S]; '
                  'a count is listed when the machine type fits its limit')

REGION_NAMES = {
    'africa-south1': 'Johannesburg', 'asia-east1': 'Taiwan', 'asia-east2': 'Hong Kong',
    'asia-northeast1': 'Tokyo', 'asia-northeast2': 'Osaka', 'asia-northeast3': 'Seoul',
    'asia-south1': 'Mumbai', 'asia-south2': 'Delhi', 'asia-southeast1': 'Singapore',
    'asia-southeast2': 'Jakarta', 'asia-southeast3': 'Bangkok', 'australia-southeast1': 'Sydney',
    'australia-southeast2': 'Melbourne', 'europe-central2': 'Warsaw', 'europe-north1': 'Finland',
    'europe-north2': 'Stockholm', 'europe-southwest1': 'Madrid', 'europe-west1': 'Belgium',
    'europe-west10': 'Berlin', 'europe-west12': 'Turin', 'europe-west2': 'London',
    'europe-west3': 'Frankfurt', 'europe-west4': 'Netherlands', 'europe-west6': 'Zurich',
    'europe-west8': 'Milan', 'europe-west9': 'Paris', 'me-central1': 'Doha', 'me-central2': 'Dammam',
    'me-west1': 'Tel Aviv', 'northamerica-northeast1': 'Montreal', 'northamerica-northeast2': 'Toronto',
    'northamerica-south1': 'Queretaro', 'southamerica-east1': 'Sao Paulo', 'southamerica-west1': 'Santiago',
    'us-central1': 'Iowa', 'us-central2': 'Oklahoma', 'us-east1': 'South Carolina',
    'us-east4': 'Northern Virginia', 'us-east5': 'Columbus', 'us-south1': 'Dallas',
    'us-west1': 'Oregon', 'us-west2': 'Los Angeles', 'us-west3': 'Salt Lake City', 'us-west4': 'Las Vegas',
}
REGION_RE = re.compile(r'^[a-z]+-[a-z]+\d+$')

# ---------------------------------------------------------------------------------------------
# hand-transcribed dated rows (us-central1 unless a region is given)
TERRA_2018 = 'DataBiosphere/terra-ui@6ef3f72a4c4c32daaccad12c7cf967e065296e26:src/data/clusters.js'
TERRA_N1 = {  # type: (price, preemptiblePrice)
    'n1-standard-1': ('0.0475', '0.0100'), 'n1-standard-2': ('0.0950', '0.0200'),
    'n1-standard-4': ('0.1900', '0.0400'), 'n1-standard-8': ('0.3800', '0.0800'),
    'n1-standard-16': ('0.7600', '0.1600'), 'n1-standard-32': ('1.5200', '0.3200'),
    'n1-standard-64': ('3.0400', '0.6400'), 'n1-standard-96': ('4.5600', '0.9600'),
    'n1-highmem-2': ('0.1184', '0.0250'), 'n1-highmem-4': ('0.2368', '0.0500'),
    'n1-highmem-8': ('0.4736', '0.1000'), 'n1-highmem-16': ('0.9472', '0.2000'),
    'n1-highmem-32': ('1.8944', '0.4000'), 'n1-highmem-64': ('3.7888', '0.8000'),
    'n1-highmem-96': ('5.6832', '1.2000'), 'n1-highcpu-2': ('0.0709', '0.0150'),
    'n1-highcpu-4': ('0.1418', '0.0300'), 'n1-highcpu-8': ('0.2836', '0.0600'),
    'n1-highcpu-16': ('0.5672', '0.1200'), 'n1-highcpu-32': ('1.1344', '0.2400'),
    'n1-highcpu-64': ('2.2688', '0.4800'), 'n1-highcpu-96': ('3.402', '0.7200'),
}
BINGA = 'binga/cloud-gpus@7e2a4ed28ee8610538ac8cb3178491e0935343c0:README.md'
FASTAI_1022 = 'fastai/course-v3@47eec4722813e92010ba45f8540739dd4b742905:docs/start_gcp.md'
FASTAI_1024 = 'fastai/course-v3@591a75f649b4492bc4c7a48f85b2c566d8763347:docs/start_gcp.md'
FASTAI_2003 = 'fastai/course-v3@8c60594c0a570504bde95f2c2f0e309fbc65edd7:docs/start_gcp.md'
TERRA_2021 = 'DataBiosphere/terra-ui@627998c8eb62924f8901c6305865aa74b46f83bb:src/data/machines.js'
TERRA_2021B = 'DataBiosphere/terra-ui@5deab564542783948a2f12b0ddd7cc3547c00d07:src/data/machines.js'

def early_rows():
    rows = []
    for t, (p, s) in TERRA_N1.items():
        rows.append(dict(instance_type=t, region='us-central1', mode='payg', amount=p, effective_from='2018-07-19',
                         as_of='2018-07-19',
                         source='%s machineTypes[%s].price [S] (list price per hour of the US regions; region not named in '
                                'the file, the values equal the us-central1 list prices of the later Google price lists); '
                                'commit date used [as-of approximate: the file carries no date]' % (TERRA_2018, t)))
        rows.append(dict(instance_type=t, region='us-central1', mode='spot', amount=s, effective_from='2018-07-19',
                         as_of='2018-07-19',
                         source='%s machineTypes[%s].preemptiblePrice [S] (fixed preemptible price, US regions); '
                                'commit date used [as-of approximate: the file carries no date]' % (TERRA_2018, t)))
    g = lambda gpu, mode, amount, eff, src: rows.append(dict(gpu=gpu, region='us-central1', mode=mode, amount=amount,
                                                            effective_from=eff, as_of=eff, source=src))
    # GPUs launched at list prices; 2018-09-08 table: totals with an n1-standard-16 host ($0.76)
    g('K80', 'payg', '0.45', '2018-09-08', '%s GCP row dated 8-Sep-18: K80 total $1.21 with an n1-standard-16 host ($0.76) => $0.45 per GPU-hour [S]' % BINGA)
    g('V100-SXM2-16GB', 'payg', '2.48', '2018-09-08', '%s GCP row dated 8-Sep-18: V100 total $3.24 with an n1-standard-16 host ($0.76) => $2.48 per GPU-hour [S]' % BINGA)
    g('P100-PCIE-16GB', 'payg', '1.46', '2018-09-08', '%s GCP row dated 8-Sep-18: P100 total $2.22 with an n1-standard-16 host ($0.76) => $1.46 per GPU-hour [S]' % BINGA)
    # preemptible GPUs (beta, January 2018)
    g('K80', 'spot', '0.22', '2018-01-01', 'http://y.tt/183118500070ja.html (news item on the beta of preemptible GPUs on GCP: K80 $0.22/h, P100 $0.73/h) [S] [as-of approximate: the item is undated; preemptible GPUs went to beta in January 2018; 2018-01-01 chosen]')
    g('P100-PCIE-16GB', 'spot', '0.73', '2018-01-01', 'http://y.tt/183118500070ja.html (news item on the beta of preemptible GPUs on GCP: K80 $0.22/h, P100 $0.73/h) [S] [as-of approximate: the item is undated; preemptible GPUs went to beta in January 2018; 2018-01-01 chosen]')
    g('P100-PCIE-16GB', 'spot', '0.43', '2018-10-22', '%s ("Attaching a P100 GPU costs $0.43 per hour", preemptible setup) [S]' % FASTAI_1022)
    g('K80', 'spot', '0.135', '2018-10-24', '%s (preemptible "K80 GPU ($0.14 per hour)", rounded) [S]; exact $0.135 from %s preemptiblePrice [as-of approximate: the 2018 guide gives the rounded price]' % (FASTAI_1024, TERRA_2021))
    # T4: no stored dated copy of the 2019 price found
    g('T4', 'payg', '0.95', '2019-01-16', 'Google Cloud blog announcement of NVIDIA T4 GPUs on Compute Engine (beta, January 2019): "$0.95 per GPU-hour" on demand [U]: recalled, no stored copy of the announcement or of the 2019 GPU pricing page was found; kept so that 2019 quotes price a T4 (see notes/google.md) [as-of approximate: 2019-01-16 chosen]')
    g('T4', 'spot', '0.29', '2019-01-16', 'Google Cloud blog announcement of NVIDIA T4 GPUs on Compute Engine (beta, January 2019): "$0.29 per GPU-hour" preemptible [U]: recalled, not verified (see notes/google.md) [as-of approximate: 2019-01-16 chosen]')
    g('T4', 'spot', '0.11', '2020-03-28', '%s ("Attaching a T4 GPU costs $0.11 per hour", preemptible setup) [S]' % FASTAI_2003)
    g('T4', 'payg', '0.35', '2020-03-28', '%s price 0.35 for nvidia-tesla-t4, per GPU [S] (the preemptible $0.11 of %s belongs to this on-demand price in that file) [as-of approximate: first dated on-demand source is 2021-06-21; started at the first dated source of the matching preemptible price]' % (TERRA_2021, FASTAI_2003))
    g('P4', 'payg', '0.60', '2021-06-21', '%s gpuTypes nvidia-tesla-p4 price ("As of June 21, 2021"; https://cloud.google.com/compute/gpus-pricing) [S]' % TERRA_2021)
    g('P4', 'spot', '0.216', '2021-06-21', '%s gpuTypes nvidia-tesla-p4 preemptiblePrice ("As of June 21, 2021") [S]' % TERRA_2021)
    g('V100-SXM2-16GB', 'spot', '0.74', '2021-06-21', '%s gpuTypes nvidia-tesla-v100 preemptiblePrice ("As of June 21, 2021") [S]' % TERRA_2021)
    g('T4', 'payg', '0.35', '2021-06-21', '%s gpuTypes nvidia-tesla-t4 price ("As of June 21, 2021") [S]' % TERRA_2021)
    g('K80', 'payg', '0.45', '2021-06-21', '%s gpuTypes nvidia-tesla-k80 price ("As of June 21, 2021") [S]' % TERRA_2021)
    g('P100-PCIE-16GB', 'spot', '0.43', '2021-10-25', '%s gpuTypes nvidia-tesla-p100 preemptiblePrice [S]' % TERRA_2021B)
    return rows

# Per-GPU rows of the SkyPilot catalog (one row per zone; Price/SpotPrice are for AcceleratorCount GPUs).
# gpu: region -> (on-demand per GPU, spot per GPU, zones, note)
SKY = 'skypilot-org/skypilot-catalog@017e2502fb63c7a28757acd94002b2d6099d3e3d:catalogs/v7/gcp/vms.csv'
SKY_DATE = '2025-08-30'
SKY_DATE_NOTE = ('[as-of approximate: the commit date is not recorded here; the Spot prices of its n2d-highcpu-48 rows '
                 '(us-central1 0.31075, europe-west8 0.216, me-central2 0.2711, europe-west12 0.17971) match the '
                 'Cyclenerd pricing.yml snapshots of 2025-08-30..2025-09-18 only; 2025-08-30 chosen]')
SKYPILOT_GPU = {
    'P100-PCIE-16GB': ('P100', 1, {
        'asia-east1': ('1.6', '0.1852', 'a,c'), 'australia-southeast1': ('1.6', '0.334', 'b'),
        'europe-west1': ('1.6', '0.371', 'b,d'), 'europe-west4': ('1.533', '0.3265', 'a'),
        'us-central1': ('1.46', '0.584', 'c,f'), 'us-east1': ('1.46', '0.584', 'b,c'),
        'us-west1': ('1.46', '0.584', 'a,b')}),
    'P4': ('P4', 1, {
        'asia-southeast1': ('0.65', '0.0662', 'b,c'), 'australia-southeast1': ('0.65', '0.1507', 'a,b'),
        'europe-west4': ('0.63', '0.0822', 'b,c'), 'northamerica-northeast1': ('0.65', '0.1261', 'a,b,c'),
        'us-central1': ('0.6', '0.24', 'a,c'), 'us-east4': ('0.6', '0.1734', 'a,b,c'),
        'us-west2': ('0.72', '0.118', 'b,c')}),
    'T4': ('T4', 1, {
        'asia-east1': ('0.35', '0.14', 'a,c'), 'asia-east2': ('0.44', '0.176', 'a,c'),
        'asia-northeast1': ('0.37', '0.1342', 'a,c'), 'asia-northeast3': ('0.37', '0.148', 'b,c'),
        'asia-south1': ('0.41', '0.1636', 'a,b'), 'asia-southeast1': ('0.37', '0.1195', 'a,b,c'),
        'asia-southeast2': ('0.4033', '0.1266', 'a,b'), 'australia-southeast1': ('0.44', '0.176', 'a,c'),
        'europe-central2': ('0.41', '0.164', 'b,c'), 'europe-west1': ('0.35', '0.14', 'b,c,d'),
        'europe-west2': ('0.399', '0.0952', 'a,b'), 'europe-west3': ('0.41', '0.164', 'b'),
        'europe-west4': ('0.3675', '0.14', 'a,b,c'), 'me-west1': ('0.385', '0.0804', 'b,c'),
        'northamerica-northeast1': ('0.38538', '0.154', 'c'), 'southamerica-east1': ('0.48', '0.192', 'a,c'),
        'us-central1': ('0.35', '0.14', 'a,b,c,f'), 'us-east1': ('0.35', '0.14', 'c,d'),
        'us-east4': ('0.37', '0.1123', 'a,b,c'), 'us-west1': ('0.35', '0.14', 'a,b'),
        'us-west2': ('0.42074', '0.164', 'b,c'), 'us-west3': ('0.42074', '0.164', 'b'),
        'us-west4': ('0.37', '0.1258', 'a,b')}),
    # V100: the stored pages read held the 2-, 4- and 8-GPU rows; per-GPU = row price / count
    'V100-SXM2-16GB': ('V100', 2, {
        'us-central1': ('2.48', '0.992', 'a,b,c,f'), 'us-east1': ('2.48', '0.992', 'c'),
        'us-west1': ('2.48', '0.992', 'a,b'), 'europe-west4': ('2.604', '0.7148', 'a,b,c'),
        'asia-east1': ('2.48', '0.8792', 'c')}),
}

POLICY_SOURCE = (
    'https://campus.datacamp.com/courses/essential-google-cloud-infrastructure-foundation/virtual-machines?ex=9 '
    '(Google Cloud course "Essential Google Cloud Infrastructure: Foundation", Compute pricing: all vCPUs, GPUs and GB of '
    'memory are charged a minimum of 1 minute, then in 1-second increments) and '
    'https://packtpub.com/en-se/product/professional-cloud-architect-google-cloud-certification-guide-9781838555276/chapter/working-with-google-compute-engine-6/section/pricing?chapterId=6 '
    '[S]; per-second billing was announced by Google in September 2017 (announcement not found in the stored copies) '
    '[as-of approximate: Sept 2017; 2017-09-01 chosen]; stopped instances: Google API reference '
    'https://cloud.google.com/compute/docs/reference/rest/v1/instances/stop ("Stopped instances do not incur VM usage charges '
    'while they are stopped"; persistent disks and static IPs keep charging); rounding half_up to 2 decimals is an '
    'assumption; sustained-use discounts (up to 30% off: tiers 100/80/60/40% of the base rate per quarter of the month, '
    'Google Cloud Pricing Calculator price list v1.10 as copied in '
    'jeffgodwyll/nanobox-googlecloud-adapter@daed04b528e5f5526a4bda2df0329179613451aa:pricelist.json) and committed-use '
    'discounts are not modelled; no prepaid mode or recycle bin; arrears not documented, defaults kept')

# ---------------------------------------------------------------------------------------------
LINE = re.compile(r'^( *)([^:#][^:]*?):(?: (.*))?$')

def yparse(text, keep):
    """Minimal indentation parser for pricing.yml -> {path tuple: scalar string} for kept paths."""
    out, stack, skip = {}, [], None
    for line in text.split('\n'):
        s = line.strip()
        if not s or s.startswith('#'):
            continue
        ind = len(line) - len(line.lstrip(' '))
        if skip is not None:
            if ind > skip:
                continue
            skip = None
        m = LINE.match(line)
        if not m:
            continue
        key, val = m.group(2).strip().strip('"\''), m.group(3)
        while stack and stack[-1][0] >= ind:
            stack.pop()
        if val is not None and val.strip().startswith('|'):
            skip = ind
            continue
        if val is None or not val.strip():
            stack.append((ind, key))
        else:
            path = tuple(k for _, k in stack) + (key,)
            if keep(path):
                out[path] = val.strip().strip('"\'')
    return out

def keep_path(p):
    if len(p) < 3 or p[0] != 'compute':
        return False
    if p[1] == 'instance':
        return p[2] in N1 or builtin_of(p[2]) is not None
    if p[1] == 'storage':
        return p[2] in ('hdd', 'balanced', 'ssd') and 'us-central1' in p
    if p[1] == 'network':
        return p[2:6] == ('traffic', 'egress', 'internet', 'cost') and 'us-central1' in p
    return False

def load_version(args):
    gitdir, commit = args
    txt = subprocess.run(['git', '--git-dir', gitdir, 'show', commit + ':pricing.yml'],
                         capture_output=True, text=True, check=True).stdout
    d = yparse(txt, keep_path)
    inst, meta = {}, {}
    for p, v in d.items():
        if p[1] == 'instance':
            t = p[2]
            if len(p) == 6 and p[3] == 'cost' and p[5] in ('hour', 'hour_spot'):
                inst[(t, p[4], p[5])] = v
            elif len(p) == 4:
                meta[(t, p[3])] = v
    disk = {p[2]: v for p, v in d.items() if p[1] == 'storage' and len(p) == 6 and p[3] == 'cost' and p[5] == 'month'}
    egress = {p[6]: v for p, v in d.items() if p[1] == 'network' and len(p) == 9 and p[8] == 'month'}
    return commit, inst, meta, disk, egress

def dec(s):
    d = Decimal(s)
    if d.as_tuple().exponent < -12:
        d = d.quantize(Decimal('1e-12'))
    return format(d.normalize(), 'f')

def versions(gitdir):
    out = subprocess.run(['git', '--git-dir', gitdir, 'log', '--format=%H %ad', '--date=short', '--', 'pricing.yml'],
                         capture_output=True, text=True, check=True).stdout.split('\n')
    res = []
    for line in out:
        if not line.strip():
            continue
        c, d = line.split()
        ok = subprocess.run(['git', '--git-dir', gitdir, 'cat-file', '-e', c + ':pricing.yml'],
                            capture_output=True).returncode == 0
        if ok:
            res.append((d, c))
    res.sort()
    return res

# ---------------------------------------------------------------------------------------------
def same_amount(a, b):
    # the calculator recomputes some machine prices with float noise (52.209100701479 vs 52.20910070148)
    q = Decimal('1e-9')
    return Decimal(a).quantize(q) == Decimal(b).quantize(q)

def timeline(cands, keyf, tail_fields=('effective_from',)):
    """cands: row dicts with effective_from.  Per key: sort, drop a row whose amount equals the row in force
    before it, then chain effective_to."""
    by = {}
    for r in cands:
        by.setdefault(keyf(r), []).append(r)
    out = []
    for k in sorted(by, key=lambda x: tuple(str(i) for i in x)):
        rs = sorted(by[k], key=lambda r: r['effective_from'])
        kept = []
        for r in rs:
            if kept and kept[-1]['effective_from'] == r['effective_from']:
                kept[-1] = r  # later source for the same day wins
                continue
            if kept and same_amount(kept[-1]['amount'], r['amount']):
                continue
            kept.append(r)
        for a, b in zip(kept, kept[1:]):
            a['effective_to'] = b['effective_from']
        out.extend(kept)
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cyclenerd', required=True)
    ap.add_argument('--pricelist', required=True)
    ap.add_argument('--pricelist-2016', required=True)
    ap.add_argument('--base', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--spot-months', default='1', help='months whose first snapshot is sampled for spot rows')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--cache', help='optional JSON file caching the parsed pricing.yml versions (written if missing)')
    a = ap.parse_args()

    vers = versions(a.cyclenerd)
    print('pricing.yml versions:', len(vers), vers[0], vers[-1], file=sys.stderr)
    if a.cache and os.path.exists(a.cache):
        loaded = []
        for c, inst, meta, disk, eg in json.load(open(a.cache)):
            loaded.append((c, {tuple(k.split('|')): v for k, v in inst.items()},
                           {tuple(k.split('|')): v for k, v in meta.items()}, disk, eg))
    else:
        with ProcessPoolExecutor(a.jobs) as ex:
            loaded = list(ex.map(load_version, [(a.cyclenerd, c) for _, c in vers]))
        if a.cache:
            json.dump([(c, {'|'.join(k): v for k, v in inst.items()}, {'|'.join(k): v for k, v in meta.items()}, disk, eg)
                       for c, inst, meta, disk, eg in loaded], open(a.cache, 'w'))
    date_of = {c: d for d, c in vers}
    snaps = [(date_of[c], c, inst, meta, disk, eg) for c, inst, meta, disk, eg in loaded]
    snaps.sort(key=lambda s: s[0])

    spot_months = {int(m) for m in a.spot_months.split(',')}
    spot_idx, seen = set(), set()
    for i, s in enumerate(snaps):
        y, m = int(s[0][:4]), int(s[0][5:7])
        if m in spot_months and (y, m) not in seen:
            seen.add((y, m)); spot_idx.add(i)

    prices, meta_all = [], {}
    first_date = snaps[0][0]
    for i, (d, c, inst, meta, disk, eg) in enumerate(snaps):
        meta_all.update(meta)
        for (t, region, f), v in inst.items():
            if not REGION_RE.match(region):
                continue
            if i == 0 and t.startswith('a2-highgpu-'):
                # the first build of the calculator (2022-02-09) priced a2-highgpu lower than every later build
                # (e.g. a2-highgpu-1g us-central1 3.558986 vs 3.673385 a week later); treated as a build error
                continue
            try:
                amt = Decimal(v)
            except Exception:
                continue
            if amt <= 0:
                continue
            mode = 'payg' if f == 'hour' else 'spot'
            if mode == 'spot' and i not in spot_idx:
                continue
            if mode == 'spot':
                od = inst.get((t, region, 'hour'))
                if od is None or amt > Decimal(od):
                    continue
            if mode == 'payg':
                note = ('weekly snapshot [as-of approximate: first one showing this price]'
                        if d != first_date else 'first snapshot')
                src = '%s@%s:pricing.yml instance.%s.cost.%s.hour [S] (Cloud Billing Catalog data; %s)' % (CYC, c, t, region, note)
            else:
                src = ('%s@%s:pricing.yml instance.%s.cost.%s.hour_spot [S] (regional Spot price; sampled each January '
                       'and July [as-of approximate: held until the next sample])' % (CYC, c, t, region))
            prices.append(dict(provider='google', instance_type=t, region=region, mode=mode, unit='hour',
                               amount=dec(v), currency='USD', effective_from=d, source=src, as_of=d))

    # early dated rows and GPU rows
    for r in early_rows():
        r.update(provider='google', unit='hour', currency='USD')
        r['amount'] = dec(r['amount'])
        prices.append(r)

    pl = json.load(open(a.pricelist))
    plp = pl['gcp_price_list']
    PL_SRC = ('deepgenomics/cromwell-monitor@95a717c35e96e0a328a82e86c1b0f4067998a16f:tests/data/pricelist.json '
              '[P] (copy of Google\'s Cloud Pricing Calculator price list %s, "updated %s"; key %s.%s; 0 = not offered, omitted)')
    for key, gpu in (('K80', 'K80'), ('P100', 'P100-PCIE-16GB'), ('V100', 'V100-SXM2-16GB'), ('P4', 'P4'), ('T4', 'T4')):
        for suffix, mode in (('', 'payg'), ('-PREEMPTIBLE', 'spot')):
            k = 'GPU_NVIDIA_TESLA_' + key + suffix
            for region, v in plp.get(k, {}).items():
                if not REGION_RE.match(region) or not v:
                    continue
                prices.append(dict(provider='google', gpu=gpu, region=region, mode=mode, unit='hour', amount=dec(repr(v)),
                                   currency='USD', effective_from='2022-03-14', as_of='2022-03-14',
                                   source=PL_SRC % (pl['version'], pl['updated'], k, region)))
    for gpu, (name, cnt, regs) in SKYPILOT_GPU.items():
        for region, (od, sp, zones) in regs.items():
            nz = len(zones.split(','))
            what = 'AcceleratorName=%s, AcceleratorCount=%d rows' % (name, cnt) if cnt == 1 else \
                'AcceleratorName=%s rows with 2, 4 and 8 GPUs, price divided by the GPU count' % name
            prices.append(dict(provider='google', gpu=gpu, region=region, mode='payg', unit='hour', amount=dec(od),
                               currency='USD', effective_from=SKY_DATE, as_of=SKY_DATE,
                               source='%s %s, Price [S] %s' % (SKY, what, SKY_DATE_NOTE)))
            prices.append(dict(provider='google', gpu=gpu, region=region, mode='spot', unit='hour', amount=dec(sp),
                               currency='USD', effective_from=SKY_DATE, as_of=SKY_DATE,
                               source='%s %s, SpotPrice [S]: spot: lowest of %d zone%s (%s), all %s equal %s'
                                      % (SKY, what, nz, '' if nz == 1 else 's',
                                         ', '.join('%s-%s' % (region, z) for z in zones.split(',')),
                                         'zone prices' if nz > 1 else 'one zone,', SKY_DATE_NOTE)))

    prices = timeline(prices, lambda r: (r.get('instance_type') or '', r.get('gpu') or '', r['region'], r['mode']))
    order = ['provider', 'instance_type', 'gpu', 'region', 'mode', 'unit', 'amount', 'currency',
             'effective_from', 'effective_to', 'source', 'as_of']
    prices = [{k: r[k] for k in order if k in r} for r in prices]

    # instance types
    itypes = []
    for t, (vcpu, ram) in N1.items():
        att = []
        for gpu in ('K80', 'P100-PCIE-16GB', 'V100-SXM2-16GB', 'P4', 'T4'):
            counts = [n for n, (mc, mm) in sorted(GPU_LIMITS[gpu].items()) if vcpu <= mc and ram <= mm]
            if counts:
                att.append({'gpu': gpu, 'counts': counts})
        itypes.append(dict(provider='google', id=t, family='n1', vcpu=vcpu, ram_gb=dec(str(ram)), attachable_gpus=att,
                           notes='host only; attached GPUs are priced per GPU-hour by the gpu price rows (K80 = one GK210 '
                                 'chip, as Google counts it); GPU availability differs by zone',
                           source='vCPU/RAM: n1 machine-type sizes (%s; %s) [S]; %s' % (TERRA_2018, CYC, GPU_LIMITS_SRC)))
    builtin_types = sorted({t for (t, f) in meta_all if builtin_of(t)} |
                           {r['instance_type'] for r in prices if r.get('instance_type') and builtin_of(r['instance_type'])})
    priced = {r.get('instance_type') for r in prices}
    for t in builtin_types:
        if t not in priced:
            continue
        gpu, key = builtin_of(t)
        cnt = meta_all.get((t, key))
        if cnt is None:
            m = re.search(r'-(\d+)g$', t)
            cnt = m.group(1) if m else None
        row = dict(provider='google', id=t, family=t.split('-')[0], gpu=gpu)
        if cnt is not None:
            row['gpu_count'] = dec(cnt)
        if (t, 'cpu') in meta_all:
            row['vcpu'] = int(Decimal(meta_all[(t, 'cpu')]))
        if (t, 'ram') in meta_all:
            row['ram_gb'] = dec(meta_all[(t, 'ram')])
        if (t, 'local-ssd') in meta_all:
            row['local_disk_gb'] = int(Decimal(meta_all[(t, 'local-ssd')]))
            row['local_disk_kind'] = 'ssd'
        row['notes'] = 'GPUs built in; the machine price rows include them (whole-machine price)'
        row['source'] = '%s pricing.yml compute.instance.%s (cpu, ram, GPU count; history 2022-02..2026-07) [S]' % (CYC, t)
        itypes.append(row)

    # on sale but not priced by any source above
    itypes.append(dict(provider='google', id='a3-ultragpu-8g', family='a3', gpu='H200', gpu_count='8',
                       notes='GPUs built in; not in the calculator history used here, so no price row (unknown)',
                       source='https://docs.cloud.google.com/compute/docs/gpus/about-gpus (A3 Ultra machine types have '
                              'NVIDIA H200 141GB GPUs attached) [P]'))

    # disks and egress (us-central1 / first tier)
    disk_rows, bw_rows = [], []
    pl16 = json.load(open(a.pricelist_2016))
    p16 = pl16['gcp_price_list']
    P16 = ('jeffgodwyll/nanobox-googlecloud-adapter@daed04b528e5f5526a4bda2df0329179613451aa:pricelist.json [P] '
           '(copy of Google\'s Cloud Pricing Calculator price list %s, "updated %s"; key %s, region key "us" = US regions)')
    for kind, key in (('cloud_hdd', 'CP-COMPUTEENGINE-STORAGE-PD-CAPACITY'), ('cloud_ssd', 'CP-COMPUTEENGINE-STORAGE-PD-SSD')):
        disk_rows.append(dict(provider='google', kind=kind, mode='payg', unit='gb_month', amount=dec(repr(p16[key]['us'])),
                              currency='USD', effective_from='2016-11-30', as_of='2016-11-30',
                              source=P16 % (pl16['version'], pl16['updated'], key) + '; US figure used for every region'))
    eg16 = p16['CP-COMPUTEENGINE-INTERNET-EGRESS-NA-NA']['tiers']['1024']
    bw_rows.append(dict(provider='google', kind='traffic_gb', mode='payg', unit='gb', amount=dec(repr(eg16)), currency='USD',
                        effective_from='2016-11-30', as_of='2016-11-30',
                        source=P16 % (pl16['version'], pl16['updated'], 'CP-COMPUTEENGINE-INTERNET-EGRESS-NA-NA.tiers.1024') +
                        '; first tier (first 1 TB a month) of internet egress from North America, used for every region; '
                        'later tiers (0.11, 0.08) and China/Australia destinations are not modelled'))
    kinds = {'hdd': ('cloud_hdd', 'pd-standard'), 'balanced': ('cloud_balanced', 'pd-balanced'), 'ssd': ('cloud_ssd', 'pd-ssd')}
    for d, c, inst, meta, disk, eg in snaps:
        for k, v in disk.items():
            kind, name = kinds[k]
            disk_rows.append(dict(provider='google', kind=kind, mode='payg', unit='gb_month', amount=dec(v), currency='USD',
                                  effective_from=d, as_of=d,
                                  source='%s@%s:pricing.yml compute.storage.%s.cost.us-central1.month [S] (%s, us-central1 '
                                         'price used for every region)' % (CYC, c, k, name)))
        if '0-1' in eg:
            bw_rows.append(dict(provider='google', kind='traffic_gb', mode='payg', unit='gb', amount=dec(eg['0-1']),
                                currency='USD', effective_from=d, as_of=d,
                                source='%s@%s:pricing.yml compute.network.traffic.egress.internet.cost.0-1.us-central1.month '
                                       '[S] (premium-tier internet egress from us-central1 to worldwide destinations except '
                                       'China and Australia, first tier 0-1 TiB a month; used for every region; later tiers '
                                       'not modelled)' % (CYC, c)))
    disk_rows = timeline(disk_rows, lambda r: (r['kind'], r['mode']))
    bw_rows = timeline(bw_rows, lambda r: (r['kind'], r['mode']))

    base = json.load(open(a.base))
    policies = []
    for pol in base.get('policies', []):
        pol = dict(pol)
        pol['source'] = POLICY_SOURCE
        policies.append(pol)

    used_regions = sorted({r['region'] for r in prices if r.get('region')} - {'us-central1'})
    regions = [dict(provider='google', id=r, name='%s (%s)' % (REGION_NAMES.get(r, r), r)) for r in used_regions]

    doc = {'format': 'gpubill-catalog/1', 'regions': regions, 'instance_types': itypes, 'prices': prices,
           'disk_prices': disk_rows, 'bandwidth_prices': bw_rows, 'policies': policies}
    tmp = a.out + '.tmp'
    with open(tmp, 'w') as f:
        f.write('{\n"format": "gpubill-catalog/1",\n')
        for sec in ('regions', 'instance_types', 'prices', 'disk_prices', 'bandwidth_prices', 'policies'):
            f.write('"%s": [\n' % sec)
            rows = doc[sec]
            for i, r in enumerate(rows):
                f.write(json.dumps(r, ensure_ascii=False) + (',\n' if i + 1 < len(rows) else '\n'))
            f.write(']' + (',\n' if sec != 'policies' else '\n'))
        f.write('}\n')
    json.load(open(tmp))
    os.replace(tmp, a.out)
    from collections import Counter
    print('instance types', len(itypes), 'prices', len(prices), Counter(r['mode'] for r in prices),
          'regions', len(regions) + 1, 'disk', len(disk_rows), 'bw', len(bw_rows), file=sys.stderr)

if __name__ == '__main__':
    main()
