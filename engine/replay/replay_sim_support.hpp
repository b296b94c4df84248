// Private to engine/replay: helpers shared by the replay simulation's files (replay_sim*.cpp).
#pragma once

#include <string>

#include "replay/replay_model.hpp"

namespace gpubill::replay {

inline std::string when(Seconds s) {
  return format_instant(to_instant(s));
}

inline std::string money_text(Decimal d, Currency c) {
  return d.to_string() + " " + c.to_string();
}

inline bool is_compute(const Meter& m) {
  return m.source == Source::instance || m.source == Source::gpu;
}

inline ChargeRow base_row(const std::string& account, const Instance& inst) {
  ChargeRow row;
  row.account = account;
  row.instance = inst.id;
  row.provider = inst.provider;
  row.region = inst.region;
  row.instance_type = inst.type;
  row.component = "compute";
  row.mode = std::string(to_string(inst.mode));
  row.currency = inst.currency;
  return row;
}

// A prepaid order (create, renewal, auto-renewal) as a charge row.
inline ChargeRow order_row(const std::string& account, const Instance& inst, const char* kind,
                           Seconds start, Seconds end, const rules::PrepaidOrder& order,
                           const PriceRow& price, const BillingPolicy& policy, std::int64_t seq) {
  ChargeRow row = base_row(account, inst);
  row.kind = kind;
  row.period_start = start;
  row.period_end = end;
  row.quantity = std::to_string(order.months);
  row.unit = "month";
  row.unit_price = price.amount.amount();
  row.price_unit = "month";
  row.exact = (order.list * order.factor).amount();
  row.billed = order.charged.amount();
  row.rounding = row.billed - row.exact;
  row.decimals = policy.settlement_decimals;
  row.price_id = price.id;
  row.policy_id = policy.id;
  if (order.discount) row.discount_id = order.discount->id;
  row.event_seqs = seq ? std::to_string(seq) : "";
  if (order.discount) {
    row.note = "term discount " + order.factor.to_string() + " for " +
               std::to_string(order.months) + " months";
  }
  if (policy.prepaid.term_end != PrepaidTermEnd::same_time) {
    row.note += std::string(row.note.empty() ? "" : "; ") + "term ends " +
                std::string(to_string(policy.prepaid.term_end)) +
                " (rules::prepaid_term_end, policy " + std::to_string(policy.id) + ")";
  }
  return row;
}

inline ProviderInfo& info_of(Sim& sim, Instance& inst) {
  if (!inst.pinfo) inst.pinfo = &sim.provider(inst.provider);
  return *inst.pinfo;
}

// The end of the open piece of meter `m` that starts at `start` in the hour ending `hour_end`:
// `hour_end`, or earlier where the spot pricing rule cuts the hour (rules::spot_priced_piece:
// a spot price change under per_second, the end of the protection period). And the instant
// whose price row prices that piece (`start`, or the creation for a deal price).
Seconds piece_end(Sim& sim, Meter& m, Seconds start, Seconds hour_end);
Seconds piece_price_at(Sim& sim, Meter& m, Seconds start, Seconds hour_end);

inline std::string no_price(BillingMode mode, const std::string& what, const std::string& region,
                            Seconds t) {
  return "no " + std::string(to_string(mode)) + " price for " + what +
         (region.empty() ? "" : " in " + region) + " at " + when(t);
}

}  // namespace gpubill::replay
