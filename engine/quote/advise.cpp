// The source article's sizing advice (fixtures' seed article, "GPU 的選擇", "內存大小的選擇",
// "硬盤驅動器/SSD") applied to a workload, and which offers meet it.
#include <algorithm>
#include <map>

#include "gpubill/quote/quote.hpp"
#include "quote/quote_internal.hpp"
#include "quote/quote_text.hpp"

namespace gpubill {

using namespace quote_detail;

namespace {

// Counts of the offers advice checks (those with the workload's GPUs) and of those meeting each
// piece of advice.
struct OfferCounts {
  std::size_t checked = 0, ram_ok = 0, ssd_fits = 0, nvlink = 0;
};

// The cheapest priced line of each offer (a quote's lines come cheapest first).
std::map<std::string, const QuoteLine*> cheapest_lines(const QuoteResult& quoted) {
  std::map<std::string, const QuoteLine*> cheapest;  // offer id → its cheapest priced line
  for (const auto& l : quoted.lines) {
    if (l.priced) cheapest.try_emplace(l.offer_id, &l);
  }
  return cheapest;
}

// The offers with the workload's GPUs, each judged against the advice, those meeting all of it
// first, then by their cheapest line.
OfferCounts judge_offers(const Catalog& catalog, const QuoteEngine::Index& ix,
                         const ResolvedWorkload& workload,
                         const std::map<std::string, const QuoteLine*>& cheapest,
                         std::vector<AdviceOffer>& offers) {
  Ctx ctx(catalog, ix, workload);
  OfferCounts counts;
  for (const IndexedOffer& o : ix.offers) {
    if (!ctx.providers[o.provider].allowed || !ctx.region_ok(o) || !o.gpu) continue;
    if (!ctx.gpus[static_cast<std::size_t>(o.gpu_index)].ok) continue;
    if (workload.gpu_fraction ? (o.attached > 0 || o.gpu_count != *workload.gpu_fraction)
                              : o.gpu_count_whole != workload.gpu_count) {
      continue;
    }
    ++counts.checked;
    AdviceOffer a;
    a.offer_id = ix.offer_id(catalog, o);
    a.instance = o.type;
    a.gpu = o.gpu;
    a.gpu_count = o.gpu_count;
    if (o.has_ram) a.ram_gb = o.ram_gb;
    if (o.gpu->memory_gb) a.gpu_memory_gb = *o.gpu->memory_gb * o.gpu_count;
    const std::optional<Decimal> floor =
        workload.ram_default ? a.gpu_memory_gb : workload.min_ram_gb;
    a.ram_ok = a.ram_gb && (!floor || *a.ram_gb >= *floor);
    if (o.local_ssd_gb > 0) a.local_ssd_gb = o.local_ssd_gb;
    a.local_ssd_fits = workload.storage_gb && o.local_ssd_gb > 0 &&
                       Decimal(o.local_ssd_gb) >= *workload.storage_gb;
    a.nvlink = o.gpu->nvlink();
    a.meets_all = a.ram_ok && (workload.gpu_count == 1 || a.nvlink);
    if (auto it = cheapest.find(a.offer_id); it != cheapest.end()) {
      a.cheapest = it->second->total;
      a.cheapest_mode = std::string(to_string(*it->second->mode));
    }
    counts.ram_ok += a.ram_ok;
    counts.ssd_fits += a.local_ssd_fits;
    counts.nvlink += a.nvlink;
    offers.push_back(std::move(a));
  }
  std::stable_sort(offers.begin(), offers.end(), [](const AdviceOffer& x, const AdviceOffer& y) {
    if (x.meets_all != y.meets_all) return x.meets_all;
    if (x.cheapest.has_value() != y.cheapest.has_value()) return x.cheapest.has_value();
    if (x.cheapest && y.cheapest) return x.cheapest->amount() < y.cheapest->amount();
    return false;
  });
  return counts;
}

std::string count_of(std::size_t checked, std::size_t k) {
  return std::to_string(k) + " of " + std::to_string(checked);
}

AdviceItem gpu_advice(const ResolvedWorkload& workload, const std::string& n, std::size_t checked) {
  AdviceItem item;
  item.topic = "GPU";
  item.advice =
      "Four figures decide a GPU: floating-point throughput, memory, data transfer and price. "
      "For deep learning single-precision (FP32) and half-precision (FP16) throughput matter "
      "most. With budget to spare, take NVLink GPUs with high FP32 throughput and large "
      "memory; on a tight budget, weigh the core need and take the better price per "
      "performance (compare the per TFLOP-hour figures of `gpubill quote`).";
  std::string need;
  for (const auto& [name, gpus] : workload.matched_names) {
    need += (need.empty() ? "" : ", ") + name;
  }
  if (workload.min_fp32_tflops)
    need += (need.empty() ? "" : ", ") + std::string("FP32 ≥ ") +
            workload.min_fp32_tflops->to_string() + " TFLOPS";
  if (workload.min_fp16_tflops)
    need += (need.empty() ? "" : ", ") + std::string("FP16 ≥ ") +
            workload.min_fp16_tflops->to_string() + " TFLOPS";
  if (workload.min_memory_gb)
    need += (need.empty() ? "" : ", ") + std::string("memory ≥ ") +
            workload.min_memory_gb->to_string() + " GB";
  item.applied = n + " × " + (need.empty() ? std::string("any GPU") : need) + ": " +
                 std::to_string(checked) + " offers have such GPUs";
  item.offers_meeting = checked;
  item.offers_checked = checked;
  return item;
}

AdviceItem ram_advice(const ResolvedWorkload& workload, const std::string& n, std::size_t checked,
                      std::size_t ram_ok) {
  AdviceItem item;
  item.topic = "RAM";
  item.advice =
      "If the budget allows and there is much preprocessing, take at least as much RAM as the "
      "GPUs have memory; less also runs, but data must then be moved step by step and "
      "efficiency suffers. More RAM is more comfortable.";
  item.applied = workload.ram_default
                     ? "RAM ≥ total GPU memory of the offer (" + n +
                           " × the GPU's memory; this is the quote's default RAM floor)"
                     : "RAM ≥ " + workload.min_ram_gb->to_string() +
                           " GB (your min_ram_gb replaces the default)";
  item.applied += ": " + count_of(checked, ram_ok) + " offers meet it";
  item.offers_meeting = ram_ok;
  item.offers_checked = checked;
  return item;
}

AdviceItem ssd_advice(const ResolvedWorkload& workload, std::size_t checked, std::size_t ssd_fits) {
  AdviceItem item;
  item.topic = "SSD";
  item.advice =
      "An SSD should hold the data sets you usually work with plus some tens of GB extra; "
      "data sets not in use can live on an ordinary hard disk.";
  if (workload.storage_gb) {
    item.applied = "SSD ≥ " + workload.dataset_gb.to_string() + " GB data set + " +
                   workload.headroom_gb.to_string() + " GB headroom" +
                   (workload.headroom_default ? " (default)" : "") + " = " +
                   workload.storage_gb->to_string() + " GB: " + count_of(checked, ssd_fits) +
                   " offers bundle a local SSD that large; the others need a " +
                   workload.disk_kind +
                   " disk of that size (priced by `gpubill quote` where "
                   "the catalog has the provider's disk price)";
    item.offers_meeting = ssd_fits;
  } else {
    item.applied = "no dataset_gb given: size the SSD to your data set + ~50 GB";
  }
  item.offers_checked = checked;
  return item;
}

AdviceItem disk_throughput_advice(const ResolvedWorkload& workload, const std::string& n,
                                  std::size_t checked, const std::vector<AdviceOffer>& offers) {
  AdviceItem item;
  item.topic = "Disk throughput";
  item.advice =
      "The disk can become the bottleneck: new mini-batches must arrive as fast as the GPUs "
      "finish them. Read several mini-batches asynchronously (without it performance drops "
      "5–10%), and use an SSD: a 100–150 MB/s hard disk is too slow to keep up with a GPU.";
  item.applied =
      "put the data set on SSD (" + workload.disk_kind +
      " or a bundled local SSD/NVMe), not on a 100–150 MB/s HDD-class disk, for " + n + " GPU" +
      (workload.gpu_count > 1 ? "s" : "") + "; " +
      count_of(checked, static_cast<std::size_t>(std::count_if(
                            offers.begin(), offers.end(),
                            [](const AdviceOffer& a) { return a.local_ssd_gb.has_value(); }))) +
      " offers bundle a local SSD/NVMe";
  item.offers_meeting = static_cast<std::size_t>(
      std::count_if(offers.begin(), offers.end(),
                    [](const AdviceOffer& a) { return a.local_ssd_gb.has_value(); }));
  item.offers_checked = checked;
  return item;
}

AdviceItem nvlink_advice(const ResolvedWorkload& workload, const std::string& n,
                         std::size_t checked, std::size_t nvlink) {
  AdviceItem item;
  item.topic = "NVLink";
  item.advice =
      "In data-parallel training each GPU trains a model replica and gradients are averaged; "
      "PCIe cannot feed the GPUs fast enough. NVLink exchanges data 5–12× faster than PCIe "
      "(80 GB/s between two GPUs, 50 GB/s per link with NVLink 2.0 on Volta).";
  if (workload.gpu_count > 1) {
    item.applied = n + " GPUs: prefer NVLink-linked GPUs for data-parallel training" +
                   std::string(workload.nvlink ? " (required by the workload)" : "") + ": " +
                   count_of(checked, nvlink) + " offers have NVLink GPUs";
    item.offers_meeting = nvlink;
  } else {
    item.applied = "1 GPU: no GPU-to-GPU traffic, NVLink is not needed";
    item.offers_meeting = checked;
  }
  item.offers_checked = checked;
  return item;
}

}  // namespace

Advice QuoteEngine::advise(const ResolvedWorkload& workload) const {
  // The RAM floor is what the advice is about: quote without it, judge it here.
  ResolvedWorkload w = workload;
  w.ram_default = false;
  w.min_ram_gb.reset();
  const QuoteResult quoted = quote(w, {});
  const std::map<std::string, const QuoteLine*> cheapest = cheapest_lines(quoted);

  Advice advice;
  const OfferCounts counts = judge_offers(catalog_, *index_, workload, cheapest, advice.offers);
  const std::size_t checked = counts.checked;
  const std::string n = std::to_string(workload.gpu_count);
  advice.items.push_back(gpu_advice(workload, n, checked));
  advice.items.push_back(ram_advice(workload, n, checked, counts.ram_ok));
  advice.items.push_back(ssd_advice(workload, checked, counts.ssd_fits));
  advice.items.push_back(disk_throughput_advice(workload, n, checked, advice.offers));
  advice.items.push_back(nvlink_advice(workload, n, checked, counts.nvlink));
  return advice;
}

}  // namespace gpubill
