#include "gpubill/catalog/catalog.hpp"

#include <algorithm>

#include "base/text_match.hpp"
#include "gpubill/base/errors.hpp"

namespace gpubill {

namespace {

constexpr char kSep = '\x1f';

std::string key(std::initializer_list<std::string_view> parts) {
  std::string k;
  for (auto p : parts) {
    k += p;
    k += kSep;
  }
  return k;
}

std::string price_key(std::string_view provider, SubjectKind kind, std::string_view subject,
                      BillingMode mode) {
  return key({provider, to_string(kind), subject, to_string(mode)});
}

// The row in force at t among `candidates` (indices into rows) that `matches`: the latest
// effective_from, with `specific` rows preferred over generic ones.
template <typename Row, typename Matches, typename Specific>
const Row* in_force(const std::vector<Row>& rows, const std::vector<std::size_t>* candidates,
                    Instant t, Matches matches, Specific specific) {
  if (!candidates) return nullptr;
  const Row* best = nullptr;
  bool best_specific = false;
  for (std::size_t i : *candidates) {
    const Row& r = rows[i];
    if (!r.period.contains(t) || !matches(r)) continue;
    const bool s = specific(r);
    if (!best || (s && !best_specific) ||
        (s == best_specific && r.period.from > best->period.from)) {
      best = &r;
      best_specific = s;
    }
  }
  return best;
}

template <typename Map>
const std::vector<std::size_t>* find_list(const Map& map, const std::string& k) {
  auto it = map.find(k);
  return it == map.end() ? nullptr : &it->second;
}

}  // namespace

BillingMode parse_billing_mode(std::string_view text) {
  if (text == "payg") return BillingMode::payg;
  if (text == "prepaid") return BillingMode::prepaid;
  if (text == "spot") return BillingMode::spot;
  if (text == "reserved_1y") return BillingMode::reserved_1y;
  if (text == "reserved_3y") return BillingMode::reserved_3y;
  throw ParseError("unknown billing mode '" + std::string(text) +
                   "' (expected payg, prepaid, spot, reserved_1y or reserved_3y)");
}

std::string_view to_string(BillingMode mode) noexcept {
  switch (mode) {
    case BillingMode::payg:
      return "payg";
    case BillingMode::prepaid:
      return "prepaid";
    case BillingMode::spot:
      return "spot";
    case BillingMode::reserved_1y:
      return "reserved_1y";
    case BillingMode::reserved_3y:
      return "reserved_3y";
  }
  return "?";
}

PriceUnit parse_price_unit(std::string_view text) {
  if (text == "hour") return PriceUnit::hour;
  if (text == "month") return PriceUnit::month;
  throw ParseError("unknown price unit '" + std::string(text) + "' (expected hour or month)");
}

std::string_view to_string(PriceUnit unit) noexcept {
  return unit == PriceUnit::hour ? "hour" : "month";
}

std::string_view to_string(SubjectKind kind) noexcept {
  return kind == SubjectKind::instance ? "instance" : "gpu";
}

std::string_view to_string(SettlementPeriod period) noexcept {
  switch (period) {
    case SettlementPeriod::hour:
      return "hour";
    case SettlementPeriod::day:
      return "day";
    case SettlementPeriod::month:
      return "month";
  }
  return "hour";
}

SettlementPeriod parse_settlement_period(std::string_view text) {
  if (text == "hour") return SettlementPeriod::hour;
  if (text == "day") return SettlementPeriod::day;
  if (text == "month") return SettlementPeriod::month;
  throw ParseError("unknown settlement period '" + std::string(text) +
                   "' (expected hour, day or month)");
}

Catalog::Catalog(CatalogData data) : data_(std::move(data)) {
  for (std::size_t i = 0; i < data_.providers.size(); ++i) {
    provider_index_[data_.providers[i].id] = i;
  }
  for (std::size_t i = 0; i < data_.gpus.size(); ++i) {
    gpu_index_[text_match::to_lower(data_.gpus[i].id)] = i;
  }
  for (std::size_t i = 0; i < data_.gpus.size(); ++i) {  // ids win over aliases
    for (const auto& alias : data_.gpus[i].aliases)
      gpu_index_.try_emplace(text_match::to_lower(alias), i);
  }
  for (std::size_t i = 0; i < data_.instance_types.size(); ++i) {
    const auto& it = data_.instance_types[i];
    instance_index_[key({it.provider, it.id})] = i;
  }
  for (std::size_t i = 0; i < data_.prices.size(); ++i) {
    const auto& p = data_.prices[i];
    if (p.key_only) continue;  // no amount: never a price
    price_index_[price_key(p.provider, p.subject_kind, p.subject, p.mode)].push_back(i);
  }
  for (std::size_t i = 0; i < data_.policies.size(); ++i) {
    policy_index_[data_.policies[i].provider].push_back(i);
  }
  for (std::size_t i = 0; i < data_.discounts.size(); ++i) {
    const auto& d = data_.discounts[i];
    discount_index_[key({d.provider, to_string(d.mode)})].push_back(i);
  }
}

const Provider* Catalog::find_provider(std::string_view id) const {
  auto it = provider_index_.find(std::string(id));
  return it == provider_index_.end() ? nullptr : &data_.providers[it->second];
}

const Provider& Catalog::provider(std::string_view id) const {
  if (const auto* p = find_provider(id)) return *p;
  std::string known;
  for (const auto& p : data_.providers) known += (known.empty() ? "" : ", ") + p.id;
  throw NotFound("unknown provider '" + std::string(id) + "' (known: " + known + ")");
}

const Gpu* Catalog::find_gpu(std::string_view name) const {
  auto it = gpu_index_.find(text_match::to_lower(name));
  return it == gpu_index_.end() ? nullptr : &data_.gpus[it->second];
}

const Gpu& Catalog::gpu(std::string_view name) const {
  if (const auto* g = find_gpu(name)) return *g;
  std::string hint;
  for (const auto& n : closest_gpu_names(name)) hint += (hint.empty() ? "" : ", ") + n;
  throw NotFound("unknown GPU '" + std::string(name) + "'" +
                 (hint.empty() ? "" : " (closest known: " + hint + ")"));
}

std::vector<std::string> Catalog::closest_gpu_names(std::string_view name, std::size_t n) const {
  std::vector<std::string> names;
  for (const auto& g : data_.gpus) {
    names.push_back(g.id);
    names.insert(names.end(), g.aliases.begin(), g.aliases.end());
  }
  return text_match::closest(name, names, n);
}

const InstanceType* Catalog::find_instance_type(std::string_view provider,
                                                std::string_view id) const {
  auto it = instance_index_.find(key({provider, id}));
  return it == instance_index_.end() ? nullptr : &data_.instance_types[it->second];
}

const PriceRow* Catalog::price_at(std::string_view provider, SubjectKind kind,
                                  std::string_view subject, std::string_view region,
                                  BillingMode mode, Instant t) const {
  return in_force(
      data_.prices, find_list(price_index_, price_key(provider, kind, subject, mode)), t,
      [&](const PriceRow& r) { return r.region.empty() || r.region == region; },
      [](const PriceRow& r) { return !r.region.empty(); });
}

std::vector<const PriceRow*> Catalog::prices_of(std::string_view provider, SubjectKind kind,
                                                std::string_view subject) const {
  std::vector<const PriceRow*> out;
  for (auto mode : {BillingMode::payg, BillingMode::prepaid, BillingMode::spot,
                    BillingMode::reserved_1y, BillingMode::reserved_3y}) {
    if (const auto* list = find_list(price_index_, price_key(provider, kind, subject, mode))) {
      for (std::size_t i : *list) out.push_back(&data_.prices[i]);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const PriceRow* a, const PriceRow* b) {
    return a->period.from < b->period.from;
  });
  return out;
}

const DiscountRow* Catalog::discount_at(std::string_view provider, std::string_view family,
                                        BillingMode mode, int months, Instant t) const {
  return in_force(
      data_.discounts, find_list(discount_index_, key({provider, to_string(mode)})), t,
      [&](const DiscountRow& d) {
        return (d.family.empty() || d.family == family) && d.min_months <= months &&
               months <= d.max_months;
      },
      [](const DiscountRow& d) { return !d.family.empty(); });
}

const BillingPolicy* Catalog::policy_at(std::string_view provider, Instant t) const {
  return in_force(
      data_.policies, find_list(policy_index_, std::string(provider)), t,
      [](const BillingPolicy&) { return true; }, [](const BillingPolicy&) { return false; });
}

namespace {
const ResourcePriceRow* resource_at(const std::vector<ResourcePriceRow>& rows,
                                    std::string_view provider, std::string_view kind,
                                    BillingMode mode, Instant t) {
  const ResourcePriceRow* best = nullptr;
  for (const auto& r : rows) {
    if (r.provider == provider && r.kind == kind && r.mode == mode && r.period.contains(t) &&
        (!best || r.period.from > best->period.from)) {
      best = &r;
    }
  }
  return best;
}
}  // namespace

const ResourcePriceRow* Catalog::disk_price_at(std::string_view provider, std::string_view kind,
                                               BillingMode mode, Instant t) const {
  return resource_at(data_.disk_prices, provider, kind, mode, t);
}

const ResourcePriceRow* Catalog::bandwidth_price_at(std::string_view provider,
                                                    std::string_view kind, BillingMode mode,
                                                    Instant t) const {
  return resource_at(data_.bandwidth_prices, provider, kind, mode, t);
}

std::optional<FxRate> Catalog::fx_rate(Currency from, Currency to, date::sys_days day) const {
  if (from == to) {
    FxRate identity;
    identity.day = day;
    identity.from = from;
    identity.to = to;
    identity.rate = Decimal(1);
    identity.source = "identity";
    return identity;
  }
  const FxRate* best = nullptr;
  bool best_inverted = false;
  for (const auto& r : data_.fx_rates) {
    if (r.day > day) continue;
    const bool direct = r.from == from && r.to == to;
    const bool inverse = r.from == to && r.to == from;
    if (!direct && !inverse) continue;
    // The latest day wins; on the same day a directly stored rate wins over an inverse.
    if (!best || r.day > best->day || (r.day == best->day && direct && best_inverted)) {
      best = &r;
      best_inverted = !direct;
    }
  }
  if (!best) return std::nullopt;
  FxRate out = *best;
  if (best_inverted) {
    out.from = from;
    out.to = to;
    out.rate = Decimal::divide(Decimal(1), best->rate, Decimal::kScale, RoundingMode::half_even);
    out.inverted = true;
  }
  return out;
}

Conversion Catalog::convert(const Money& amount, Currency to, date::sys_days day) const {
  if (amount.currency() == to) return {amount, std::nullopt};
  auto rate = fx_rate(amount.currency(), to, day);
  if (!rate) {
    throw NotFound("no FX rate from " + amount.currency().to_string() + " to " + to.to_string() +
                   " on or before " + format_day(day));
  }
  return {Money(amount.amount() * rate->rate, to), rate};
}

std::optional<Instant> Catalog::latest_price_date() const {
  std::optional<Instant> latest;
  for (const auto& p : data_.prices) {
    if (!latest || p.period.from > *latest) latest = p.period.from;
  }
  return latest;
}

}  // namespace gpubill
