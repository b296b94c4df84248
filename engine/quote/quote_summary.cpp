// summarize_offers (quote.hpp): the offer summary's groups, from the offer index, so that the
// offers a narrowed quote leaves out are the ones the index would have listed.
#include <map>
#include <tuple>

#include "gpubill/quote/quote.hpp"
#include "quote/quote_index.hpp"

namespace gpubill {

UnloadedOffers summarize_offers(const Catalog& catalog) {
  const QuoteEngine::Index ix(catalog, nullptr);
  const auto& providers = catalog.data().providers;
  UnloadedOffers s;
  std::map<std::tuple<std::uint16_t, std::uint32_t, std::uint32_t, std::int32_t>, std::size_t>
      group_of;
  for (const auto& o : ix.offers) {  // in offer order: a group's first offer is its example
    auto [it, added] =
        group_of.try_emplace({o.provider, o.region, o.family, o.gpu_index}, s.groups.size());
    if (added) {
      s.groups.push_back({providers[o.provider].id, ix.regions[o.region],
                          ix.families[o.family].name, o.gpu ? o.gpu->id : std::string(), 0,
                          o.type->id, o.attached});
    }
    ++s.groups[it->second].offers;
  }
  return s;
}

}  // namespace gpubill
