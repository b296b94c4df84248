#!/usr/bin/env python3
"""Generate the commitment offers of the bundled catalog (issue 29):
fixtures/catalog/41-aws-commitments.json and fixtures/catalog/51-google-commitments.json.

Inputs (all passed as arguments; nothing is read from fixed paths):

  --vantage FILE    tsaol/aws-gpu@2d0108c7bd261c8e40493fbd35135437bd6c9099:data/gpu_instances_raw.json
                    (extract it with `git show`): a copy, committed 2025-11-30, of the GPU rows of
                    instances.vantage.sh's instances.json, which ec2instances.info builds from the
                    AWS Price List API. Per region and OS it holds the Reserved Instance *effective
                    hourly* rates ("yrTerm1Standard.noUpfront" …), i.e. upfront / term hours +
                    recurring hourly fee, rounded to 6 decimals.
  --pricelist FILE  Google's Cloud Pricing Calculator price list v1.75 ("updated 14-March-2022"),
                    deepgenomics/cromwell-monitor@95a717c35e96e0a328a82e86c1b0f4067998a16f
                    :tests/data/pricelist.json (the same file 50-google.json reads).
  --aws-catalog FILE, --google-catalog FILE, --providers FILE
                    fixtures/catalog/40-aws.json, 50-google.json and 01-providers.json (the
                    instance types and regions the rows may name).
  --out-dir DIR     where the two files are written.

What is taken, and what stays unknown:
  AWS (us-east-1, Linux, shared tenancy; standard and convertible RIs, 1 and 3 years):
    * no_upfront: the recurring hourly fee is the effective rate as published.
    * all_upfront: the effective rate is upfront / 8760 h (26280 h for 3 years); the upfront is
      the whole-dollar amount u with round(u / term_hours, 6) == the published rate (at most one
      whole number fits: the interval is 0.0088 or 0.026 wide). A rate no whole number fits is
      left out (none did).
    * partial_upfront: left out: the effective rate does not say how it splits into upfront and
      hourly fee. Savings Plans: the file has no Savings Plans rates; unknown.
  Google (every region of the price list; committed use discounts have no upfront, billed
  monthly for every hour of the term):
    * per-GPU rows GPU_NVIDIA_TESLA_<X>-CUD-1-YEAR / -3-YEAR (0 = not offered, left out);
    * N1 hosts: vCPUs × CP-COMPUTEENGINE-N1-CUD-<n>-YEAR-CPU + GB × ...-RAM (resource-based CUDs
      bill each vCPU and GB: cloud.google.com/compute/docs/instances/signing-up-committed-use-discounts);
    * A2 machines: vCPUs × A2 CPU + GB × A2 RAM + GPUs × GPU_NVIDIA_TESLA_A100-CUD-<n>-YEAR
      (the a2 on-demand price is the same sum of its parts).

Python 3 standard library only. Rerun:

  git --git-dir=<tsaol/aws-gpu git dir> show \\
      2d0108c7bd261c8e40493fbd35135437bd6c9099:data/gpu_instances_raw.json > vantage.json
  git --git-dir=<deepgenomics/cromwell-monitor git dir> show \\
      95a717c35e96e0a328a82e86c1b0f4067998a16f:tests/data/pricelist.json > pl175.json
  python3 scripts/catalog/commitments_catalog.py --vantage vantage.json --pricelist pl175.json \\
      --aws-catalog fixtures/catalog/40-aws.json --google-catalog fixtures/catalog/50-google.json \\
      --providers fixtures/catalog/01-providers.json --out-dir fixtures/catalog
"""
import argparse
import json
import os
from decimal import Decimal, ROUND_HALF_UP

VANTAGE = 'tsaol/aws-gpu@2d0108c7bd261c8e40493fbd35135437bd6c9099:data/gpu_instances_raw.json'
VANTAGE_DATE = '2025-11-30'
PRICELIST = ('deepgenomics/cromwell-monitor@95a717c35e96e0a328a82e86c1b0f4067998a16f'
             ':tests/data/pricelist.json')
PRICELIST_DATE = '2022-03-14'
TERM_HOURS = {12: 8760, 36: 26280}
AWS_REGION = 'us-east-1'


def dec(x):
    d = Decimal(str(x)).normalize()
    return format(d, 'f')


def aws_rows(vantage, aws_types):
    rows = []
    for it in sorted(vantage, key=lambda i: i['instance_type']):
        t = it['instance_type']
        if t not in aws_types:
            continue
        reserved = it['pricing'].get(AWS_REGION, {}).get('linux', {}).get('reserved') or {}
        for key in sorted(reserved):
            term_key, payment_key = key.split('.')
            months = 12 if term_key.startswith('yrTerm1') else 36
            cls = 'standard' if term_key.endswith('Standard') else 'convertible'
            rate = Decimal(reserved[key])
            hours = TERM_HOURS[months]
            where = '%s pricing.%s.linux.reserved["%s"]' % (VANTAGE, AWS_REGION, key)
            if payment_key == 'noUpfront':
                upfront, hourly, payment = Decimal(0), rate, 'no_upfront'
                how = 'the effective hourly rate %s USD = the recurring hourly fee (no upfront)' % rate
            elif payment_key == 'allUpfront':
                u = (rate * hours).to_integral_value(rounding=ROUND_HALF_UP)
                if (u / hours).quantize(Decimal('0.000001'), rounding=ROUND_HALF_UP) != rate:
                    raise SystemExit('%s %s: no whole-dollar upfront gives %s' % (t, key, rate))
                upfront, hourly, payment = u, Decimal(0), 'all_upfront'
                how = ('the effective hourly rate %s USD = upfront / %d h; upfront %s USD is the one '
                       'whole-dollar amount that rounds to it (6 decimals)' % (rate, hours, u))
            else:
                continue  # partial upfront: the split is not in the source
            rows.append(dict(
                provider='aws', instance_type=t, region=AWS_REGION, program='reserved_instance',
                **{'class': cls}, term_months=months, payment=payment, upfront=dec(upfront),
                hourly=dec(hourly), currency='USD', effective_from=VANTAGE_DATE,
                source=('%s [S] (a copy of instances.vantage.sh instances.json, built from the AWS '
                        'Price List API; Linux, shared tenancy): %s [as-of approximate: the copy '
                        'was committed on %s]' % (where, how, VANTAGE_DATE)),
                as_of=VANTAGE_DATE))
    return rows


GPU_KEYS = (('K80', 'K80'), ('P100', 'P100-PCIE-16GB'), ('V100', 'V100-SXM2-16GB'), ('P4', 'P4'),
            ('T4', 'T4'), ('A100', 'A100-40GB'))


def cud_row(subject_field, subject, region, months, hourly, how):
    return dict(provider='google', **{subject_field: subject}, region=region,
                program='committed_use', term_months=months, payment='no_upfront', upfront='0',
                hourly=dec(hourly), currency='USD', effective_from=PRICELIST_DATE,
                source=('%s [P] (copy of Google\'s Cloud Pricing Calculator price list v1.75, '
                        '"updated 14-March-2022"): %s' % (PRICELIST, how)),
                as_of=PRICELIST_DATE)


def google_rows(pl, google_types, regions):
    p = pl['gcp_price_list']
    rows = []
    for key, gpu in GPU_KEYS:
        for months, n in ((12, 1), (36, 3)):
            k = 'GPU_NVIDIA_TESLA_%s-CUD-%d-YEAR' % (key, n)
            for region, v in sorted(p.get(k, {}).items()):
                if region in regions and v:
                    rows.append(cud_row('gpu', gpu, region, months, Decimal(repr(v)),
                                        'key %s.%s, per GPU-hour' % (k, region)))
    for t in sorted(google_types):
        it = google_types[t]
        family = t.split('-')[0].upper()
        if family not in ('N1', 'A2') or it.get('vcpu') is None:
            continue
        vcpu, ram = Decimal(it['vcpu']), Decimal(it['ram_gb'])
        gpus = Decimal(it.get('gpu_count', '0')) if family == 'A2' else Decimal(0)
        if family == 'A2' and it.get('gpu') != 'A100-40GB':
            continue  # a2-ultragpu (A100 80GB): no A100-80GB CUD key in this price list
        for months, n in ((12, 1), (36, 3)):
            kc = 'CP-COMPUTEENGINE-%s-CUD-%d-YEAR-CPU' % (family, n)
            kr = 'CP-COMPUTEENGINE-%s-CUD-%d-YEAR-RAM' % (family, n)
            kg = 'GPU_NVIDIA_TESLA_A100-CUD-%d-YEAR' % n
            for region in sorted(set(p.get(kc, {})) & set(p.get(kr, {}))):
                c, r = p[kc][region], p[kr][region]
                g = p.get(kg, {}).get(region, 0) if gpus else 0
                if region not in regions or not c or not r or (gpus and not g):
                    continue
                total = vcpu * Decimal(repr(c)) + ram * Decimal(repr(r)) + gpus * Decimal(repr(g))
                how = '%s vCPU × %s (%s) + %s GB × %s (%s)' % (vcpu, dec(repr(c)), kc, ram,
                                                              dec(repr(r)), kr)
                if gpus:
                    how += ' + %s × %s (%s)' % (gpus, dec(repr(g)), kg)
                rows.append(cud_row('instance_type', t, region, months, total,
                                    'region %s: %s = %s USD per hour' % (region, how, dec(total))))
    return rows


def write(path, rows, description):
    keys = ['provider', 'instance_type', 'gpu', 'region', 'program', 'class', 'term_months',
            'payment', 'upfront', 'hourly', 'currency', 'effective_from', 'source', 'as_of']
    lines = [json.dumps({k: r[k] for k in keys if k in r}, ensure_ascii=False) for r in rows]
    with open(path + '.tmp', 'w') as f:
        f.write('{\n  "format": "gpubill-catalog/1",\n')
        f.write('  "commitments": [\n' + ',\n'.join(lines) + '\n  ]\n}\n')
    os.replace(path + '.tmp', path)
    print('%s: %d rows (%s)' % (path, len(rows), description))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--vantage', required=True)
    ap.add_argument('--pricelist', required=True)
    ap.add_argument('--aws-catalog', required=True)
    ap.add_argument('--google-catalog', required=True)
    ap.add_argument('--providers', required=True, help='fixtures/catalog/01-providers.json (base regions)')
    ap.add_argument('--out-dir', required=True)
    a = ap.parse_args()
    aws = json.load(open(a.aws_catalog))
    google = json.load(open(a.google_catalog))
    aws_types = {t['id'] for t in aws['instance_types']}
    google_types = {t['id']: t for t in google['instance_types']}
    base = json.load(open(a.providers))
    google_regions = {r['id'] for r in google['regions'] + base['regions'] if r['provider'] == 'google'}
    write(os.path.join(a.out_dir, '41-aws-commitments.json'),
          aws_rows(json.load(open(a.vantage)), aws_types), 'AWS reserved instances')
    write(os.path.join(a.out_dir, '51-google-commitments.json'),
          google_rows(json.load(open(a.pricelist)), google_types, google_regions),
          'Google committed use discounts')


if __name__ == '__main__':
    main()
