#!/usr/bin/env python3
"""Generate Tencent Cloud GPU instance types and list-price rows for gpubill.

Inputs (read with `git`, nothing else):
  --qcloud GITDIR  a clone of tencentyun/qcloud-documents (or any fork carrying its
                   history up to at least 2021-10; the upstream repository is too big for
                   some mirrors, a fork such as FinaLone/qcloud-documents @ d008aca8 works).
                   Paths read, every commit that touched them:
                     product/计算与网络/GPU 云服务器/购买指导/GPU 型实例价格.md   (2016-12 .. 2017-09)
                     product/计算与网络/GPU 云服务器/购买指导/价格总览.md         (2017-09 .. 2021-10)
  --intl GITDIR    a clone of tencentyun/intlcloud-documents (USD list of the international
                   site).  Paths read, every commit that touched them:
                     product/计算/GPU 云服务器/购买指南/价格总览_intl.md
                     yehe_doc/{计算,计算与容器,计算和容器}/GPU 云服务器/购买指南/价格总览_intl_en.md
  --base FILE      the current fixtures/catalog/10-tencent.json: every section other than
                   instance_types/prices is kept as is; price rows whose source does not
                   start with a generated prefix (hand-written rows, e.g. spot) are kept;
                   hand-written instance types not generated here are kept.
  --out FILE       output catalog file (written to FILE.tmp, then renamed).

Rerun:  python3 scripts/catalog/tencent_gpu_prices.py --qcloud DIR --intl DIR \
            --base fixtures/catalog/10-tencent.json --out fixtures/catalog/10-tencent.json

Rules: one row per (instance type, mode) and price change; effective_from = as_of =
commit date (UTC+8 calendar date) of the first version showing the value; a row is closed
(effective_to) when a later version changes the value or no longer lists the type.
Several versions on one day: the last one of the day counts.  A range "a - b" in the doc
(2020-08 on) is recorded as the upper bound b (the unchanged standard list price) and the
range is named in the source.  Python 3 standard library only.
"""
import argparse, html, json, os, re, subprocess, sys
from collections import OrderedDict

Q_OLD = "product/计算与网络/GPU 云服务器/购买指导/GPU 型实例价格.md"
Q_NEW = "product/计算与网络/GPU 云服务器/购买指导/价格总览.md"
Q_SWITCH = "2017-09-08"          # the file was renamed (commit 7d8c5c8e "修改文件名称")
I_PATHS = ["product/计算/GPU 云服务器/购买指南/价格总览_intl.md",
           "yehe_doc/计算/GPU 云服务器/购买指南/价格总览_intl_en.md",
           "yehe_doc/计算与容器/GPU 云服务器/购买指南/价格总览_intl_en.md",
           "yehe_doc/计算和容器/GPU 云服务器/购买指南/价格总览_intl_en.md"]
INTL_REGION = "intl-ap-guangzhou"
GEN_PREFIXES = ("tencentyun/qcloud-documents@", "tencentyun/intlcloud-documents@")

FAMILY_GPU = {
    "GN2": "M40-24GB", "G2": "M40-24GB", "GN6": "P4", "GN6S": "P4", "GN8": "P40",
    "GN10": "V100-PCIE-16GB", "GN10S": "V100-SXM2-16GB", "GN10X": "V100-SXM2-32GB",
    "GN10Xp": "V100-SXM2-32GB", "GN7": "T4", "GI3X": "T4", "GN7vw": "T4",
    "GT4": "A100-40GB", "GA2": "S7150", "GNV4": "A10", "GNV4v": "A10", "PNV4": "A10",
}
RENAME = {"G2.large": "GN2.large", "G2.2xlarge": "GN2.2xlarge", "Ga2.2xlarge": "GA2.2xlarge"}


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir] + list(args), check=True,
                          capture_output=True).stdout.decode("utf-8", "replace")


def versions(gitdir, paths):
    """[(date, commit, path, text)] oldest first, one per calendar day (last wins).
    Each commit is read at the path it touched (the pages moved between folders)."""
    out, seen = [], set()
    for p in paths:
        log = git(gitdir, "log", "--all", "--format=%H %cd",
                  "--date=format:%Y-%m-%d %H:%M:%S", "--", p)
        for line in log.splitlines():
            h, d, t = line.split(" ")
            if h in seen:
                continue
            try:
                text = git(gitdir, "show", f"{h}:{p}")
            except subprocess.CalledProcessError:
                continue          # the commit deleted or moved the file away
            seen.add(h)
            out.append((d, t, h, p, text))
    out.sort(key=lambda v: (v[0], v[1]))
    byday = OrderedDict()
    for d, t, h, p, text in out:
        byday[d] = (d, h, p, text)
    return list(byday.values())


def table_rows(text):
    t = re.sub(r"(?is)<tr[^>]*>(.*?)</tr>", lambda m: "\n|" + "|".join(
        html.unescape(re.sub(r"<[^>]+>", " ", c)).strip()
        for c in re.findall(r"(?is)<t[dh][^>]*>(.*?)(?=<t[dh]|$)", m.group(1))) + "|\n", text)
    for line in t.splitlines():
        if "|" not in line:
            continue
        cells = [re.sub(r"\s+", " ", c).strip() for c in line.strip().strip("|").split("|")]
        iid = cells[0].replace("\\", "").replace("*", "").strip()
        if re.match(r"^[A-Z][A-Za-z0-9]*\.[0-9A-Za-z]+$", iid):
            yield RENAME.get(iid, iid), cells[1:]


NUM = r"(\d+(?:\.\d+)?)"


def parse_price(cell, unit_words):
    """-> (amount, note) or None.  unit_words: regex for the unit, '' if header-only."""
    c = cell.replace("*", "").replace("，", ",")
    m = re.search(NUM + r"\s*-\s*" + NUM, c)
    if m:
        return m.group(2), f"doc lists a range {m.group(1)}-{m.group(2)} (mainland regions/zones differ); upper bound recorded"
    m = re.search(NUM + r"\s*(?:" + unit_words + r")", c) if unit_words else None
    if not m:
        m = re.fullmatch(r"\s*" + NUM + r"\s*(元/(?:月|小时))?\s*(起)?\s*", c)
    if not m:
        return None
    note = "listed as 'from' (起)" if "起" in c else ""
    return m.group(1), note


def parse_cn(text):
    """{iid: {'prepaid': (amt,note), 'payg': (amt,note), 'cells': [...]}}"""
    res = {}
    for iid, cells in table_rows(text):
        r = {"cells": cells}
        mon = [parse_price(c, r"元\s*/\s*月") for c in cells if "元/月" in c.replace(" ", "")]
        hr = [parse_price(c, r"元\s*/\s*小时") for c in cells if "元/小时" in c.replace(" ", "")]
        if not mon and not hr and len(cells) >= 6:
            # HTML tables of 2021: units only in the header: last two cells = month, hour
            mon = [parse_price(cells[-2], "")]
            hr = [parse_price(cells[-1], "")]
        if mon and mon[0]:
            note = mon[0][1]
            if "含本地" in " ".join(cells) or any(re.fullmatch(r"(1650|1700|3300|3400) ?GB", x) for x in cells):
                note = (note + "; " if note else "") + "price of the instance with its bundled local SSD data disk (table lists the SSD; 含本地 SSD)"
            r["prepaid"] = (mon[0][0], note)
        if hr and hr[0]:
            r["payg"] = hr[0]
        res[iid] = r
    return res


def parse_intl(text):
    res = {}
    for iid, cells in table_rows(text):
        for c in cells:
            m = re.search(r"(From\s+)?" + NUM + r"\s*USD\s*/\s*(?:hr|hour)", c)
            if m:
                res[iid] = {"payg": (m.group(2), "listed as 'From'" if m.group(1) else ""), "cells": cells}
    return res


def cnum(s):
    s = s.replace("颗", "").replace("核", "").replace("GB", "").replace("cores", "").strip()
    m = re.search(r"(\d+)\s*/\s*(\d+)", s)
    if m:
        v = int(m.group(1)) / int(m.group(2))
        return repr(v).rstrip("0").rstrip(".") if v != int(v) else str(int(v))
    m = re.search(r"(\d+(?:\.\d+)?)\s*x", s) or re.search(r"(\d+(?:\.\d+)?)", s)
    return m.group(1) if m else None


def build_rows(stream, parse, provider_src, currency, unit_of, region=None, extra=""):
    rows, open_rows, closed, last_cells = [], {}, {}, {}
    for d, h, p, text in stream:
        cur = parse(text)
        if not cur:
            continue
        present = set()
        for iid, r in cur.items():
            last_cells[iid] = (r["cells"], d, h, p)
            for mode in ("prepaid", "payg"):
                if mode not in r:
                    continue
                amt, note = r[mode]
                present.add((iid, mode))
                key = (iid, mode)
                if key in open_rows and open_rows[key]["amount"] == amt:
                    continue
                if key in open_rows:
                    open_rows[key]["effective_to"] = d
                elif key in closed:
                    # listed again after a gap: one key may not have a hole in time
                    old = closed.pop(key)
                    if old["amount"] == amt:
                        old.pop("effective_to")
                        old["source"] = old["source"].replace("; no longer listed in the version of", "; not listed from") + f" to {d}, listed again at the same price ({h[:10]})"
                        open_rows[key] = old
                        continue
                    old["source"] += f"; row extended to the relisting on {d}"
                    old["effective_to"] = d
                src = f"{provider_src}@{h}:{p} [P]"
                ex = extra(d, note) if callable(extra) else extra
                parts = [x for x in (note, ex) if x]
                if parts:
                    src += " " + "; ".join(parts)
                row = OrderedDict(provider="tencent", instance_type=iid)
                if region:
                    row["region"] = region
                row.update(mode=mode, unit=unit_of[mode], amount=amt, currency=currency,
                           effective_from=d, source=src, as_of=d)
                rows.append(row)
                open_rows[key] = row
        for key in list(open_rows):
            if key not in present:
                open_rows[key]["effective_to"] = d
                open_rows[key]["source"] += f"; no longer listed in the version of {d} ({h[:10]})"
                closed[key] = open_rows.pop(key)
    # put effective_to right after effective_from
    out = []
    for r in rows:
        o = OrderedDict()
        for k, v in r.items():
            if k == "source":
                continue
            o[k] = v
            if k == "effective_from" and "effective_to" in r:
                o["effective_to"] = r["effective_to"]
        o["source"] = r["source"]
        o["as_of"] = r["as_of"]
        out.append(o)
    return out, last_cells


def instance_types(last_cells, repo):
    out = []
    for iid, (cells, d, h, p) in sorted(last_cells.items()):
        fam = iid.split(".")[0]
        gpu = FAMILY_GPU.get(fam)
        c = [x for x in cells]
        gcount = cnum(c[0]) if c else None
        # vcpu / ram: the cells after the GPU memory cell; take from the size name when the
        # table is ambiguous (GA2 rows have no GPU-memory cell in 2017)
        nums = [x for x in c[1:] if re.search(r"核|^\d+$|GB", x)]
        vcpu = ram = None
        for x in c[1:]:
            if "核" in x and vcpu is None:
                vcpu = cnum(x)
        m = re.search(r"(\d+)$", iid.split(".")[1])
        ram = m.group(1) if m and iid.split(".")[1].upper() != iid.split(".")[1] or (m and not iid.endswith("large")) else None
        if vcpu is None:
            ints = [x for x in c[1:] if re.fullmatch(r"\d+", x)]
            if len(ints) >= 2:
                vcpu = ints[-2] if len(ints) == 2 else ints[1]
        row = OrderedDict(provider="tencent", id=iid, family=fam)
        if gpu:
            row["gpu"] = gpu
        if gcount:
            row["gpu_count"] = gcount
        if vcpu:
            row["vcpu"] = int(vcpu)
        if ram:
            row["ram_gb"] = ram
        row["source"] = f"{repo}@{h}:{p} [P] (last listed {d})"
        out.append(row)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qcloud", required=True)
    ap.add_argument("--intl", required=True)
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    qv = [v for v in versions(a.qcloud, [Q_OLD]) if v[0] < Q_SWITCH] + \
         [v for v in versions(a.qcloud, [Q_NEW]) if v[0] >= Q_SWITCH]
    cn_rows, cn_cells = build_rows(
        qv, parse_cn, "tencentyun/qcloud-documents", "CNY",
        {"prepaid": "month", "payg": "hour"},
        extra=lambda d, note: "" if "SSD" in note else (
            "list price of the compute part (CPU, memory, GPU) only; disks and network extra (doc statement from 2018-10-28)"
            if d >= "2018-10-28" else "list price of the hardware part (CPU, memory, GPU); disks and network priced separately"))
    iv = versions(a.intl, I_PATHS)
    us_rows, us_cells = build_rows(
        iv, parse_intl, "tencentyun/intlcloud-documents", "USD",
        {"payg": "hour"}, region=INTL_REGION,
        extra="international site, pay-as-you-go USD list; the 2022-09-16 and later versions say "
              "'prices on this page are for Guangzhou Zone 3', earlier versions name no region [U]")

    base = json.load(open(a.base, encoding="utf-8"), object_pairs_hook=OrderedDict)
    gen_types = instance_types(cn_cells, "tencentyun/qcloud-documents")
    gen_ids = {t["id"] for t in gen_types}
    for iid, (cells, d, h, p) in us_cells.items():
        if iid not in gen_ids:
            t = instance_types({iid: (cells, d, h, p)}, "tencentyun/intlcloud-documents")[0]
            gen_types.append(t)
            gen_ids.add(iid)
    # merge: hand-written fields of existing types win (notes, local disk, corrected specs)
    old = OrderedDict((t["id"], t) for t in base.get("instance_types", []))
    types = []
    for t in gen_types:
        if t["id"] in old:
            o = old.pop(t["id"])
            merged = OrderedDict(t)
            merged.update(o)
            types.append(merged)
        else:
            types.append(t)
    types.extend(old.values())
    kept = [p for p in base.get("prices", []) if not p.get("source", "").startswith(GEN_PREFIXES)]
    base["instance_types"] = types
    base["prices"] = cn_rows + us_rows + kept
    tmp = a.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(dump(base))
    json.load(open(tmp, encoding="utf-8"))
    os.replace(tmp, a.out)
    print(f"{len(types)} instance types, {len(cn_rows)} CNY rows, {len(us_rows)} USD rows, "
          f"{len(kept)} kept rows", file=sys.stderr)


def dump(doc):
    """Pretty JSON, but one object per line inside the big arrays."""
    parts = ["{"]
    keys = list(doc.keys())
    for i, k in enumerate(keys):
        v = doc[k]
        comma = "," if i < len(keys) - 1 else ""
        if isinstance(v, list) and k in ("instance_types", "prices", "disk_prices",
                                         "bandwidth_prices", "discounts", "regions", "gpus"):
            parts.append(f'  {json.dumps(k)}: [')
            for j, row in enumerate(v):
                parts.append("    " + json.dumps(row, ensure_ascii=False) + ("," if j < len(v) - 1 else ""))
            parts.append("  ]" + comma)
        else:
            body = json.dumps(v, ensure_ascii=False, indent=2).replace("\n", "\n  ")
            parts.append(f"  {json.dumps(k)}: {body}{comma}")
    parts.append("}")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    main()
