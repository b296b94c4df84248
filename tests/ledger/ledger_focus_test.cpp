// FOCUS 1.2 export: every column in the specification's order, mandatory columns filled,
// ISO 8601 UTC datetimes, exact decimal text, runs expanded to hours.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <regex>

#include "focus_conformance.hpp"
#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "ledger_fixture.hpp"

using gpubill::Decimal;
using gpubill::testing::at;
using gpubill::testing::ChargeSpec;
using gpubill::testing::LedgerFixture;

namespace {

// FOCUS 1.2's columns in order, as the conformance checker has them from the specification.
const std::vector<std::string>& kFocus12 = gpubill::testing::focus12_columns();

const std::vector<std::string> kMandatory = {
    "BilledCost",        "BillingAccountId",   "BillingAccountName", "BillingCurrency",
    "BillingPeriodEnd",  "BillingPeriodStart", "ChargeCategory",     "ChargeClass",
    "ChargeDescription", "ChargePeriodEnd",    "ChargePeriodStart",  "ContractedCost",
    "EffectiveCost",     "InvoiceIssuerName",  "ListCost",           "PricingQuantity",
    "PricingUnit",       "ProviderName",       "PublisherName",      "ServiceCategory",
    "ServiceName",
};

// Columns whose "Nulls" is False in FOCUS 1.2.
const std::vector<std::string> kNotNullColumns = {
    "BilledCost",        "BillingAccountId",   "BillingAccountType", "BillingCurrency",
    "BillingPeriodEnd",  "BillingPeriodStart", "ChargeCategory",     "ChargeFrequency",
    "ChargePeriodEnd",   "ChargePeriodStart",  "ContractedCost",     "EffectiveCost",
    "InvoiceIssuerName", "ListCost",           "ProviderName",       "PublisherName",
    "ServiceCategory",   "ServiceName",        "ServiceSubcategory",
};

const std::vector<std::string> kDateTimeColumns = {"BillingPeriodEnd", "BillingPeriodStart",
                                                   "ChargePeriodEnd", "ChargePeriodStart"};

const std::vector<std::string> kDecimalColumns = {
    "BilledCost",
    "CommitmentDiscountQuantity",
    "ConsumedQuantity",
    "ContractedCost",
    "ContractedUnitPrice",
    "EffectiveCost",
    "ListCost",
    "ListUnitPrice",
    "PricingCurrencyContractedUnitPrice",
    "PricingCurrencyEffectiveCost",
    "PricingCurrencyListUnitPrice",
    "PricingQuantity",
    "x_ExactCost",
    "x_RoundingAmount",
};

struct Rows {
  gpubill::FocusTable table;
  std::map<std::string, std::size_t> index;
  const std::optional<std::string>& cell(std::size_t row, const std::string& column) const {
    return table.rows.at(row).at(index.at(column));
  }
  std::string text(std::size_t row, const std::string& column) const {
    return cell(row, column).value_or("<null>");
  }
  // The rows of one charge kind and row kind (x_ChargeKind, x_RowKind), in export order.
  std::vector<std::size_t> where(const std::string& kind, const std::string& row_kind) const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
      if (text(i, "x_ChargeKind") == kind && text(i, "x_RowKind") == row_kind) out.push_back(i);
    }
    return out;
  }
  Decimal sum(const std::vector<std::size_t>& rows, const std::string& column) const {
    Decimal total;
    for (auto i : rows) total += Decimal::parse(text(i, column));
    return total;
  }
};

Rows export_all(LedgerFixture& f) {
  Rows r{gpubill::focus_export(f.db(), gpubill::query_charges(f.db())), {}};
  for (std::size_t i = 0; i < r.table.columns.size(); ++i) r.index[r.table.columns[i]] = i;
  return r;
}

void fill(LedgerFixture& f) {
  auto run = f.payg(at("2018-01-31T22:00:00+08:00"), 3600, 3);  // 22:00, 23:00, 00:00 local
  run.event_seqs = "1,2";
  f.insert_charge(run);
  f.insert_charge(f.payg(at("2018-02-01T01:00:00+08:00"), 1800));
  auto order = f.prepaid_order(at("2018-01-15T10:00:00+08:00"), at("2018-07-15T10:00:00+08:00"));
  order.instance = "i-2";
  f.insert_charge(order);
  ChargeSpec refund;
  refund.instance = "i-2";
  refund.kind = "refund";
  refund.mode = "prepaid";
  refund.quantity = "1";
  refund.unit = "order";
  refund.unit_price = "-1200.5";
  refund.price_unit = "order";
  refund.period_start = at("2018-02-10T00:00:00Z");
  refund.period_end = at("2018-02-10T00:00:00Z");
  f.insert_charge(refund);
}

// The order covers 181 days: 4344 hours.
constexpr std::size_t kOrderHours = 181 * 24;

}  // namespace

TEST_CASE("the FOCUS export has every FOCUS 1.2 column in order, then the x_ columns", "[focus]") {
  REQUIRE(gpubill::focus_spec_columns() == kFocus12);
  CHECK(gpubill::focus_mandatory_columns() == kMandatory);
  const auto& all = gpubill::focus_columns();
  REQUIRE(all.size() > kFocus12.size());
  CHECK(std::equal(kFocus12.begin(), kFocus12.end(), all.begin()));
  for (std::size_t i = kFocus12.size(); i < all.size(); ++i) {
    CHECK(all[i].rfind("x_", 0) == 0);
  }
  for (const char* x : {"x_ChargeId", "x_RowKind", "x_PriceId", "x_PolicyId", "x_RoundingAmount"}) {
    CHECK(std::find(all.begin(), all.end(), x) != all.end());
  }
}

TEST_CASE("FOCUS rows: mandatory columns filled, datetimes ISO 8601 UTC, exact decimals",
          "[focus]") {
  LedgerFixture f;
  fill(f);
  const auto r = export_all(f);
  REQUIRE(r.table.columns == gpubill::focus_columns());
  // 3 hours of the run, the half hour and its rounding, the order and its hours, the refund.
  REQUIRE(r.table.rows.size() == 7 + kOrderHours);
  const std::regex iso(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
  const std::regex decimal(R"(-?\d+(\.\d*[1-9])?)");
  for (std::size_t i = 0; i < r.table.rows.size(); ++i) {
    INFO("row " << i);
    REQUIRE(r.table.rows[i].size() == r.table.columns.size());
    for (const auto& c : kNotNullColumns) {
      INFO(c);
      CHECK(r.cell(i, c));
    }
    for (const auto& c : kDateTimeColumns) {
      INFO(c << " = " << r.text(i, c));
      CHECK(std::regex_match(r.text(i, c), iso));
    }
    for (const auto& c : kDecimalColumns) {
      if (!r.cell(i, c)) continue;
      INFO(c << " = " << r.text(i, c));
      CHECK(std::regex_match(*r.cell(i, c), decimal));
    }
    CHECK_FALSE(r.cell(i, "ChargeClass"));  // no corrections
    CHECK(r.text(i, "BillingAccountId") == "acme");
    CHECK(r.text(i, "ProviderName") == "Test Cloud");
    CHECK(r.text(i, "InvoiceIssuerName") == "Test Cloud");
    // One invoice per account and month of the provider's zone.
    CHECK(r.text(i, "InvoiceId").rfind("testcloud/acme/2018-", 0) == 0);
  }
}

TEST_CASE("FOCUS usage rows: one per settlement hour, costs and quantities", "[focus]") {
  LedgerFixture f;
  fill(f);
  const auto r = export_all(f);
  const auto usage = r.where("settlement", "charge");
  REQUIRE(usage.size() == 4);  // the run's 3 hours, then the half hour
  for (std::size_t k = 0; k < 3; ++k) {
    const std::size_t i = usage[k];
    INFO("hour " << k);
    CHECK(r.text(i, "ChargeCategory") == "Usage");
    CHECK(r.text(i, "ChargeFrequency") == "Usage-Based");
    CHECK(r.text(i, "PricingCategory") == "Standard");
    CHECK(r.text(i, "BilledCost") == "15.09");
    CHECK(r.text(i, "EffectiveCost") == "15.09");
    CHECK(r.text(i, "ListCost") == "15.09");
    CHECK(r.text(i, "ListUnitPrice") == "15.09");
    CHECK(r.text(i, "ContractedCost") == "15.09");
    CHECK(r.text(i, "PricingQuantity") == "1");
    CHECK(r.text(i, "PricingUnit") == "Hours");
    CHECK(r.text(i, "ConsumedQuantity") == "3600");
    CHECK(r.text(i, "ConsumedUnit") == "Seconds");
    CHECK(r.text(i, "ResourceId") == "i-1");
    CHECK(r.text(i, "ResourceName") == "i-1");  // the instance's name (issue 30 item 5)
    CHECK(r.text(i, "ResourceType") == "Virtual Machine");
    CHECK(r.text(i, "ServiceCategory") == "Compute");
    CHECK(r.text(i, "ServiceSubcategory") == "Virtual Machines");
    CHECK(r.text(i, "RegionId") == "test-region-1");
    CHECK(r.text(i, "RegionName") == "Test Region One");
    CHECK(r.text(i, "SkuId") == "testcloud/compute/GPU.LARGE");
    // From the price row's identity, not its local row id: the same in every database.
    CHECK(r.text(i, "SkuPriceId") == "testcloud/compute/GPU.LARGE/test-region-1/payg");
    CHECK(r.text(i, "SkuPriceDetails") == R"({"InstanceType":"GPU.LARGE","x_BillingMode":"payg"})");
    CHECK(r.text(i, "x_PriceId") == std::to_string(f.payg_price_id));
    CHECK(r.text(i, "x_SettlementIndex") == std::to_string(k));
    CHECK(r.text(i, "x_PolicyId") == std::to_string(f.policy_id));
    CHECK(r.text(i, "x_RoundingAmount") == "0");
    CHECK(r.text(i, "x_EventSeqs") == "1,2");
  }
  const std::size_t h0 = usage[0], h2 = usage[2];
  CHECK(r.text(h0, "ChargePeriodStart") == "2018-01-31T14:00:00Z");
  CHECK(r.text(h0, "ChargePeriodEnd") == "2018-01-31T15:00:00Z");
  CHECK(r.text(h2, "ChargePeriodStart") == "2018-01-31T16:00:00Z");
  CHECK(r.cell(h0, "x_ChargeId") == r.cell(h2, "x_ChargeId"));
  // Billing periods are the months in the provider's zone (Asia/Shanghai), in UTC.
  CHECK(r.text(h0, "BillingPeriodStart") == "2017-12-31T16:00:00Z");
  CHECK(r.text(h0, "BillingPeriodEnd") == "2018-01-31T16:00:00Z");
  CHECK(r.text(h0, "InvoiceId") == "testcloud/acme/2018-01");
  CHECK(r.text(h2, "BillingPeriodStart") == "2018-01-31T16:00:00Z");
  CHECK(r.text(h2, "BillingPeriodEnd") == "2018-02-28T16:00:00Z");
  CHECK(r.text(h2, "InvoiceId") == "testcloud/acme/2018-02");

  // The half hour: the usage row at its exact cost, the policy's rounding a row of its own.
  const std::size_t half = usage[3];
  CHECK(r.text(half, "BilledCost") == "7.545");
  CHECK(r.text(half, "ListCost") == "7.545");
  CHECK(r.text(half, "PricingQuantity") == "0.5");
  CHECK(r.text(half, "ConsumedQuantity") == "1800");
  CHECK(r.text(half, "ChargeDescription") ==
        "GPU.LARGE compute settlement (payg): 0.5 Hours × 15.09 CNY = 7.545 CNY");
  const auto rounding = r.where("settlement", "rounding");
  REQUIRE(rounding.size() == 1);
  CHECK(rounding[0] == half + 1);
  CHECK(r.text(rounding[0], "ChargeCategory") == "Adjustment");
  CHECK(r.text(rounding[0], "BilledCost") == "0.005");
  CHECK(r.text(rounding[0], "EffectiveCost") == "0.005");
  CHECK(r.text(rounding[0], "ListCost") == "0.005");
  CHECK_FALSE(r.cell(rounding[0], "PricingQuantity"));
  CHECK_FALSE(r.cell(rounding[0], "PricingUnit"));
  CHECK(r.cell(rounding[0], "x_ChargeId") == r.cell(half, "x_ChargeId"));

  // Sums: BilledCost over the rows = billed totals of the charge rows, exactly; EffectiveCost
  // too (amortisation moves cost in time, it does not add any).
  Decimal billed, effective, stored;
  for (std::size_t i = 0; i < r.table.rows.size(); ++i) {
    billed += Decimal::parse(r.text(i, "BilledCost"));
    effective += Decimal::parse(r.text(i, "EffectiveCost"));
  }
  for (const auto& line : gpubill::query_charges(f.db())) stored += line.total_billed;
  CHECK(billed == stored);
  CHECK(effective == stored);
}

TEST_CASE("FOCUS partial hours: ListCost = ListUnitPrice × PricingQuantity exactly", "[focus]") {
  LedgerFixture f;
  f.insert_charge(f.payg(at("2018-03-01T10:00:00Z"), 100));  // 100 s: 1/36 h, not a decimal
  const auto r = export_all(f);
  const auto usage = r.where("settlement", "charge");
  REQUIRE(usage.size() == 1);
  // 100 / 3600 rounded up to 10 decimals (15.09 has 2): 15.09 × it is exact in 12 decimals.
  CHECK(r.text(usage[0], "PricingQuantity") == "0.0277777778");
  CHECK(r.text(usage[0], "ListCost") == "0.419166667002");
  CHECK(r.text(usage[0], "ContractedCost") == "0.419166667002");
  CHECK(r.text(usage[0], "BilledCost") == "0.419166666667");  // the exact amount, below list
  CHECK(r.text(usage[0], "x_ExactCost") == "0.419166666667");
  const auto rounding = r.where("settlement", "rounding");
  REQUIRE(rounding.size() == 1);
  CHECK(r.text(rounding[0], "BilledCost") == "0.000833333333");  // to the billed 0.42
}

TEST_CASE("FOCUS purchases: prepaid orders amortised over their hours, refunds", "[focus]") {
  LedgerFixture f;
  fill(f);
  const auto r = export_all(f);
  const auto orders = r.where("prepaid_order", "charge");
  REQUIRE(orders.size() == 1);
  const std::size_t o = orders[0];
  CHECK(o == 0);  // Jan 15, before everything else
  CHECK(r.text(o, "ChargeCategory") == "Purchase");
  CHECK(r.text(o, "ChargeFrequency") == "One-Time");
  CHECK(r.text(o, "PricingCategory") == "Standard");
  CHECK(r.text(o, "BilledCost") == "23232");
  CHECK(r.text(o, "EffectiveCost") == "0");  // it pays for the 6 months ahead
  CHECK(r.text(o, "PricingCurrencyEffectiveCost") == "0");
  CHECK(r.text(o, "ListUnitPrice") == "4400");
  CHECK(r.text(o, "PricingQuantity") == "6");
  CHECK(r.text(o, "PricingUnit") == "Months");
  CHECK(r.text(o, "ListCost") == "26400");  // list price, before the 0.88 term discount
  CHECK_FALSE(r.cell(o, "ConsumedQuantity"));
  CHECK_FALSE(r.cell(o, "ConsumedUnit"));
  CHECK(r.text(o, "SkuPriceId") == "testcloud/compute/GPU.LARGE/test-region-1/prepaid");
  CHECK(r.text(o, "x_DiscountId") == std::to_string(f.discount_id));
  CHECK(r.text(o, "ChargePeriodStart") == "2018-01-15T02:00:00Z");
  CHECK(r.text(o, "ChargePeriodEnd") == "2018-07-15T02:00:00Z");

  // Its hours: Usage rows, BilledCost 0, the order's cost spread to the cent.
  const auto hours = r.where("prepaid_order", "amortisation");
  REQUIRE(hours.size() == kOrderHours);
  CHECK(r.sum(hours, "EffectiveCost") == Decimal(23232));
  CHECK(r.sum(hours, "BilledCost") == Decimal(0));
  CHECK(r.sum(hours, "PricingQuantity") == Decimal(6));
  CHECK(r.sum(hours, "ListCost") == Decimal(26400));
  CHECK(r.text(hours.front(), "ChargeCategory") == "Usage");
  CHECK(r.text(hours.front(), "ChargePeriodStart") == "2018-01-15T02:00:00Z");
  CHECK(r.text(hours.front(), "ChargePeriodEnd") == "2018-01-15T03:00:00Z");
  CHECK(r.text(hours.back(), "ChargePeriodEnd") == "2018-07-15T02:00:00Z");
  CHECK(r.text(hours.front(), "ConsumedQuantity") == "3600");
  CHECK(r.text(hours.front(), "ResourceId") == "i-2");
  // 23232 / 4344 = 5.348066…: the cumulative share truncated to the cent, so 5.34 or 5.35.
  CHECK(r.text(hours[0], "EffectiveCost") == "5.34");
  CHECK(r.text(hours[1], "EffectiveCost") == "5.35");
  for (auto i : hours) {
    const auto e = Decimal::parse(r.text(i, "EffectiveCost"));
    CHECK((e == Decimal::parse("5.34") || e == Decimal::parse("5.35")));
  }
  // In ChargePeriodStart order with the other rows: the run's first hour comes after the
  // order's hours that start before it.
  CHECK(std::is_sorted(r.table.rows.begin(), r.table.rows.end(), [&](const auto& a, const auto& b) {
    const auto s = r.index.at("ChargePeriodStart");
    return *a[s] < *b[s];
  }));

  const auto refunds = r.where("refund", "charge");
  REQUIRE(refunds.size() == 1);
  const std::size_t refund = refunds[0];
  CHECK(r.text(refund, "ChargeCategory") == "Purchase");
  CHECK(r.text(refund, "BilledCost") == "-1200.5");
  CHECK(r.text(refund, "EffectiveCost") == "-1200.5");  // covers no period: not spread
  CHECK(r.text(refund, "ListCost") == "-1200.5");
  CHECK(r.text(refund, "ListUnitPrice") == "1200.5");  // non-negative, × quantity −1
  CHECK(r.text(refund, "PricingQuantity") == "-1");
  CHECK(r.text(refund, "PricingUnit") == "Units");
  // The description says what the columns say.
  CHECK(r.text(refund, "ChargeDescription") ==
        "GPU.LARGE compute refund (prepaid): -1 Units × 1200.5 CNY = -1200.5 CNY");
  CHECK_FALSE(r.cell(refund, "ChargeClass"));
}

TEST_CASE("FOCUS x_ExactCost and x_RoundingAmount add up to the bill", "[focus]") {
  LedgerFixture f;
  fill(f);
  // A line the policy rounded: its rounding is on the rounding row only.
  auto rounded = f.payg(at("2018-02-02T01:00:00+08:00"), 1000);
  f.insert_charge(rounded);
  const auto r = export_all(f);
  Decimal exact, rounding, billed;
  for (const auto& line : gpubill::query_charges(f.db())) {
    exact += line.total_exact;
    rounding += line.total_rounding();
    billed += line.total_billed;
  }
  std::vector<std::size_t> all(r.table.rows.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  REQUIRE_FALSE(rounding.is_zero());
  CHECK(r.sum(all, "x_ExactCost") == exact);
  CHECK(r.sum(all, "x_RoundingAmount") == rounding);
  CHECK(r.sum(all, "BilledCost") == billed);
  CHECK(exact + rounding == billed);
  for (auto i : r.where("prepaid_order", "amortisation")) {
    CHECK(r.text(i, "x_ExactCost") == "0");
    CHECK(r.text(i, "x_RoundingAmount") == "0");
  }
}
