// Why offers did not fit a quote, per family: from the tallies of the offers the quote walked
// and from the offers a narrowed read summarized (UnloadedOffers, OfferGroup).
#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "quote/quote_internal.hpp"

namespace gpubill::quote_detail {

namespace {

// An offer's place in offer order within its family (whose provider is one): region, instance
// type, GPU ("" none), GPU count on a host (0 built in) — the order the index sorts offers in.
using ExamplePlace = std::tuple<std::string, std::string, std::string, int>;

struct ReasonDraft {
  std::string text;
  std::size_t count = 0;
  ExamplePlace place;
  std::string example;  // offer id
};

// By (provider, family), as the exclusions are listed.
using Drafts = std::map<std::pair<std::string, std::string>, std::vector<ReasonDraft>>;

void add_draft(std::vector<ReasonDraft>& reasons, ReasonDraft d) {
  for (ReasonDraft& r : reasons) {
    if (r.text == d.text) {  // the same reason for offers walked and offers summarized
      r.count += d.count;
      if (d.place < r.place) {
        r.place = std::move(d.place);
        r.example = std::move(d.example);
      }
      return;
    }
  }
  reasons.push_back(std::move(d));
}

void add_tallies(Ctx& ctx, const Tallies& t, Drafts& drafts) {
  const auto& data = ctx.catalog.data();
  std::unordered_map<std::uint64_t, std::string> texts;
  for (std::uint32_t family = 0; family < t.first.size(); ++family) {
    if (t.first[family] == Tallies::kNone) continue;
    const Family& f = ctx.ix.families[family];
    auto& reasons = drafts[{data.providers[f.provider].id, f.name}];
    for (std::uint32_t i = t.first[family]; i != Tallies::kNone; i = t.all[i].next) {
      const Tally& tally = t.all[i];
      const IndexedOffer& example = ctx.ix.offers[tally.example];
      // The text depends on the reason, its detail and the GPU, except for vCPU and RAM
      // figures, which are the example's own.
      std::string text;
      if (tally.why == Exclude::vcpu || tally.why == Exclude::ram) {
        text = exclusion_text(ctx, tally.why, example);
      } else {
        const std::uint64_t key =
            (std::uint64_t{static_cast<std::uint8_t>(tally.why)} << 56) |
            (std::uint64_t{static_cast<std::uint32_t>(example.gpu_index + 1)} << 32) | tally.detail;
        auto [it, added] = texts.try_emplace(key);
        if (added) it->second = exclusion_text(ctx, tally.why, example);
        text = it->second;
      }
      ExamplePlace place{ctx.ix.regions[example.region], example.type->id,
                         example.gpu ? example.gpu->id : std::string(), example.attached};
      add_draft(reasons, {std::move(text), tally.count, std::move(place),
                          ctx.ix.offer_id(ctx.catalog, example)});
    }
  }
}

// Why the offers of a summarized group do not fit, as the quote's walk would decide it: the
// first of provider, region, no GPU and the GPU's own checks that fails. A narrowed read leaves
// out only offers whose GPU the workload does not name, so one of them always fails.
std::pair<Exclude, const Gpu*> group_reason(Ctx& ctx, const OfferGroup& g) {
  const auto& data = ctx.catalog.data();
  const auto provider = std::find_if(data.providers.begin(), data.providers.end(),
                                     [&](const Provider& p) { return p.id == g.provider; });
  if (provider == data.providers.end()) {
    throw std::logic_error("offer summary: unknown provider " + g.provider);
  }
  const auto p = static_cast<std::size_t>(provider - data.providers.begin());
  if (!ctx.providers[p].allowed) return {Exclude::provider, nullptr};
  const auto& regions = ctx.w.regions;
  const bool region_ok =
      g.region.empty()
          ? ctx.provider_any_region[p] != 0
          : regions.empty() || std::find(regions.begin(), regions.end(), g.region) != regions.end();
  if (!region_ok) return {Exclude::region, nullptr};
  if (g.gpu.empty()) return {Exclude::no_gpu, nullptr};
  const Gpu* gpu = ctx.catalog.find_gpu(g.gpu);
  if (!gpu) throw std::logic_error("offer summary: unknown GPU " + g.gpu);
  const GpuCheck& gc = ctx.gpus[static_cast<std::size_t>(gpu - data.gpus.data())];
  if (gc.ok) throw std::logic_error("offer summary: a summarized offer fits the workload");
  return {gc.why, gpu};
}

void add_groups(Ctx& ctx, const UnloadedOffers& unloaded, Drafts& drafts) {
  // A text per reason, GPU and (for a region reason) region: tens of thousands of groups share
  // a few dozen texts.
  std::map<std::tuple<Exclude, const Gpu*, std::string>, std::string> texts;
  for (const OfferGroup& g : unloaded.groups) {
    const auto [why, gpu] = group_reason(ctx, g);
    auto [text, added] =
        texts.try_emplace({why, gpu, why == Exclude::region ? g.region : std::string()});
    if (added) text->second = exclusion_text_for(ctx, why, g.region, gpu);
    std::string label = g.example_type;
    if (g.example_attached > 0) {  // as Index::instance_label
      const Gpu* attached = g.gpu.empty() ? nullptr : ctx.catalog.find_gpu(g.gpu);
      label += "+" + std::to_string(g.example_attached) + "×" + (attached ? attached->id : "GPU");
    }
    add_draft(
        drafts[{g.provider, g.family}],
        {text->second, g.offers, ExamplePlace{g.region, g.example_type, g.gpu, g.example_attached},
         g.provider + "/" + (g.region.empty() ? "*" : g.region) + "/" + label});
  }
}

}  // namespace

std::size_t unloaded_offer_count(const UnloadedOffers* unloaded) {
  std::size_t n = 0;
  if (unloaded) {
    for (const OfferGroup& g : unloaded->groups) n += g.offers;
  }
  return n;
}

std::vector<FamilyExclusion> build_exclusions(Ctx& ctx, const Tallies& t) {
  Drafts drafts;
  add_tallies(ctx, t, drafts);
  if (ctx.ix.unloaded) add_groups(ctx, *ctx.ix.unloaded, drafts);
  std::vector<FamilyExclusion> out;
  for (auto& [key, reasons] : drafts) {  // by provider, family
    std::sort(reasons.begin(), reasons.end(), [](const ReasonDraft& a, const ReasonDraft& b) {
      return a.count != b.count ? a.count > b.count : a.place < b.place;
    });
    FamilyExclusion fe;
    fe.provider = key.first;
    fe.family = key.second;
    for (ReasonDraft& r : reasons) {
      fe.offers += r.count;
      fe.reasons.push_back({std::move(r.text), r.count, std::move(r.example)});
    }
    out.push_back(std::move(fe));
  }
  return out;
}

}  // namespace gpubill::quote_detail
