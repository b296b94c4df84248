// The charge rows and texts every kind of commitment shares (replay_commit_rows.hpp).
#include "replay/replay_commit_rows.hpp"

#include "replay/replay_sim_support.hpp"

namespace gpubill::replay {

std::string commitment_mode(const Commitment& c) {
  return c.term_months == 36 ? "reserved_3y" : "reserved_1y";
}

ChargeRow commitment_row(const std::string& account, const Commitment& c, const char* kind) {
  ChargeRow row;
  row.account = account;
  row.instance = c.id;
  row.provider = c.provider;
  row.region = c.region;
  row.instance_type = c.subject;
  row.component = "commitment";
  row.kind = kind;
  row.mode = commitment_mode(c);
  row.currency = c.currency;
  row.discount_id = c.row_id;
  row.event_seqs = std::to_string(c.seq);
  return row;
}

std::string commitment_text(const Commitment& c) {
  const std::string term = c.term_months == 36 ? "3y" : "1y";
  if (c.savings_plan()) {
    return "savings plan " + c.id + " (" + c.provider + " " + c.plan +
           (c.family.empty() ? "" : " " + c.family + " in " + c.region) + " " + term + " " +
           c.payment + ", " + money_text(c.amount, c.currency) +
           " per hour, at the rates in force " + when(c.bought) + ")";
  }
  return "commitment " + c.id + " (" + c.provider + " " + c.program +
         (c.offering_class.empty() ? "" : " " + c.offering_class) + " " + term + " " + c.payment +
         " of " + std::to_string(c.count) + " × " + c.subject + " in " + c.region +
         ", commitment_price row " + std::to_string(c.row_id) + ")";
}

Decimal savings_plan_rate(const CommitmentRow& r) {
  return Decimal::divide(r.upfront.amount(), r.term_hours(), 12, RoundingMode::half_even) +
         r.hourly.amount();
}

}  // namespace gpubill::replay
