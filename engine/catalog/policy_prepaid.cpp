// A policy row's prepaid lifecycle rules: names of their values, the catalog JSON object and the
// database column (policy_prepaid.hpp).
#include "catalog/policy_prepaid.hpp"

#include "gpubill/base/errors.hpp"

namespace gpubill {

namespace {

template <typename Enum, std::size_t N>
Enum parse_named(std::string_view text, const std::pair<Enum, std::string_view> (&names)[N],
                 std::string_view what) {
  std::string expected;
  for (const auto& [value, name] : names) {
    if (name == text) return value;
    expected += (expected.empty() ? "" : ", ") + std::string(name);
  }
  throw ParseError("unknown " + std::string(what) + " '" + std::string(text) + "' (expected " +
                   expected + ")");
}

template <typename Enum, std::size_t N>
std::string_view name_of(Enum v, const std::pair<Enum, std::string_view> (&names)[N]) noexcept {
  for (const auto& [value, name] : names) {
    if (value == v) return name;
  }
  return names[0].second;
}

constexpr std::pair<PrepaidTermEnd, std::string_view> kTermEnd[] = {
    {PrepaidTermEnd::same_time, "same_time"},
    {PrepaidTermEnd::next_midnight, "next_midnight"},
    {PrepaidTermEnd::day_end, "day_end"}};
constexpr std::pair<ReturnUsedValue, std::string_view> kUsedValue[] = {
    {ReturnUsedValue::months_then_payg, "months_then_payg"},
    {ReturnUsedValue::pro_rata_hours, "pro_rata_hours"},
    {ReturnUsedValue::pro_rata_days, "pro_rata_days"}};
constexpr std::pair<DowngradeRefund, std::string_view> kDowngrade[] = {
    {DowngradeRefund::none, "none"},
    {DowngradeRefund::return_minus_new_order, "return_minus_new_order"},
    {DowngradeRefund::consumed_days_price_ratio, "consumed_days_price_ratio"}};
constexpr std::pair<UpgradeFee, std::string_view> kUpgradeFee[] = {
    {UpgradeFee::months_of_365_12, "months_of_365_12"}, {UpgradeFee::term_days, "term_days"}};

}  // namespace

std::string_view to_string(PrepaidTermEnd v) noexcept {
  return name_of(v, kTermEnd);
}
std::string_view to_string(ReturnUsedValue v) noexcept {
  return name_of(v, kUsedValue);
}
std::string_view to_string(DowngradeRefund v) noexcept {
  return name_of(v, kDowngrade);
}
std::string_view to_string(UpgradeFee v) noexcept {
  return name_of(v, kUpgradeFee);
}
PrepaidTermEnd parse_prepaid_term_end(std::string_view text) {
  return parse_named(text, kTermEnd, "term_end");
}
ReturnUsedValue parse_return_used_value(std::string_view text) {
  return parse_named(text, kUsedValue, "return_used_value");
}
DowngradeRefund parse_downgrade_refund(std::string_view text) {
  return parse_named(text, kDowngrade, "downgrade_refund");
}
UpgradeFee parse_upgrade_fee(std::string_view text) {
  return parse_named(text, kUpgradeFee, "upgrade_fee");
}

PrepaidLifecycle read_prepaid_lifecycle(const json_input::json& value, const std::string& pointer,
                                        const std::string& file) {
  const json_input::Fields f(value, pointer, file,
                             {"term_end", "return_used_value", "used_months_at_their_term_discount",
                              "return_fee_percent", "downgrade_refund", "upgrade_fee", "source"});
  PrepaidLifecycle r;
  const auto parsed = [&](std::string_view key, auto parse) {
    const std::string text = f.text(key);
    try {
      return parse(text);
    } catch (const Error& e) {
      f.fail(key, e.what());
    }
  };
  if (f.has("term_end")) {
    r.term_end = parsed("term_end", [](const std::string& t) { return parse_prepaid_term_end(t); });
  }
  if (f.has("return_used_value")) {
    r.return_used_value = parsed("return_used_value",
                                 [](const std::string& t) { return parse_return_used_value(t); });
  }
  if (f.has("downgrade_refund")) {
    r.downgrade_refund =
        parsed("downgrade_refund", [](const std::string& t) { return parse_downgrade_refund(t); });
  }
  if (f.has("upgrade_fee")) {
    r.upgrade_fee =
        parsed("upgrade_fee", [](const std::string& t) { return parse_upgrade_fee(t); });
  }
  r.used_months_at_their_term_discount = f.boolean_or("used_months_at_their_term_discount", false);
  if (const auto fee = f.opt_decimal("return_fee_percent")) {
    if (Decimal(100) < *fee) f.fail("return_fee_percent", "above 100");
    r.return_fee_percent = *fee;
  }
  r.source = f.opt_text("source");
  return r;
}

std::string prepaid_lifecycle_json(const PrepaidLifecycle& rules) {
  const PrepaidLifecycle defaults;
  if (rules.term_end == defaults.term_end &&
      rules.return_used_value == defaults.return_used_value &&
      rules.used_months_at_their_term_discount == defaults.used_months_at_their_term_discount &&
      rules.return_fee_percent == defaults.return_fee_percent &&
      rules.downgrade_refund == defaults.downgrade_refund &&
      rules.upgrade_fee == defaults.upgrade_fee && rules.source.empty()) {
    return {};
  }
  json_input::json j;
  j["term_end"] = std::string(to_string(rules.term_end));
  j["return_used_value"] = std::string(to_string(rules.return_used_value));
  j["used_months_at_their_term_discount"] = rules.used_months_at_their_term_discount;
  j["return_fee_percent"] = rules.return_fee_percent.to_string();
  j["downgrade_refund"] = std::string(to_string(rules.downgrade_refund));
  j["upgrade_fee"] = std::string(to_string(rules.upgrade_fee));
  if (!rules.source.empty()) j["source"] = rules.source;
  return j.dump();
}

PrepaidLifecycle stored_prepaid_lifecycle(const std::string& text, std::int64_t policy_id) {
  if (text.empty()) return {};
  const std::string where = "policy " + std::to_string(policy_id) + " prepaid_lifecycle";
  try {
    return read_prepaid_lifecycle(json_input::parse_document(text, where), "", where);
  } catch (const Error& e) {
    throw StoreError(where + ": " + e.what());
  }
}

}  // namespace gpubill
