// The engine's bounds on imported catalog rows (catalog_bounds.hpp).
#include "catalog/catalog_bounds.hpp"

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_import.hpp"

namespace gpubill {

namespace {

class Checker {
 public:
  Checker(const std::string& file, const RowPlaces& places, std::optional<Instant> not_after)
      : file_(file),
        places_(places),
        not_after_(not_after.value_or(latest_catalog_date())),
        now_based_(not_after.has_value()) {}

  [[noreturn]] void fail(std::string_view section, std::size_t i, std::string_view field,
                         const std::string& why) const {
    const RowPlace at = places_(section, i, field);
    throw InputError(file_, at.place, at.field, why);
  }

  void amount(std::string_view section, std::size_t i, std::string_view field,
              const Decimal& d) const {
    if (d.sign() < 0) fail(section, i, field, "must not be negative (found " + d.to_string() + ")");
    if (d > Decimal(kMaxCatalogAmount)) {
      fail(section, i, field,
           d.to_string() + " is above the limit of " + std::to_string(kMaxCatalogAmount));
    }
  }

  void date(std::string_view section, std::size_t i, std::string_view field, Instant t) const {
    if (t < earliest_catalog_date()) {
      fail(section, i, field,
           format_instant(t) + " is before " + format_instant(earliest_catalog_date()) +
               ", when cloud servers were first sold; check the year");
    }
    if (t > not_after_) {
      fail(section, i, field,
           format_instant(t) + " is later than " + format_instant(not_after_) +
               (now_based_ ? " (now plus a year: prices are announced months ahead, not years)"
                           : " (the latest date a catalog row may carry)") +
               "; check the year");
    }
  }

  void day(std::string_view section, std::size_t i, std::string_view field,
           const std::string& text) const {
    date(section, i, field, Instant{parse_day(text)});
  }

  void period(std::string_view section, std::size_t i, const Effective& p) const {
    date(section, i, "effective_from", p.from);
    if (!p.to) return;
    if (*p.to <= p.from) {
      fail(section, i, "effective_to",
           "must be after effective_from (" + format_instant(p.from) + "), found " +
               format_instant(*p.to));
    }
    static const Instant kLast = Instant{parse_day("9999-12-31")};
    if (*p.to > kLast) fail(section, i, "effective_to", "is after 9999-12-31");
  }

 private:
  const std::string& file_;
  const RowPlaces& places_;
  Instant not_after_;
  bool now_based_;  // not_after is now plus a year (the CLI's), not the fixed latest date
};

void check_prices(const Checker& c, const CatalogData& d) {
  for (std::size_t i = 0; i < d.prices.size(); ++i) {
    const PriceRow& p = d.prices[i];
    c.amount("prices", i, "amount", p.amount.amount());
    // The unit the engine bills each mode by (quote and replay look for exactly this one);
    // reserved terms are only listed (catalog offers, diff), in either unit.
    const bool reserved = p.mode == BillingMode::reserved_1y || p.mode == BillingMode::reserved_3y;
    const PriceUnit want = p.mode == BillingMode::prepaid ? PriceUnit::month : PriceUnit::hour;
    if (!reserved && p.unit != want) {
      c.fail("prices", i, "unit",
             "a " + std::string(to_string(p.mode)) + " price is per " +
                 std::string(to_string(want)) + ", not per " + std::string(to_string(p.unit)));
    }
    c.period("prices", i, p.period);
    c.day("prices", i, "as_of", p.as_of);
  }
}

void check_discounts(const Checker& c, const CatalogData& d) {
  for (std::size_t i = 0; i < d.discounts.size(); ++i) {
    const DiscountRow& r = d.discounts[i];
    if (r.factor.sign() <= 0 || Decimal(1) < r.factor) {
      c.fail("discounts", i, "factor",
             "must be above 0 and at most 1 (the share of the list price paid), found " +
                 r.factor.to_string());
    }
    if (r.min_months < 1 || r.max_months < r.min_months) {
      c.fail("discounts", i, "max_months",
             "must not be below min_months (" + std::to_string(r.min_months) + ")");
    }
    c.period("discounts", i, r.period);
    c.day("discounts", i, "as_of", r.as_of);
  }
}

void check_resources(const Checker& c, const std::vector<ResourcePriceRow>& rows,
                     std::string_view section) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    c.amount(section, i, "amount", rows[i].amount.amount());
    c.period(section, i, rows[i].period);
    c.day(section, i, "as_of", rows[i].as_of);
  }
}

void check_others(const Checker& c, const CatalogData& d) {
  for (std::size_t i = 0; i < d.instance_types.size(); ++i) {
    const InstanceType& it = d.instance_types[i];
    if (it.gpu_count.sign() < 0 || (!it.gpu.empty() && it.gpu_count.is_zero())) {
      c.fail("instance_types", i, "gpu_count",
             "must be above 0 when a GPU is named, found " + it.gpu_count.to_string());
    }
  }
  for (std::size_t i = 0; i < d.fx_rates.size(); ++i) {
    const FxRate& r = d.fx_rates[i];
    if (r.rate.sign() <= 0) c.fail("fx_rates", i, "rate", "must be above 0");
    c.amount("fx_rates", i, "rate", r.rate);
    c.date("fx_rates", i, "date", Instant{r.day});
    c.day("fx_rates", i, "as_of", r.as_of);
  }
  for (std::size_t i = 0; i < d.policies.size(); ++i) {
    c.period("policies", i, d.policies[i].period);
    c.day("policies", i, "as_of", d.policies[i].as_of);
  }
}

}  // namespace

RowPlaces json_row_places() {
  return [](std::string_view section, std::size_t row, std::string_view field) {
    return RowPlace{"/" + std::string(section) + "/" + std::to_string(row), std::string(field)};
  };
}

Instant earliest_catalog_date() {
  return Instant{parse_day("2006-01-01")};
}

Instant latest_catalog_date() {
  return Instant{parse_day("2100-01-01")};
}

void check_catalog_bounds(const CatalogData& data, const std::string& file, const RowPlaces& places,
                          std::optional<Instant> not_after) {
  const Checker c(file, places, not_after);
  check_prices(c, data);
  check_discounts(c, data);
  check_resources(c, data.disk_prices, "disk_prices");
  check_resources(c, data.bandwidth_prices, "bandwidth_prices");
  check_others(c, data);
}

}  // namespace gpubill
