// A FOCUS 1.2 conformance checker for the Cost and Usage rows gpubill exports, written from the
// FinOps Foundation's published requirements:
//   spec:  FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec@7296e3146fb931ee32b6496fa6e4200e7f4384f7
//          (tag v1.2), specification/columns/*.md, specification/attributes/*.md
//   rules: finopsfoundation/focus_validator@240cea25310e5615cb867e80ad9f7bb09809abb3,
//          focus_validator/rules/model-1.2.json (rule ids such as "ListCost-C-009-C")
// Every MUST, and the SHOULDs that apply, of the columns gpubill fills, the commitment-discount
// columns included (issue 29); capacity-reservation, sub-account and tag rules do not apply
// (those columns are null).
// Independent of the exporter: it reads only the rows' text.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpubill/base/decimal.hpp"
#include "gpubill/store/db.hpp"

namespace gpubill::testing {

struct FocusViolation {
  std::string rule;     // the validator's rule id, or "<What>-gpubill" for issue 12's own
  std::size_t row = 0;  // 0-based data row; SIZE_MAX for a dataset rule
  std::string column, value;
};

class FocusConformance {
 public:
  // Checks the dataset's columns (presence, naming, order).
  explicit FocusConformance(std::vector<std::string> columns);

  // Checks one row (cells in the columns' order; nullopt = null). Keeps only per-id state
  // (SKUs, invoices, purchases), not the rows.
  void row(const std::vector<std::optional<std::string>>& cells);
  // The dataset-wide rules (one parent SkuId per SkuPriceId, amortisation sums, …).
  void finish();

  const std::vector<FocusViolation>& violations() const { return violations_; }
  std::size_t rows() const { return rows_; }
  // Violations per rule id, and the first few in words, for a failure message.
  std::map<std::string, std::size_t> counts() const;
  std::string summary(std::size_t max_listed = 10) const;

  // Every rule id this checker applies, sorted.
  static const std::set<std::string>& rule_ids();

 private:
  using Cell = std::optional<std::string>;
  const Cell& at(const std::vector<Cell>& cells, const std::string& column) const;
  void fail(const std::string& rule, const std::string& column, const Cell& value);
  void check_formats(const std::vector<Cell>& cells);
  void check_nulls(const std::vector<Cell>& cells);
  void check_values(const std::vector<Cell>& cells);
  void check_costs(const std::vector<Cell>& cells);
  void check_periods(const std::vector<Cell>& cells);
  void check_ids(const std::vector<Cell>& cells);
  void check_commitments(const std::vector<Cell>& cells);

  std::vector<std::string> columns_;
  std::map<std::string, std::size_t> index_;
  std::vector<FocusViolation> violations_;
  std::size_t rows_ = 0;
  bool finished_ = false;

  // Dataset state, keyed by id.
  std::map<std::string, std::string> sku_parent_, sku_details_, sku_meter_;
  std::map<std::string, std::string> invoice_owner_;                // InvoiceId → account|period
  std::map<std::string, Decimal> purchase_amount_, amortised_sum_;  // by x_ChargeId
  std::map<std::string, Decimal> billed_total_, effective_total_;   // by BillingCurrency
  struct CommitmentState {
    std::string owner, unit, currency;
    Decimal purchased, amortised;
  };
  std::map<std::string, CommitmentState> commitments_;  // by CommitmentDiscountId
};

// The 57 FOCUS 1.2 Cost and Usage columns in the specification's order (columns/columns.mdpp).
const std::vector<std::string>& focus12_columns();

// Checks a whole table (columns, rows) and returns the checker after finish().
FocusConformance check_focus(const std::vector<std::string>& columns,
                             const std::vector<std::vector<std::optional<std::string>>>& rows);

// Streams a database's FOCUS export, billed then forecast (the amortised hours after the
// replay's end: together they hold every hour of every purchase), through the checker; returns
// it after finish(). No table is held.
FocusConformance check_focus_export(Database& db);

}  // namespace gpubill::testing
