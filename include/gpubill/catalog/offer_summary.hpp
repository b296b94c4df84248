// The offer summary (migration 0015): every offer of the catalog counted per provider, region,
// family and GPU (OfferGroup), with the regions its prices name, stored beside the catalog with
// the catalog version it was built from. A quote that names GPU models reads only the offers
// that carry them and takes the others from it (load_quote_catalog, quote.hpp). Any change to
// the tables it is made from (providers, GPUs and aliases, instance types, attachable GPUs,
// prices) marks it stale, by triggers in the database; a stale summary is never read.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/store/db.hpp"

namespace gpubill {

// Offers a narrowed read left out (load_quote_catalog with the offer summary), counted per
// provider, region, family and GPU: enough to count them and say why a quote excludes them,
// with the first of each group in offer order (provider, region, instance type, GPU, GPU count)
// as its example.
struct OfferGroup {
  std::string provider, region;  // region "" = every region of the provider
  std::string family;
  std::string gpu;  // the offers' GPU id; "" when none is known
  std::size_t offers = 0;
  std::string example_type;  // the example's instance type
  int example_attached = 0;  // > 0: that many attachable GPUs on the host; 0: built in
};

struct UnloadedOffers {
  // Offers whose GPU is one of these ids are in the catalog read (instance types and prices);
  // every other offer is in `groups` only.
  std::set<std::string> loaded_gpus;
  std::vector<OfferGroup> groups;
  // (provider, region) of every price row, as reading all of them would name them.
  std::vector<std::pair<std::string, std::string>> price_regions;
  // The latest effective_from of every price row.
  std::optional<Instant> latest_price_from;
};

// Whether the stored summary was built from the catalog as it is now. Throws StoreError.
bool offer_summary_is_current(Database& db);

// Makes the summary of a catalog's offers (the quote area's summarize_offers): groups only;
// `catalog` holds every row but prices, and one key-only price row per subject and region.
using OfferSummarizer = std::function<UnloadedOffers(const Catalog& catalog)>;

// Builds and stores the summary, in one write transaction, unless it is current; returns
// whether it built one. Needs a database opened for writing. Throws StoreError.
bool refresh_offer_summary(Database& db, const OfferSummarizer& summarize);

}  // namespace gpubill
