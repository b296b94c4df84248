// check_catalog's invariant on commitment offers (commitment.hpp): a commitment costs less than
// paying as you go, and is not offered for a retired instance type.
#include "catalog/catalog_check_rows.hpp"

namespace gpubill::check_detail {

namespace {

CheckViolation commitment_violation(const CommitmentRow& r, std::string message) {
  CheckViolation v;
  v.invariant = "commitment_discount";
  v.provider = r.provider;
  v.subject = r.subject_kind == SubjectKind::gpu ? "gpu:" + r.subject : r.subject;
  v.region = r.region;
  v.mode = std::string(r.term_months == 36 ? "reserved_3y" : "reserved_1y") + " " + r.key();
  v.effective_from = day_of(r.period.from);
  v.message = std::move(message);
  v.sources = r.source;
  return v;
}

}  // namespace

void check_commitments(const Rows& rows, std::vector<CheckViolation>& out) {
  for (const auto& r : rows.data.commitments) {
    const Instant t = r.period.from;
    if (r.subject_kind == SubjectKind::instance) {
      auto type = rows.types.find({r.provider, r.subject});
      if (type != rows.types.end() && type->second->retired_at(t)) {
        out.push_back(commitment_violation(r, "offered from " + day_of(t) + ", on or after " +
                                                  r.subject + " was retired (" +
                                                  day_of(*type->second->retired_on) + ")"));
        continue;
      }
    }
    const Row* payg =
        rows.at({r.provider, r.subject_kind, r.subject, r.region, BillingMode::payg}, t);
    if (!payg && !r.region.empty()) {
      payg = rows.at({r.provider, r.subject_kind, r.subject, "", BillingMode::payg}, t);
    }
    if (!payg || payg->row->unit != PriceUnit::hour) continue;  // nothing to compare with
    const Money& list = payg->row->amount;
    const Money term = r.term_cost();
    if (list.currency() != term.currency()) {
      out.push_back(commitment_violation(
          r, "priced in " + term.currency().to_string() + ", its pay-as-you-go price (row " +
                 std::to_string(payg->row->id) + ") in " + list.currency().to_string()));
      continue;
    }
    if (term.amount() >= list.amount() * r.term_hours()) {
      out.push_back(commitment_violation(
          r, "costs " + term.amount().to_string() + " a term, no less than paying as you go for " +
                 "all its " + std::to_string(r.term_hours()) + " hours (" +
                 list.amount().to_string() + " an hour, row " + std::to_string(payg->row->id) +
                 ")"));
    }
  }
}

}  // namespace gpubill::check_detail
