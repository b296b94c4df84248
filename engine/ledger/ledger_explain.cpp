// explain_charge: the rows and events behind a charge line, and its arithmetic re-derived with
// the billing rules (rules.hpp) and checked against what is stored.
#include <algorithm>
#include <map>

#include "catalog/catalog_store.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/commitment.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "gpubill/rules/rules.hpp"
#include "ledger/ledger_rows.hpp"
#include "store/store.hpp"

namespace gpubill {

using namespace ledger_rows;

namespace {

std::string signed_text(Decimal d) {
  return d.sign() > 0 ? "+" + d.to_string() : d.to_string();
}

std::string price_unit_text(const std::string& unit) {
  if (unit == "hour") return "/h";
  if (unit == "month") return "/month";
  return "/" + unit;
}

std::optional<PriceRowInfo> read_price(store::Connection& db, std::string_view table,
                                       std::int64_t id) {
  std::string sql;
  if (table == "price") {
    sql =
        "SELECT id, provider, subject, region, mode, unit, amount, currency, effective_from, "
        "effective_to, source, as_of FROM price WHERE id = ?";
  } else {
    // disk_price / bandwidth_price: the subject is the kind; there is no region.
    sql =
        "SELECT id, provider, kind, '', mode, unit, amount, currency, effective_from, "
        "effective_to, source, as_of FROM " +
        std::string(table) + " WHERE id = ?";
  }
  store::Statement q(db, sql);
  q.bind(1, static_cast<int64_t>(id));
  if (!q.executeStep()) return std::nullopt;
  PriceRowInfo p;
  p.table = std::string(table);
  p.id = q.getColumn(0).getInt64();
  const std::string at = std::string(table) + " " + std::to_string(p.id) + ": ";
  p.provider = q.getColumn(1).getString();
  p.subject = q.getColumn(2).getString();
  p.region = q.getColumn(3).getString();
  p.mode = q.getColumn(4).getString();
  p.unit = q.getColumn(5).getString();
  p.amount = decode_decimal(q.getColumn(6).getString(), at + "amount");
  p.currency = decode_currency(q.getColumn(7).getString(), at + "currency");
  p.effective_from = instant_of(q.getColumn(8).getInt64());
  p.effective_to = optional_instant(q.getColumn(9));
  p.source = q.getColumn(10).getString();
  p.as_of = q.getColumn(11).getString();
  return p;
}

std::optional<PolicyRowInfo> read_policy(store::Connection& db, std::int64_t id) {
  store::Statement q(db,
                     "SELECT id, provider, effective_from, effective_to, "
                     "metering_granularity_seconds, settlement_period, settlement_rounding, "
                     "settlement_decimals, min_charge_seconds_per_run, min_charge_per_lifetime, "
                     "source, as_of, disk_settlement_period, bandwidth_settlement_period, "
                     "sustained_use_tiers, sustained_use_families, spot_price_basis, "
                     "quote_month_hours, usage_rounding FROM policy WHERE id = ?");
  q.bind(1, static_cast<int64_t>(id));
  if (!q.executeStep()) return std::nullopt;
  PolicyRowInfo p;
  p.id = q.getColumn(0).getInt64();
  const std::string at = "policy " + std::to_string(p.id) + ": ";
  p.provider = q.getColumn(1).getString();
  p.effective_from = instant_of(q.getColumn(2).getInt64());
  p.effective_to = optional_instant(q.getColumn(3));
  p.metering_granularity_seconds = q.getColumn(4).getInt();
  p.settlement_period = q.getColumn(5).getString();
  p.settlement_rounding = decode_rounding(q.getColumn(6).getString(), at + "settlement_rounding");
  p.settlement_decimals = q.getColumn(7).getInt();
  p.min_charge_seconds_per_run = q.getColumn(8).getInt();
  if (!q.getColumn(9).isNull()) {
    p.min_charge_per_lifetime =
        decode_decimal(q.getColumn(9).getString(), at + "min_charge_per_lifetime");
  }
  p.source = q.getColumn(10).getString();
  p.as_of = q.getColumn(11).getString();
  if (!q.getColumn(12).isNull()) p.disk_settlement_period = q.getColumn(12).getString();
  if (!q.getColumn(13).isNull()) p.bandwidth_settlement_period = q.getColumn(13).getString();
  p.sustained_use_tiers = q.getColumn(14).getString();
  p.sustained_use_families = q.getColumn(15).getString();
  p.spot_price_basis = q.getColumn(16).getString();
  p.quote_month_hours = q.getColumn(17).getInt();
  p.usage_rounding = q.getColumn(18).getString();
  return p;
}

std::optional<DiscountRowInfo> read_discount(store::Connection& db, std::int64_t id) {
  store::Statement q(db,
                     "SELECT id, provider, family, mode, min_months, max_months, factor, "
                     "effective_from, effective_to, source, as_of FROM discount WHERE id = ?");
  q.bind(1, static_cast<int64_t>(id));
  if (!q.executeStep()) return std::nullopt;
  DiscountRowInfo d;
  d.id = q.getColumn(0).getInt64();
  d.provider = q.getColumn(1).getString();
  d.family = q.getColumn(2).getString();
  d.mode = q.getColumn(3).getString();
  d.min_months = q.getColumn(4).getInt();
  d.max_months = q.getColumn(5).getInt();
  d.factor =
      decode_decimal(q.getColumn(6).getString(), "discount " + std::to_string(d.id) + ": factor");
  d.effective_from = instant_of(q.getColumn(7).getInt64());
  d.effective_to = optional_instant(q.getColumn(8));
  d.source = q.getColumn(9).getString();
  d.as_of = q.getColumn(10).getString();
  return d;
}

std::optional<CommitmentRowInfo> read_commitment(store::Connection& db, std::int64_t id) {
  store::Statement q(db,
                     "SELECT id, provider, subject_kind, subject, region, program, offering_class, "
                     "term_months, payment, upfront, hourly, currency, effective_from, "
                     "effective_to, source, as_of FROM commitment_price WHERE id = ?");
  q.bind(1, static_cast<int64_t>(id));
  if (!q.executeStep()) return std::nullopt;
  CommitmentRowInfo r;
  r.id = q.getColumn(0).getInt64();
  const std::string at = "commitment_price " + std::to_string(r.id) + ": ";
  r.provider = q.getColumn(1).getString();
  r.subject_kind = q.getColumn(2).getString();
  r.subject = q.getColumn(3).getString();
  r.region = q.getColumn(4).getString();
  r.program = q.getColumn(5).getString();
  r.offering_class = q.getColumn(6).getString();
  r.term_months = q.getColumn(7).getInt();
  r.payment = q.getColumn(8).getString();
  r.upfront = decode_decimal(q.getColumn(9).getString(), at + "upfront");
  r.hourly = decode_decimal(q.getColumn(10).getString(), at + "hourly");
  r.currency = decode_currency(q.getColumn(11).getString(), at + "currency");
  r.effective_from = instant_of(q.getColumn(12).getInt64());
  r.effective_to = optional_instant(q.getColumn(13));
  r.source = q.getColumn(14).getString();
  r.as_of = q.getColumn(15).getString();
  return r;
}

std::vector<EventInfo> read_events(store::Connection& db, const std::vector<std::int64_t>& seqs) {
  std::vector<EventInfo> out;
  store::Statement q(db,
                     "SELECT seq, account, id, time, type, instance, payload, source_file, "
                     "source_line, status FROM event WHERE seq = ?");
  for (std::int64_t seq : seqs) {
    q.reset();
    q.bind(1, static_cast<int64_t>(seq));
    if (!q.executeStep()) continue;
    EventInfo e;
    e.seq = q.getColumn(0).getInt64();
    e.account = q.getColumn(1).getString();
    e.id = q.getColumn(2).getString();
    e.time = instant_of(q.getColumn(3).getInt64());
    e.type = q.getColumn(4).getString();
    e.instance = q.getColumn(5).getString();
    e.payload = q.getColumn(6).getString();
    e.source_file = q.getColumn(7).getString();
    e.source_line = q.getColumn(8).getInt64();
    e.status = q.getColumn(9).getString();
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(),
            [](const EventInfo& a, const EventInfo& b) { return a.seq < b.seq; });
  return out;
}

BillingPolicy to_policy(const PolicyRowInfo& row) {
  BillingPolicy p;
  p.id = row.id;
  p.provider = row.provider;
  p.period = {row.effective_from, row.effective_to};
  p.metering_granularity_seconds = row.metering_granularity_seconds;
  const std::string at = "policy " + std::to_string(row.id) + ": ";
  const auto period = [&](const std::string& text, const char* column) {
    try {
      return parse_settlement_period(text);
    } catch (const ParseError& e) {
      throw StoreError(at + column + ": " + e.what());
    }
  };
  p.settlement_period = period(row.settlement_period, "settlement_period");
  if (row.disk_settlement_period) {
    p.disk_settlement_period = period(*row.disk_settlement_period, "disk_settlement_period");
  }
  if (row.bandwidth_settlement_period) {
    p.bandwidth_settlement_period =
        period(*row.bandwidth_settlement_period, "bandwidth_settlement_period");
  }
  p.settlement_rounding = row.settlement_rounding;
  p.settlement_decimals = row.settlement_decimals;
  try {
    p.usage_rounding = parse_usage_rounding(row.usage_rounding);
  } catch (const ParseError& e) {
    throw StoreError(at + "usage_rounding: " + e.what());
  }
  for (const auto& tier : split_list(row.sustained_use_tiers)) {
    p.sustained_use_tiers.push_back(decode_decimal(tier, at + "sustained_use_tiers"));
  }
  p.sustained_use_families = split_list(row.sustained_use_families);
  p.min_charge_seconds_per_run = row.min_charge_seconds_per_run;
  p.min_charge_per_lifetime = row.min_charge_per_lifetime;
  return p;
}

// Compares a re-derived amount with the stored one, recording a mismatch.
void expect_equal(ChargeExplanation& x, const char* what, Decimal derived, Decimal stored) {
  if (derived != stored) {
    x.mismatches.push_back(std::string(what) + ": re-derived " + derived.to_string() + ", stored " +
                           stored.to_string());
  }
}

// "→ half_up 2 → 7.55, rounding +0.005"
std::string rounding_step(const BillingPolicy& policy, Decimal billed, Decimal rounding) {
  return "→ " + std::string(to_string(policy.settlement_rounding)) + " " +
         std::to_string(policy.settlement_decimals) + " → " + billed.to_string() + ", rounding " +
         signed_text(rounding);
}

bool is_whole(Decimal d) {
  return d.round(0, RoundingMode::down) == d;
}

// The month's pay-as-you-go usage of a sustained-use line's kind (its instance type, or its GPU
// model for gpu_second lines), per hour end, from the account's settlement lines of eligible
// families, as replay counted it.
std::vector<rules::UsageHour> sustained_use_hours(Database& db, const ChargeLine& credit,
                                                  const BillingPolicy& policy) {
  store::Connection& sql = connection(db);
  // Each instance type's family and each price row's subject, read once.
  std::map<std::string, bool> eligible;
  store::Statement family_q(sql, "SELECT family FROM instance_type WHERE provider = ? AND id = ?");
  const auto eligible_type = [&](const std::string& type) {
    auto it = eligible.find(type);
    if (it == eligible.end()) {
      family_q.reset();
      family_q.bind(1, credit.provider);
      family_q.bind(2, type);
      const bool ok = family_q.executeStep() &&
                      policy.sustained_use_applies_to(family_q.getColumn(0).getString());
      it = eligible.emplace(type, ok).first;
    }
    return it->second;
  };
  std::map<std::int64_t, std::string> subjects;
  store::Statement subject_q(sql, "SELECT subject FROM price WHERE id = ?");
  const auto subject_of = [&](std::int64_t price_id) -> const std::string& {
    auto it = subjects.find(price_id);
    if (it == subjects.end()) {
      subject_q.reset();
      subject_q.bind(1, static_cast<int64_t>(price_id));
      it = subjects
               .emplace(price_id, subject_q.executeStep() ? subject_q.getColumn(0).getString()
                                                          : std::string())
               .first;
    }
    return it->second;
  };
  const Calendar calendar(provider_facts(sql, credit.provider)
                              .value_or(ProviderFacts{credit.provider, credit.provider, "UTC"})
                              .billing_time_zone);
  ChargeFilter same_account;
  same_account.account = credit.account;
  std::map<std::int64_t, rules::UsageHour> hours;
  for (const auto& c : query_charges(db, same_account)) {
    if (c.kind != "settlement" || c.mode != "payg" || c.provider != credit.provider ||
        c.region != credit.region || c.unit != credit.unit || c.currency != credit.currency) {
      continue;
    }
    if (!eligible_type(c.instance_type)) continue;
    const std::string subject =
        c.unit == "gpu_second" && c.price_id ? subject_of(*c.price_id) : c.instance_type;
    if (subject != credit.instance_type) continue;
    const std::int64_t quantity = c.quantity.truncate_to_int();
    for (std::int64_t i = 0; i < c.repeat; ++i) {
      const Instant end = calendar.next_hour(c.period_start + std::chrono::hours{i});
      if (end <= credit.period_start || end > credit.period_end) continue;
      rules::UsageHour& h = hours[end.time_since_epoch().count()];
      h.seconds += quantity;
      h.hourly_price = c.unit_price;
    }
  }
  std::vector<rules::UsageHour> out;
  for (const auto& [end, h] : hours) out.push_back(h);
  return out;
}

// The resource a charge row's component bills, for its settlement cycle.
MeteredResource resource_of_component(const std::string& component) {
  if (component == "system_disk" || component == "data_disk") return MeteredResource::disk;
  if (component == "bandwidth") return MeteredResource::bandwidth;
  return MeteredResource::compute;
}

// How a usage record is settled: rounded each hour (the step), or kept exact until its
// record of a longer period is rounded.
std::string settling_text(const BillingPolicy& policy, const std::string& component,
                          MeteredResource resource, const rules::Settlement& s) {
  const SettlementPeriod period = policy.settlement_period_of(resource);
  if (period == SettlementPeriod::hour) {
    return rounding_step(policy, s.billed.amount(), s.rounding.amount());
  }
  return "kept exact: " + component + " is settled per " + std::string(to_string(period)) +
         ", rounded once on that record";
}

// The stored line's exact and billed amounts and rounding against a re-derived settlement.
void expect_settlement(ChargeExplanation& x, const rules::Settlement& s) {
  expect_equal(x, "exact_amount", s.exact.amount(), x.line.exact_amount);
  expect_equal(x, "billed_amount", s.billed.amount(), x.line.billed_amount);
  expect_equal(x, "rounding", s.rounding.amount(), x.line.rounding);
}

// A usage record of a price per month (a disk's gb_month), prorated by the second over the
// calendar month: rules::usage_record_of_monthly_price.
void derive_monthly_price_record(ChargeExplanation& x, const BillingPolicy& policy,
                                 const std::string& ccy, std::int64_t month_seconds) {
  const ChargeLine& c = x.line;
  const std::int64_t quantity = c.quantity.truncate_to_int();
  const MeteredResource resource = resource_of_component(c.component);
  const auto s = rules::usage_record_of_monthly_price(Money(c.unit_price, c.currency), quantity,
                                                      month_seconds, policy, resource);
  x.arithmetic.push_back(c.unit_price.to_string() + ccy + "/GB-month × " +
                         std::to_string(quantity) + " GB-s / " + std::to_string(month_seconds) +
                         " s in the calendar month = " + s.exact.amount().to_string() + " " +
                         settling_text(policy, c.component, resource, s));
  const std::size_t before = x.mismatches.size();
  expect_settlement(x, s);
  x.derivation = x.mismatches.size() == before ? Derivation::verified : Derivation::mismatch;
}

// A usage record under usage_rounding down_carry: the exact amount is re-derived; the billed
// amount is exact + what was carried in − what is carried out (the row's note gives both), so
// it must be whole at settlement_decimals and differ from exact by less than one such unit.
void derive_carried_record(ChargeExplanation& x, const BillingPolicy& policy,
                           const std::string& ccy, std::int64_t seconds) {
  const ChargeLine& c = x.line;
  const Decimal exact = rules::usage_record(Money(c.unit_price, c.currency), seconds, policy,
                                            MeteredResource::compute)
                            .exact.amount();
  x.arithmetic.push_back(c.unit_price.to_string() + ccy + price_unit_text(c.price_unit) + " × " +
                         std::to_string(seconds) + (c.unit == "second" ? " s" : " " + c.unit) +
                         " / 3600 = " + exact.to_string() + " → rules::settle_carried: + carried " +
                         "in, down to " + std::to_string(policy.settlement_decimals) +
                         " decimals, the rest carried to the next cycle → " +
                         c.billed_amount.to_string() + ", rounding " + signed_text(c.rounding));
  const std::size_t before = x.mismatches.size();
  expect_equal(x, "exact_amount", exact, c.exact_amount);
  expect_equal(x, "rounding", c.billed_amount - exact, c.rounding);
  expect_equal(x, "billed_amount",
               c.billed_amount.round(policy.settlement_decimals, RoundingMode::down),
               c.billed_amount);
  Decimal step(1);
  for (int i = 0; i < policy.settlement_decimals; ++i) {
    step = Decimal::divide(step, 10, Decimal::kScale, RoundingMode::half_even);
  }
  const Decimal off = c.rounding.sign() < 0 ? -c.rounding : c.rounding;
  if (!(off < step)) {
    x.mismatches.push_back("rounding " + c.rounding.to_string() + " is not less than one unit " +
                           step.to_string() + " of the carry");
  }
  x.derivation = x.mismatches.size() == before ? Derivation::verified : Derivation::mismatch;
}

// A per-second line of an hourly price: one usage record, rounded as the policy settles it.
void derive_usage_record(ChargeExplanation& x, const BillingPolicy& policy,
                         const std::string& ccy) {
  const ChargeLine& c = x.line;
  const std::int64_t seconds = c.quantity.truncate_to_int();
  const MeteredResource resource = resource_of_component(c.component);
  const SettlementPeriod period = policy.settlement_period_of(resource);
  if (policy.usage_rounding == UsageRounding::down_carry && period == SettlementPeriod::hour) {
    derive_carried_record(x, policy, ccy, seconds);
    return;
  }
  const auto s = rules::usage_record(Money(c.unit_price, c.currency), seconds, policy, resource);
  x.arithmetic.push_back(c.unit_price.to_string() + ccy + price_unit_text(c.price_unit) + " × " +
                         std::to_string(seconds) + (c.unit == "second" ? " s" : " " + c.unit) +
                         " / 3600 = " + s.exact.amount().to_string() + " " +
                         settling_text(policy, c.component, resource, s));
  const std::size_t before = x.mismatches.size();
  expect_settlement(x, s);
  // Metered seconds come in whole units of the policy's granularity (per GPU / GB / Mbps).
  const std::int64_t unit = std::max(1, policy.metering_granularity_seconds);
  if (seconds % unit != 0) {
    x.mismatches.push_back("quantity " + std::to_string(seconds) + " " + c.unit +
                           " is not whole metering units of " + std::to_string(unit) + " s");
  }
  x.derivation = x.mismatches.size() == before ? Derivation::verified : Derivation::mismatch;
}

// A prepaid order or its renewal: whole months at the monthly price, term discount applied.
void derive_prepaid_order(ChargeExplanation& x, const BillingPolicy& policy,
                          const std::string& ccy) {
  const ChargeLine& c = x.line;
  const int months = static_cast<int>(c.quantity.truncate_to_int());
  std::optional<DiscountRow> discount;
  if (x.discount) {
    discount = DiscountRow{};
    discount->id = x.discount->id;
    discount->provider = x.discount->provider;
    discount->family = x.discount->family;
    discount->min_months = x.discount->min_months;
    discount->max_months = x.discount->max_months;
    discount->factor = x.discount->factor;
  }
  const auto o = rules::prepaid_order(Money(c.unit_price, c.currency), months,
                                      discount ? &*discount : nullptr, policy);
  const Decimal exact = (o.list * o.factor).amount();
  std::string text = c.unit_price.to_string() + ccy + "/month × " + std::to_string(months) +
                     (months == 1 ? " month = " : " months = ") + o.list.amount().to_string();
  if (discount) text += " × term discount " + o.factor.to_string() + " = " + exact.to_string();
  text += " " + rounding_step(policy, o.charged.amount(), o.charged.amount() - exact);
  x.arithmetic.push_back(text);
  const std::size_t before = x.mismatches.size();
  expect_equal(x, "exact_amount", exact, c.exact_amount);
  expect_equal(x, "billed_amount", o.charged.amount(), c.billed_amount);
  expect_equal(x, "rounding", o.charged.amount() - exact, c.rounding);
  x.derivation = x.mismatches.size() == before ? Derivation::verified : Derivation::mismatch;
}

// An upgrade fee: unit_price is the monthly price difference (new − old), quantity the seconds
// remaining to expiry; the factor is the term discount of the months left.
void derive_upgrade(ChargeExplanation& x, const BillingPolicy& policy, const std::string& ccy) {
  const ChargeLine& c = x.line;
  const std::int64_t remaining = c.quantity.truncate_to_int();
  const Decimal factor = x.discount ? x.discount->factor : Decimal(1);
  const auto u = rules::upgrade_charge(Money::zero(c.currency), Money(c.unit_price, c.currency),
                                       remaining, factor, policy);
  std::string text = c.unit_price.to_string() + ccy + "/month (new − old monthly price) × " +
                     std::to_string(remaining) +
                     " s remaining = " + u.remaining_months.to_string() +
                     " months (days / (365/12))";
  if (x.discount) text += " × term discount " + factor.to_string();
  text += " = " + u.exact.amount().to_string() + " " +
          rounding_step(policy, u.fee.amount(), (u.fee - u.exact).amount());
  x.arithmetic.push_back(text);
  const std::size_t before = x.mismatches.size();
  expect_equal(x, "exact_amount", u.exact.amount(), c.exact_amount);
  expect_equal(x, "billed_amount", u.fee.amount(), c.billed_amount);
  x.derivation = x.mismatches.size() == before ? Derivation::verified : Derivation::mismatch;
}

// An upgrade fee by days of the order (prepaid_lifecycle.upgrade_fee term_days,
// rules::upgrade_charge_term_days): unit_price is the price difference per day of the order,
// quantity the days remaining; the factor is the term discount of the months left.
void derive_upgrade_days(ChargeExplanation& x, const BillingPolicy& policy,
                         const std::string& ccy) {
  const ChargeLine& c = x.line;
  const Decimal factor = x.discount ? x.discount->factor : Decimal(1);
  const Money exact(c.unit_price * c.quantity * factor, c.currency);
  const Money fee = exact.round(policy.settlement_decimals, policy.settlement_rounding);
  std::string text = c.unit_price.to_string() + ccy +
                     "/day (new − old monthly price / the order's days) × " +
                     c.quantity.to_string() + " days remaining";
  if (x.discount) text += " × term discount " + factor.to_string();
  text += " = " + exact.amount().to_string() + " " +
          rounding_step(policy, fee.amount(), (fee - exact).amount());
  x.arithmetic.push_back(text);
  const std::size_t before = x.mismatches.size();
  expect_equal(x, "exact_amount", exact.amount(), c.exact_amount);
  expect_equal(x, "billed_amount", fee.amount(), c.billed_amount);
  x.derivation = x.mismatches.size() == before ? Derivation::verified : Derivation::mismatch;
}

// One settlement record of a day or month: the exact usage records of the component in
// the cycle, rounded once.
void derive_cycle_rounding(ChargeExplanation& x, const BillingPolicy& policy,
                           const std::string& ccy, const std::optional<Decimal>& cycle_usage) {
  const ChargeLine& c = x.line;
  const auto s = rules::settle_cycle(Money(*cycle_usage, c.currency), policy);
  x.arithmetic.push_back("usage records of " + c.component + " in the cycle add up to " +
                         cycle_usage->to_string() + ccy + " " +
                         rounding_step(policy, s.billed.amount(), s.rounding.amount()));
  const std::size_t before = x.mismatches.size();
  expect_equal(x, "unit_price (the cycle's exact usage)", *cycle_usage, c.unit_price);
  expect_equal(x, "billed_amount", s.rounding.amount(), c.billed_amount);
  x.derivation = x.mismatches.size() == before ? Derivation::verified : Derivation::mismatch;
}

// A sustained-use credit: the month's use of the kind, stacked into inferred instances, at the
// policy's tiers.
void derive_sustained_use(ChargeExplanation& x, const BillingPolicy& policy,
                          const std::optional<std::vector<rules::UsageHour>>& sustained_hours) {
  const ChargeLine& c = x.line;
  const std::int64_t month = (c.period_end - c.period_start).count();
  const auto su = rules::sustained_use_credit(*sustained_hours, month, policy.sustained_use_tiers);
  std::int64_t used = 0;
  for (const auto& h : *sustained_hours) used += h.seconds;
  const Money exact(-su.credit, c.currency);
  const Money billed = exact.round(policy.settlement_decimals, policy.settlement_rounding);
  std::string text = "usage lines of " + c.instance_type + " in " + c.region +
                     " this month: " + std::to_string(used) + " " + c.unit + " in " +
                     std::to_string(sustained_hours->size()) + " hours, " +
                     std::to_string(su.inferred.size()) + " inferred instance(s) of ";
  for (std::size_t k = 0; k < su.inferred.size(); ++k) {
    text += (k ? ", " : "") + std::to_string(su.inferred[k]) + " s";
  }
  text += " in a month of " + std::to_string(month) + " s; credit " + exact.amount().to_string() +
          " " + rounding_step(policy, billed.amount(), (billed - exact).amount());
  x.arithmetic.push_back(text);
  const std::size_t before = x.mismatches.size();
  expect_equal(x, "exact_amount", exact.amount(), c.exact_amount);
  expect_equal(x, "billed_amount", billed.amount(), c.billed_amount);
  expect_equal(x, "quantity", Decimal(used), c.quantity);
  x.derivation = x.mismatches.size() == before ? Derivation::verified : Derivation::mismatch;
}

// The lifetime minimum tops the instance's settlements up to the policy's minimum.
void derive_minimum_charge(ChargeExplanation& x, const BillingPolicy& policy,
                           const std::string& ccy, const std::optional<Decimal>& lifetime_billed) {
  const ChargeLine& c = x.line;
  const Decimal minimum = *policy.min_charge_per_lifetime;
  const Decimal exact = std::max(Decimal{}, minimum - *lifetime_billed);
  x.arithmetic.push_back("minimum per instance lifetime " + minimum.to_string() + ccy +
                         " − settlements billed " + lifetime_billed->to_string() + " = " +
                         exact.to_string());
  const std::size_t before = x.mismatches.size();
  expect_equal(x, "exact_amount", exact, c.exact_amount);
  expect_equal(x, "billed_amount", exact, c.billed_amount);
  x.derivation = x.mismatches.size() == before ? Derivation::verified : Derivation::mismatch;
}

// A covered row bills the on-demand usage record of the seconds it covers, negated
// (rules::usage_record).
void derive_covered_offset(ChargeExplanation& x, const std::string& ccy) {
  const ChargeLine& c = x.line;
  const std::int64_t seconds = c.quantity.truncate_to_int();
  const auto s = rules::usage_record(Money(c.unit_price, c.currency), seconds, to_policy(*x.policy),
                                     MeteredResource::compute);
  x.arithmetic.push_back("covered: −(" + c.unit_price.to_string() + ccy + "/h × " +
                         std::to_string(seconds) + " " + c.unit +
                         " / 3600 = " + s.exact.amount().to_string() + ", billed " +
                         s.billed.amount().to_string() +
                         "): the on-demand usage record of the seconds the commitment covers");
  expect_equal(x, "exact_amount", -s.exact.amount(), c.exact_amount);
  expect_equal(x, "billed_amount", -s.billed.amount(), c.billed_amount);
  expect_equal(x, "unit_price", x.price->amount, c.unit_price);
}

// A savings plan's row (engine/replay/replay_sim_savings.cpp). Its hourly amount is its commit
// event's; the catalog row is the rate of the covered type (covered rows) or the plan's first
// rate row (the others). Purchase: amount × the term's hours when all upfront, else 0; fee: the
// amount, every hour (no upfront); covered: the on-demand record negated, its effective cost
// that plus the covered seconds at the plan's rate; unused: the amount the hour left.
void derive_savings_plan_amounts(ChargeExplanation& x, const CommitmentRowInfo& k,
                                 const std::string& ccy) {
  const ChargeLine& c = x.line;
  std::optional<Decimal> amount;
  for (const EventInfo& e : x.events) {
    if (e.type == "commit") amount = event_amount(e.payload);
  }
  const std::int64_t term_hours = commitment_term_hours(k.term_months);
  if ((c.kind == "commitment_purchase" || c.kind == "commitment_fee") && !amount) {
    x.arithmetic.push_back(c.kind + ": the commit event's amount is not recorded");
    x.derivation = Derivation::not_derivable;
    return;
  }
  if (c.kind == "commitment_purchase") {
    const bool all_upfront = k.payment == "all_upfront";
    const Decimal exact = all_upfront ? *amount * term_hours : Decimal{};
    x.arithmetic.push_back(all_upfront
                               ? "upfront: the plan's " + amount->to_string() + ccy + "/h × " +
                                     std::to_string(term_hours) + " h = " + exact.to_string() + ccy
                               : "no upfront: 0 at purchase; the plan's " + amount->to_string() +
                                     ccy + " is billed every hour of the term");
    expect_equal(x, "exact_amount", exact, c.exact_amount);
    expect_equal(x, "billed_amount", exact, c.billed_amount);
  } else if (c.kind == "commitment_fee") {
    x.arithmetic.push_back("the plan's hourly commitment " + amount->to_string() + ccy +
                           ", billed for the hour, used or not");
    expect_equal(x, "exact_amount", *amount, c.exact_amount);
    expect_equal(x, "billed_amount", *amount, c.billed_amount);
  } else if (c.kind == "commitment_covered" && x.policy && x.price) {
    derive_covered_offset(x, ccy);
    const std::int64_t seconds = c.quantity.truncate_to_int();
    const Decimal rate =
        Decimal::divide(k.upfront, term_hours, 12, RoundingMode::half_even) + k.hourly;
    const Decimal spent = Decimal::divide(rate * seconds, 3600, 12, RoundingMode::half_even);
    x.arithmetic.push_back("effective cost " + c.billed_amount.to_string() + " + " +
                           rate.to_string() + ccy + "/h × " + std::to_string(seconds) +
                           " s / 3600 = " + (c.billed_amount + spent).to_string() + ccy +
                           ": the covered seconds at the plan's rate, from its commitment");
    if (c.effective_amount)
      expect_equal(x, "effective_amount", c.billed_amount + spent, *c.effective_amount);
  } else if (c.kind == "commitment_unused") {
    x.arithmetic.push_back("unused: " + c.quantity.to_string() + ccy +
                           " of the plan's hourly commitment; nothing billed");
    expect_equal(x, "billed_amount", Decimal{}, c.billed_amount);
    if (c.effective_amount) expect_equal(x, "effective_amount", c.quantity, *c.effective_amount);
  } else {
    x.arithmetic.push_back(c.kind + ": not re-derivable (no policy or price row)");
    x.derivation = Derivation::not_derivable;
  }
}

// A commitment's row (engine/replay/replay_sim_commit.cpp): its purchase is count × the upfront,
// its hourly fee count × the hourly fee, a covered row the on-demand usage record of the seconds
// it covers, negated (rules::usage_record), an unused row bills nothing; each row's effective
// (amortised) cost is its share of the commitment's hour.
void derive_commitment_amounts(ChargeExplanation& x, const CommitmentRowInfo& k,
                               const std::string& ccy) {
  const ChargeLine& c = x.line;
  if (c.kind == "commitment_purchase" || c.kind == "commitment_fee") {
    const bool purchase = c.kind == "commitment_purchase";
    const Decimal each = purchase ? k.upfront : k.hourly;
    const Decimal exact = each * c.quantity;
    x.arithmetic.push_back(std::string(purchase ? "upfront " : "hourly fee ") + each.to_string() +
                           ccy + " × " + c.quantity.to_string() + " = " + exact.to_string() + ccy +
                           (purchase ? " at purchase, amortised over the term's " +
                                           std::to_string(commitment_term_hours(k.term_months)) +
                                           " h on its covered and unused rows"
                                     : " for the hour, used or not"));
    expect_equal(x, "unit_price", each, c.unit_price);
    expect_equal(x, "exact_amount", exact, c.exact_amount);
    expect_equal(x, "billed_amount", exact, c.billed_amount);
  } else if (c.kind == "commitment_covered" && x.policy && x.price) {
    derive_covered_offset(x, ccy);
  } else if (c.kind == "commitment_unused") {
    x.arithmetic.push_back("unused: " + c.quantity.to_string() + " " + c.unit +
                           " of the hour's commitment; nothing billed");
    expect_equal(x, "billed_amount", Decimal{}, c.billed_amount);
  } else {
    x.arithmetic.push_back(c.kind + ": not re-derivable (no policy or price row)");
    x.derivation = Derivation::not_derivable;
    return;
  }
  if (c.effective_amount) {
    x.arithmetic.push_back("effective (amortised) cost " + c.effective_amount->to_string() + ccy +
                           ": upfront / " + std::to_string(commitment_term_hours(k.term_months)) +
                           " h + " + k.hourly.to_string() + ccy + "/h, the hour's share by units");
  }
}

void derive_commitment(ChargeExplanation& x, const std::string& ccy) {
  const ChargeLine& c = x.line;
  if (!x.commitment) {
    x.arithmetic.push_back("no commitment row: not re-derivable");
    x.derivation = Derivation::not_derivable;
    return;
  }
  const CommitmentRowInfo& k = *x.commitment;
  if (k.program == "savings_plan") {
    x.rule = "savings plan (" + k.offering_class + ", " + std::to_string(k.term_months) +
             " months, " + k.payment +
             "): after reserved instances, EC2 Instance plans then Compute plans pay for the "
             "hour's usage at their rates, highest savings percentage first, until the hour's "
             "commitment is spent; use it or lose it";
    x.rule_source = "commitment_price " + std::to_string(k.id) + ": " + k.source +
                    "; docs.aws.amazon.com/savingsplans/latest/userguide/sp-applying.html";
  } else {
    x.rule = "commitment (" + k.program + (k.offering_class.empty() ? "" : " " + k.offering_class) +
             ", " + std::to_string(k.term_months) + " months, " + k.payment +
             "): covers up to count × 3600 s of matching usage per clock hour, use it or lose it";
    x.rule_source =
        "commitment_price " + std::to_string(k.id) + ": " + k.source +
        (k.provider == "aws"
             ? "; awsdocs/amazon-ec2-user-guide@096556437fd7fdc573353d1b0e7db0909c4708f4:"
               "doc_source/concepts-reserved-instances-application.md"
             : "");
  }
  const std::size_t before = x.mismatches.size();
  x.derivation = Derivation::verified;
  if (k.program == "savings_plan") {
    derive_savings_plan_amounts(x, k, ccy);
  } else {
    derive_commitment_amounts(x, k, ccy);
  }
  if (x.derivation != Derivation::not_derivable) {
    x.derivation = x.mismatches.size() == before ? Derivation::verified : Derivation::mismatch;
  }
  if (!c.note.empty()) x.arithmetic.push_back("note: " + c.note);
}

// Refunds depend on more than the row holds (the paid order, its purchase time); show what
// the row states and its note.
void describe_not_derivable(ChargeExplanation& x, const BillingPolicy& policy,
                            const std::string& ccy) {
  const ChargeLine& c = x.line;
  x.arithmetic.push_back(
      c.kind + ": " + c.quantity.to_string() + " " + c.unit + " at " + c.unit_price.to_string() +
      ccy + price_unit_text(c.price_unit) + " = " + c.exact_amount.to_string() + " exact " +
      rounding_step(policy, c.billed_amount, c.rounding) + " (not re-derivable from the row alone" +
      (c.note.empty() ? "" : ": " + c.note) + ")");
  x.derivation = Derivation::not_derivable;
}

// The rules:: function behind a charge line and the kind of rule it applies, with the policy
// fields that decide it.
std::string rule_name(const ChargeLine& c, const BillingPolicy& policy, const PolicyRowInfo& row) {
  const std::string rounding = std::string(to_string(policy.settlement_rounding)) + " " +
                               std::to_string(policy.settlement_decimals);
  if (c.kind == "settlement" && c.price_unit == "gb_month") {
    return "rules::usage_record_of_monthly_price — a price per GB-month prorated by the second "
           "over the seconds of the calendar month (" +
           std::string(to_string(policy.settlement_period_of(resource_of_component(c.component)))) +
           " settlement, rounded " + rounding + ")";
  }
  if (c.kind == "settlement") {
    const SettlementPeriod period = policy.settlement_period_of(resource_of_component(c.component));
    std::string r =
        "rules::metered_seconds + rules::usage_record — metering (units of " +
        std::to_string(policy.metering_granularity_seconds) + " s" +
        (policy.min_charge_seconds_per_run > 0
             ? ", at least " + std::to_string(policy.min_charge_seconds_per_run) + " s a run"
             : std::string()) +
        ") and settlement (" +
        (period == SettlementPeriod::hour && policy.usage_rounding == UsageRounding::down_carry
             ? "each hour rounded down to " + std::to_string(policy.settlement_decimals) +
                   " decimals, the rest carried to the next hour: rules::settle_carried, "
                   "usage_rounding down_carry"
         : period == SettlementPeriod::hour ? "each hour rounded " + rounding
                                            : "hourly record kept exact, rounded " + rounding +
                                                  " once per " + std::string(to_string(period))) +
        ")";
    if (c.mode == "spot") {
      r += "; rules::spot_priced_piece — spot price within the hour: " + row.spot_price_basis;
    }
    return r;
  }
  if (c.kind == "cycle_rounding") {
    return "rules::settle_cycle — rounding and truncation: one settlement record per cycle, "
           "rounded " +
           rounding;
  }
  if (c.kind == "sustained_use_discount") {
    return "rules::sustained_use_credit — sustained use discount per calendar month, tiers " +
           row.sustained_use_tiers;
  }
  if (c.kind == "minimum_charge") return "minimum charge per instance lifetime";
  if (c.kind == "interruption_credit") {
    return "spot interruption: a spot instance the provider interrupts within the policy's "
           "spot_interrupted_free_seconds of its launch is not charged for its compute";
  }
  if (c.kind == "prepaid_order" || c.kind == "renewal" || c.kind == "auto_renewal") {
    return "rules::prepaid_order — prepaid order with the term discount, rounded " + rounding;
  }
  if (c.kind == "upgrade" && c.unit == "day") {
    return "rules::upgrade_charge_term_days — upgrade fee: the difference per day of the order × "
           "the days left";
  }
  if (c.kind == "upgrade") return "rules::upgrade_charge — upgrade fee";
  return c.kind;
}

// A line priced per month (a disk's gb_month) is prorated over the seconds of its calendar month
// in the provider's billing zone: those seconds (0 for any other line).
std::int64_t month_seconds_of(store::Connection& sql, const ChargeLine& c) {
  if (c.price_unit != "gb_month") return 0;
  const Calendar calendar(provider_facts(sql, c.provider)
                              .value_or(ProviderFacts{c.provider, c.provider, "UTC"})
                              .billing_time_zone);
  return (calendar.next_month_start(c.period_start) - calendar.month_start(c.period_start)) /
         std::chrono::seconds(1);
}

void derive(ChargeExplanation& x, const std::optional<Decimal>& lifetime_billed,
            const std::optional<Decimal>& cycle_usage,
            const std::optional<std::vector<rules::UsageHour>>& sustained_hours,
            std::int64_t month_seconds) {
  const ChargeLine& c = x.line;
  const std::string ccy = " " + c.currency.to_string();
  if (c.kind.starts_with("commitment_")) {
    derive_commitment(x, ccy);
    return;
  }
  if (!x.policy) {
    x.arithmetic.push_back("no policy row: the rounding cannot be re-derived");
    return;
  }
  const BillingPolicy policy = to_policy(*x.policy);
  const bool per_second_hourly = per_second_of_hourly(c.unit, c.price_unit);
  const bool order = c.unit == "month" && c.price_unit == "month" &&
                     (c.kind == "prepaid_order" || c.kind == "renewal" || c.kind == "auto_renewal");
  x.rule = rule_name(c, policy, *x.policy);
  x.rule_source = "policy " + std::to_string(x.policy->id) + ": " + x.policy->source;
  if (c.kind == "settlement" && c.price_unit == "gb_month" && c.unit == "gb_second" &&
      month_seconds > 0 && is_whole(c.quantity)) {
    derive_monthly_price_record(x, policy, ccy, month_seconds);
  } else if (per_second_hourly && is_whole(c.quantity) && c.kind != "minimum_charge" &&
             c.kind != "sustained_use_discount") {
    derive_usage_record(x, policy, ccy);
  } else if (order && is_whole(c.quantity) && c.quantity.sign() > 0) {
    derive_prepaid_order(x, policy, ccy);
  } else if (c.kind == "upgrade" && c.unit == "second" && c.price_unit == "month" &&
             is_whole(c.quantity)) {
    derive_upgrade(x, policy, ccy);
  } else if (c.kind == "upgrade" && c.unit == "day" && c.price_unit == "day" &&
             is_whole(c.quantity)) {
    derive_upgrade_days(x, policy, ccy);
  } else if (c.kind == "cycle_rounding" && cycle_usage) {
    derive_cycle_rounding(x, policy, ccy, cycle_usage);
  } else if (c.kind == "sustained_use_discount" && sustained_hours) {
    derive_sustained_use(x, policy, sustained_hours);
  } else if (c.kind == "minimum_charge" && policy.min_charge_per_lifetime && lifetime_billed) {
    derive_minimum_charge(x, policy, ccy, lifetime_billed);
  } else {
    describe_not_derivable(x, policy, ccy);
    return;
  }
  // How replay got the quantity (metering, minimums) or the discount, as it recorded it.
  if (!c.note.empty()) x.arithmetic.push_back("note: " + c.note);
}

}  // namespace

std::string_view to_string(Derivation d) noexcept {
  switch (d) {
    case Derivation::verified:
      return "verified";
    case Derivation::mismatch:
      return "mismatch";
    case Derivation::not_derivable:
      return "not_derivable";
  }
  return "not_derivable";
}

// The row of the price table in force at `t` in `region` for the key (provider, subject, mode)
// of row `used`: a row for the region wins over an every-region row, then the latest
// effective_from (Catalog::price_at's rule).
std::optional<std::int64_t> row_in_force(store::Connection& db, std::int64_t used,
                                         const std::string& region, Instant t) {
  store::Statement q(db,
                     "SELECT p.id FROM price u JOIN price p ON p.provider = u.provider AND "
                     "p.subject_kind = u.subject_kind AND p.subject = u.subject AND "
                     "p.mode = u.mode AND (p.region = ?2 OR p.region = '') WHERE u.id = ?1 "
                     "AND p.effective_from <= ?3 AND (p.effective_to IS NULL OR "
                     "p.effective_to > ?3) ORDER BY p.region = '', p.effective_from DESC LIMIT 1");
  q.bind(1, static_cast<int64_t>(used));
  q.bind(2, region);
  q.bind(3, static_cast<int64_t>(t.time_since_epoch().count()));
  if (!q.executeStep()) return std::nullopt;
  return q.getColumn(0).getInt64();
}

// Rows of the used row's key that are in force for part of the line's period and would price it
// there now: each is in force (by the rule above) at the later of the line's start and its own
// effective_from. One sentence per row.
std::vector<std::string> superseding_rows(store::Connection& db, std::int64_t used,
                                          const ChargeLine& c) {
  std::vector<std::string> out;
  const auto seconds = [](Instant t) { return static_cast<int64_t>(t.time_since_epoch().count()); };
  store::Statement q(db,
                     "SELECT p.id, p.effective_from FROM price u JOIN price p ON "
                     "p.provider = u.provider AND p.subject_kind = u.subject_kind AND "
                     "p.subject = u.subject AND p.mode = u.mode AND (p.region = ?2 OR "
                     "p.region = '') WHERE u.id = ?1 AND p.id <> ?1 AND p.effective_from < ?4 "
                     "AND (p.effective_to IS NULL OR p.effective_to > ?3) ORDER BY "
                     "p.effective_from, p.id");
  q.bind(1, static_cast<int64_t>(used));
  q.bind(2, c.region);
  q.bind(3, seconds(c.period_start));
  q.bind(4, seconds(c.period_end));
  std::vector<std::pair<std::int64_t, std::int64_t>> candidates;
  while (q.executeStep()) {
    candidates.emplace_back(q.getColumn(0).getInt64(), q.getColumn(1).getInt64());
  }
  for (const auto& [id, from] : candidates) {
    const Instant at = std::max(c.period_start, Instant{std::chrono::seconds{from}});
    if (row_in_force(db, used, c.region, at) != id) continue;
    out.push_back("price row " + std::to_string(id) + " is in force from " + format_instant(at) +
                  " within this line instead of row " + std::to_string(used) +
                  " (imported after it was settled): `gpubill rebuild --account " + c.account +
                  "` would re-price it");
  }
  return out;
}

// The catalog rows and events a charge line names, each missing one a mismatch.
void read_rows(Database& db, ChargeExplanation& x) {
  const ChargeLine& c = x.line;
  try {
    auto& sql = connection(db);
    if (c.price_id) {
      x.price = read_price(sql, price_table_for(c.component), *c.price_id);
      if (!x.price) {
        x.mismatches.push_back("price row " + std::string(price_table_for(c.component)) + " " +
                               std::to_string(*c.price_id) + " is not in the catalog");
      }
    }
    if (x.price && x.price->table == "price") {
      x.superseded = superseding_rows(sql, x.price->id, c);
    }
    if (c.policy_id) {
      x.policy = read_policy(sql, *c.policy_id);
      if (!x.policy) {
        x.mismatches.push_back("policy row " + std::to_string(*c.policy_id) +
                               " is not in the catalog");
      }
    }
    if (c.discount_id && c.kind.starts_with("commitment_")) {
      x.commitment = read_commitment(sql, *c.discount_id);
      if (!x.commitment) {
        x.mismatches.push_back("commitment_price row " + std::to_string(*c.discount_id) +
                               " is not in the catalog");
      }
    } else if (c.discount_id) {
      x.discount = read_discount(sql, *c.discount_id);
      if (!x.discount) {
        x.mismatches.push_back("discount row " + std::to_string(*c.discount_id) +
                               " is not in the catalog");
      }
    }
    x.events = read_events(sql, c.event_seqs);
    for (std::int64_t seq : c.event_seqs) {
      const bool found = std::any_of(x.events.begin(), x.events.end(),
                                     [&](const EventInfo& e) { return e.seq == seq; });
      if (!found) x.mismatches.push_back("event " + std::to_string(seq) + " is not recorded");
    }
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("explaining charge ") + std::to_string(c.id) + ": " + e.what());
  }
}

ChargeExplanation explain_charge(Database& db, std::int64_t charge_id) {
  auto line = find_charge(db, charge_id);
  if (!line) throw NotFound("no charge with id " + std::to_string(charge_id));
  ChargeExplanation x;
  x.line = std::move(*line);
  const ChargeLine& c = x.line;
  read_rows(db, x);

  // The sum of `amount` over the charges of the same instance that `take` selects.
  const auto instance_sum = [&](auto take, auto amount) {
    ChargeFilter same_instance;
    same_instance.account = c.account;
    same_instance.instance = c.instance;
    Decimal sum;
    for (const auto& other : query_charges(db, same_instance)) {
      if (other.currency == c.currency && take(other)) sum += amount(other);
    }
    return sum;
  };
  // A lifetime minimum is re-derived from the instance's settlements (with the roundings of
  // their cycles, when the policy settles per day or month).
  std::optional<Decimal> lifetime_billed;
  if (c.kind == "minimum_charge") {
    lifetime_billed = instance_sum(
        [](const ChargeLine& o) { return o.kind == "settlement" || o.kind == "cycle_rounding"; },
        [](const ChargeLine& o) { return o.total_billed; });
  }
  // A cycle's rounding is re-derived from the usage records of its meter in the cycle.
  std::optional<Decimal> cycle_usage;
  if (c.kind == "cycle_rounding") {
    cycle_usage = instance_sum(
        [&](const ChargeLine& o) {
          return o.kind == "settlement" && o.component == c.component &&
                 o.instance_type == c.instance_type && o.period_start >= c.period_start &&
                 o.period_end <= c.period_end;
        },
        [](const ChargeLine& o) { return o.total_exact; });
  }
  // A sustained-use credit is re-derived from the month's usage lines of its kind, hour by hour.
  std::optional<std::vector<rules::UsageHour>> sustained_hours;
  if (c.kind == "sustained_use_discount" && x.policy) {
    sustained_hours = sustained_use_hours(db, c, to_policy(*x.policy));
  }
  derive(x, lifetime_billed, cycle_usage, sustained_hours, month_seconds_of(connection(db), c));

  // The row's own arithmetic.
  if (c.billed_amount != c.exact_amount + c.rounding) {
    x.mismatches.push_back("billed_amount " + c.billed_amount.to_string() + " ≠ exact_amount " +
                           c.exact_amount.to_string() + " + rounding " + signed_text(c.rounding));
  }
  if (c.repeat > 1) {
    x.arithmetic.push_back("× " + std::to_string(c.repeat) + " identical hourly settlements = " +
                           c.total_billed.to_string() + " billed (" + c.total_exact.to_string() +
                           " exact, rounding " + signed_text(c.total_rounding()) + ")");
    const std::int64_t length = c.settlement_seconds();
    if (length <= 0 || length > kSecondsPerHour) {
      x.mismatches.push_back("a run of " + std::to_string(c.repeat) + " settlements cannot span " +
                             std::to_string((c.period_end - c.period_start).count()) + " s");
    }
  }
  expect_equal(x, "total_exact (exact_amount × repeat)", c.exact_amount * c.repeat, c.total_exact);
  expect_equal(x, "total_billed (billed_amount × repeat)", c.billed_amount * c.repeat,
               c.total_billed);

  // The price row: its amount is the unit price when it prices the same unit.
  if (x.price) {
    if (x.price->currency != c.currency) {
      x.mismatches.push_back("price row currency " + x.price->currency.to_string() +
                             " ≠ charge currency " + c.currency.to_string());
    } else if (x.price->unit == c.price_unit && x.price->amount != c.unit_price &&
               (c.kind == "settlement" || c.kind == "prepaid_order" || c.kind == "renewal" ||
                c.kind == "auto_renewal")) {
      // (An upgrade's unit price is a difference of two prices; a refund's is its amount.)
      x.mismatches.push_back("unit_price " + c.unit_price.to_string() + " ≠ price row amount " +
                             x.price->amount.to_string());
    }
  }
  if (x.policy && x.line.provider != "" && x.policy->provider != x.line.provider) {
    x.mismatches.push_back("policy row " + std::to_string(x.policy->id) + " is " +
                           x.policy->provider + "'s, the charge is " + x.line.provider + "'s");
  }
  return x;
}

}  // namespace gpubill
