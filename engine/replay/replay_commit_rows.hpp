// Private to replay: what the charge rows of a commitment share, whether reserved instances and
// committed use discounts (replay_sim_commit.cpp) or savings plans (replay_sim_savings.cpp).
#pragma once

#include <cstddef>
#include <string>

#include "replay/replay_model.hpp"

namespace gpubill::replay {

// Where a commitment's fee and unused rows go among an hour's rows: after the covered ones
// (commitment k's fee at kAfterCovers + 2k, its unused row at kAfterCovers + 2k + 1).
inline constexpr std::size_t kAfterCovers = std::size_t{1} << 40;

// "reserved_1y" / "reserved_3y": the charge rows' mode (FOCUS PricingCategory Committed).
std::string commitment_mode(const Commitment& c);

// A row of the commitment itself (purchase, fee, unused): its id as the row's instance, its
// catalog row as discount_id, the commit event as event_seqs.
ChargeRow commitment_row(const std::string& account, const Commitment& c, const char* kind);

// "commitment ri-1 (aws reserved_instance standard 1y no_upfront of 1 × m4.xlarge in us-east-1,
// commitment_price row 7)"; "savings plan sp-1 (aws compute 1y no_upfront, 25 USD per hour,
// rates of commitment_price rows as of 2020-01-01T00:00:00Z)".
std::string commitment_text(const Commitment& c);

// The rate a savings plan rate row charges per hour of its instance type: upfront spread over
// the term's hours (12 decimals, half-even) plus the hourly part, as AWS publishes one rate per
// type, plan, term and payment option.
Decimal savings_plan_rate(const CommitmentRow& r);

}  // namespace gpubill::replay
