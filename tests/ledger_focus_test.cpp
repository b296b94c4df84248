// FOCUS 1.2 export: every column in the specification's order, mandatory columns filled,
// ISO 8601 UTC datetimes, exact decimal text, runs expanded to hours.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <regex>

#include "gpubill/focus.hpp"
#include "gpubill/ledger.hpp"
#include "ledger_fixture.hpp"

using gpubill::Decimal;
using gpubill::testing::at;
using gpubill::testing::ChargeSpec;
using gpubill::testing::LedgerFixture;

namespace {

// FOCUS 1.2, specification/columns (the FinOps Foundation's FOCUS_Spec repository): the 57 columns
// in order, and which are Mandatory and which do not allow nulls.
const std::vector<std::string> kFocus12 = {
    "AvailabilityZone",
    "BilledCost",
    "BillingAccountId",
    "BillingAccountName",
    "BillingAccountType",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "CapacityReservationId",
    "CapacityReservationStatus",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargeFrequency",
    "ChargePeriodEnd",
    "ChargePeriodStart",
    "CommitmentDiscountCategory",
    "CommitmentDiscountId",
    "CommitmentDiscountName",
    "CommitmentDiscountQuantity",
    "CommitmentDiscountStatus",
    "CommitmentDiscountType",
    "CommitmentDiscountUnit",
    "ConsumedQuantity",
    "ConsumedUnit",
    "ContractedCost",
    "ContractedUnitPrice",
    "EffectiveCost",
    "InvoiceId",
    "InvoiceIssuerName",
    "ListCost",
    "ListUnitPrice",
    "PricingCategory",
    "PricingCurrency",
    "PricingCurrencyContractedUnitPrice",
    "PricingCurrencyEffectiveCost",
    "PricingCurrencyListUnitPrice",
    "PricingQuantity",
    "PricingUnit",
    "ProviderName",
    "PublisherName",
    "RegionId",
    "RegionName",
    "ResourceId",
    "ResourceName",
    "ResourceType",
    "ServiceCategory",
    "ServiceName",
    "ServiceSubcategory",
    "SkuId",
    "SkuMeter",
    "SkuPriceDetails",
    "SkuPriceId",
    "SubAccountId",
    "SubAccountName",
    "SubAccountType",
    "Tags",
};

const std::vector<std::string> kMandatory = {
    "BilledCost",        "BillingAccountId",   "BillingAccountName", "BillingCurrency",
    "BillingPeriodEnd",  "BillingPeriodStart", "ChargeCategory",     "ChargeClass",
    "ChargeDescription", "ChargePeriodEnd",    "ChargePeriodStart",  "ContractedCost",
    "EffectiveCost",     "InvoiceIssuerName",  "ListCost",           "PricingQuantity",
    "PricingUnit",       "ProviderName",       "PublisherName",      "ServiceCategory",
    "ServiceName",
};

// Columns whose "Nulls" is False in FOCUS 1.2.
const std::vector<std::string> kNotNull = {
    "BilledCost",        "BillingAccountId",   "BillingAccountType", "BillingCurrency",
    "BillingPeriodEnd",  "BillingPeriodStart", "ChargeCategory",     "ChargeFrequency",
    "ChargePeriodEnd",   "ChargePeriodStart",  "ContractedCost",     "EffectiveCost",
    "InvoiceIssuerName", "ListCost",           "ProviderName",       "PublisherName",
    "ServiceCategory",   "ServiceName",        "ServiceSubcategory",
};

const std::vector<std::string> kDateTimes = {"BillingPeriodEnd", "BillingPeriodStart",
                                             "ChargePeriodEnd", "ChargePeriodStart"};

const std::vector<std::string> kDecimals = {
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
  for (const char* x : {"x_ChargeId", "x_PriceId", "x_PolicyId", "x_RoundingAmount"}) {
    CHECK(std::find(all.begin(), all.end(), x) != all.end());
  }
}

TEST_CASE("FOCUS rows: mandatory columns filled, datetimes ISO 8601 UTC, exact decimals",
          "[focus]") {
  LedgerFixture f;
  fill(f);
  const auto r = export_all(f);
  REQUIRE(r.table.columns == gpubill::focus_columns());
  REQUIRE(r.table.rows.size() == 6);  // 3 hours of the run, the half hour, the order, refund
  const std::regex iso(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
  const std::regex decimal(R"(-?\d+(\.\d*[1-9])?)");
  for (std::size_t i = 0; i < r.table.rows.size(); ++i) {
    INFO("row " << i);
    REQUIRE(r.table.rows[i].size() == r.table.columns.size());
    for (const auto& c : kNotNull) {
      INFO(c);
      CHECK(r.cell(i, c));
    }
    for (const auto& c : kDateTimes) {
      INFO(c << " = " << r.text(i, c));
      CHECK(std::regex_match(r.text(i, c), iso));
    }
    for (const auto& c : kDecimals) {
      if (!r.cell(i, c)) continue;
      INFO(c << " = " << r.text(i, c));
      CHECK(std::regex_match(*r.cell(i, c), decimal));
    }
    CHECK_FALSE(r.cell(i, "ChargeClass"));  // no corrections
    CHECK(r.text(i, "BillingAccountId") == "acme");
    CHECK(r.text(i, "ProviderName") == "Test Cloud");
    CHECK(r.text(i, "InvoiceIssuerName") == "Test Cloud");
  }
}

TEST_CASE("FOCUS usage rows: one per settlement hour, costs and quantities", "[focus]") {
  LedgerFixture f;
  fill(f);
  const auto r = export_all(f);
  // Row 0 is the order (Jan 15); rows 1–3 the run's hours; 4 the half hour; 5 the refund.
  for (std::size_t k = 0; k < 3; ++k) {
    const std::size_t i = 1 + k;
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
    CHECK(r.text(i, "ResourceType") == "Virtual Machine");
    CHECK(r.text(i, "ServiceCategory") == "Compute");
    CHECK(r.text(i, "ServiceSubcategory") == "Virtual Machines");
    CHECK(r.text(i, "RegionId") == "test-region-1");
    CHECK(r.text(i, "RegionName") == "Test Region One");
    CHECK(r.text(i, "SkuId") == "testcloud/compute/GPU.LARGE");
    CHECK(r.text(i, "SkuPriceId") == "price/" + std::to_string(f.payg_price_id));
    CHECK(r.text(i, "x_SettlementIndex") == std::to_string(k));
    CHECK(r.text(i, "x_PolicyId") == std::to_string(f.policy_id));
    CHECK(r.text(i, "x_RoundingAmount") == "0");
    CHECK(r.text(i, "x_EventSeqs") == "1,2");
  }
  CHECK(r.text(1, "ChargePeriodStart") == "2018-01-31T14:00:00Z");
  CHECK(r.text(1, "ChargePeriodEnd") == "2018-01-31T15:00:00Z");
  CHECK(r.text(3, "ChargePeriodStart") == "2018-01-31T16:00:00Z");
  CHECK(r.cell(1, "x_ChargeId") == r.cell(3, "x_ChargeId"));
  // Billing periods are the months in the provider's zone (Asia/Shanghai), in UTC.
  CHECK(r.text(1, "BillingPeriodStart") == "2017-12-31T16:00:00Z");
  CHECK(r.text(1, "BillingPeriodEnd") == "2018-01-31T16:00:00Z");
  CHECK(r.text(3, "BillingPeriodStart") == "2018-01-31T16:00:00Z");
  CHECK(r.text(3, "BillingPeriodEnd") == "2018-02-28T16:00:00Z");

  // The half hour: rounding kept, pricing quantity 0.5 hour.
  CHECK(r.text(4, "BilledCost") == "7.55");
  CHECK(r.text(4, "ListCost") == "7.545");
  CHECK(r.text(4, "x_ExactCost") == "7.545");
  CHECK(r.text(4, "x_RoundingAmount") == "0.005");
  CHECK(r.text(4, "PricingQuantity") == "0.5");
  CHECK(r.text(4, "ConsumedQuantity") == "1800");

  // Sums: BilledCost over the rows = billed totals of the charge rows, exactly.
  Decimal billed, stored;
  for (std::size_t i = 0; i < r.table.rows.size(); ++i) {
    billed += Decimal::parse(r.text(i, "BilledCost"));
  }
  for (const auto& line : gpubill::query_charges(f.db())) stored += line.total_billed;
  CHECK(billed == stored);
}

TEST_CASE("FOCUS purchases: prepaid orders and refunds", "[focus]") {
  LedgerFixture f;
  fill(f);
  const auto r = export_all(f);
  CHECK(r.text(0, "ChargeCategory") == "Purchase");
  CHECK(r.text(0, "ChargeFrequency") == "One-Time");
  CHECK(r.text(0, "PricingCategory") == "Standard");
  CHECK(r.text(0, "BilledCost") == "23232");
  CHECK(r.text(0, "ListUnitPrice") == "4400");
  CHECK(r.text(0, "PricingQuantity") == "6");
  CHECK(r.text(0, "PricingUnit") == "Months");
  CHECK(r.text(0, "ListCost") == "26400");  // list price, before the 0.88 term discount
  CHECK_FALSE(r.cell(0, "ConsumedQuantity"));
  CHECK_FALSE(r.cell(0, "ConsumedUnit"));
  CHECK(r.text(0, "x_DiscountId") == std::to_string(f.discount_id));
  CHECK(r.text(0, "ChargePeriodStart") == "2018-01-15T02:00:00Z");
  CHECK(r.text(0, "ChargePeriodEnd") == "2018-07-15T02:00:00Z");

  CHECK(r.text(5, "ChargeCategory") == "Purchase");
  CHECK(r.text(5, "BilledCost") == "-1200.5");
  CHECK(r.text(5, "ListCost") == "-1200.5");
  CHECK(r.text(5, "ListUnitPrice") == "1200.5");  // non-negative, × quantity −1
  CHECK(r.text(5, "PricingQuantity") == "-1");
  CHECK_FALSE(r.cell(5, "ChargeClass"));
}
