// Offers: what can be rented, at what price, as the catalog lists them. An offer is an instance
// type in a region and billing mode with the price in force, or, for a host that takes
// attachable GPUs (Google-style), the host with N of one GPU model priced as host + N × GPU.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/provenance.hpp"

namespace gpubill {

// The GPU models a user's name means: the model find_gpu names (id or alias, any case), plus
// every model whose id starts with the name and a dash ("V100" → V100-SXM2-16GB,
// V100-PCIE-16GB, V100-SXM2-32GB). Throws NotFound listing the closest known names when none.
std::vector<const Gpu*> gpus_matching(const Catalog& catalog, std::string_view name);

struct OfferFilter {
  std::string provider;           // empty = every provider
  std::vector<std::string> gpus;  // GPU ids; empty = any, including hosts without GPUs
  std::optional<BillingMode> mode;
  std::string region;  // empty = every region; else rows for it or for every region
  // Prices in force at this instant; unset = the latest row of each (region, mode).
  std::optional<Instant> at;
};

struct Offer {
  const InstanceType* instance_type = nullptr;
  std::string name;                 // "p3.2xlarge", or "n1-standard-8+4×V100-SXM2-16GB"
  std::string gpu;                  // GPU id; empty for a host without GPUs
  Decimal gpu_count;                // GPUs in the offer
  std::string region;               // empty = every region
  std::optional<BillingMode> mode;  // unset when the offer has no price at all
  // Per unit, for the whole offer; unset = unknown (no price row, or host and GPU rows that
  // cannot be added: different units or currencies, or one of them missing).
  std::optional<Money> price;
  PriceUnit unit = PriceUnit::hour;
  std::vector<const PriceRow*> rows;       // the rows the price comes from (host first)
  std::string as_of;                       // the oldest as_of of those rows
  SourceTag source_tag = SourceTag::none;  // the least trusted tag of those rows
};

// Every offer matching the filter, ordered by provider, instance type, GPU count, region,
// mode: one per (region, mode) the subject has a price row for (an every-region row is region
// ""). With a region filter, one per mode, from the row for that region or else the row for
// every region; providers not known to have the region are left out. A host+N×GPU offer exists
// where its GPU is priced; the host's price there (or for every region) is added, and when it
// is missing the offer's price is unknown. An instance type that matches but has no price
// matching the filter appears once, with no price (unknown), never as 0. Throws NotFound for an
// unknown filter provider.
std::vector<Offer> list_offers(const Catalog& catalog, const OfferFilter& filter);

}  // namespace gpubill
