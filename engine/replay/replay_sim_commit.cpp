// Replay simulation commitments: a commit event buys AWS reserved instances or a Google committed
// use discount; at each clock hour's end the commitment covers up to count × 3600 s of that
// hour's matching pay-as-you-go usage, use it or lose it (docs/usage-log.md, "Commitments").
//
// AWS (awsdocs/amazon-ec2-user-guide@096556437fd7fdc573353d1b0e7db0909c4708f4):
// doc_source/concepts-reserved-instances-application.md: "A Reserved Instance billing benefit can
// apply to a maximum of 3600 seconds (one hour) of instance usage per clock-hour"; "Reserved
// Instances are billed for every clock-hour during the term that you select, regardless of
// whether an instance is running". doc_source/apply_ri.md: a regional RI applies "within the
// instance family, regardless of size", "from the smallest to the largest instance size within the
// instance family based on the normalization factor" (its table), except "Reserved Instances for
// G4ad, G4dn, G5, and G5g instances".
//
// Usage keeps settling at the on-demand rate (replay_sim_settle.cpp); the covered part of each
// meter's hour is a commitment_covered row offsetting it at that rate, written with the hour's
// usage record (write_covers); an hour not fully used is a commitment_unused row, and a no- or
// partial-upfront commitment's hourly fee a commitment_fee row, every hour of the term.
#include <algorithm>

#include "gpubill/rules/commitment_rules.hpp"
#include "replay/replay_commit_rows.hpp"
#include "replay/replay_model.hpp"
#include "replay/replay_sim_support.hpp"

namespace gpubill::replay {

namespace {

using rules::normalization_quarters;

// Whether AWS applies a regional RI of this family across its sizes (apply_ri.md's limitations).
bool size_flexible(const Commitment& c) {
  return !c.per_gpu && rules::ri_size_flexible(c.provider, c.program, c.family, c.subject);
}

// The quantity unit of a commitment's rows: seconds of its instance type, GPU-seconds, or
// normalized unit-seconds for a size-flexible RI.
std::string unit_of(const Commitment& c) {
  if (c.per_gpu) return "gpu_second";
  return c.flexible ? "normalized_second" : "second";
}

// Quarter units as a decimal quantity: 6 → "1.5".
std::string quarters_text(std::int64_t q) {
  return (Decimal(q) * Decimal::parse("0.25")).to_string();
}

// upfront / term hours (12 decimals, half-even) + hourly: one unit's amortised hourly cost.
Decimal amortised_hourly(const Commitment& c) {
  return Decimal::divide(c.upfront, commitment_term_hours(c.term_months), 12,
                         RoundingMode::half_even) +
         c.hourly;
}

// The catalog's offer a commit event names; a reason when there is none or more than one.
struct OfferLookup {
  const CommitmentRow* row = nullptr;
  std::string error;
};
// The commitment's subject: its instance type, or its GPU's catalog id ("v100" → V100-SXM2-16GB).
std::string subject_of(Sim& sim, const UsageEvent& ev) {
  if (ev.gpu.empty()) return ev.instance_type;
  const Gpu* gpu = sim.catalog.find_gpu(ev.gpu);
  return gpu ? gpu->id : ev.gpu;
}

OfferLookup find_offer(Sim& sim, const UsageEvent& ev) {
  const bool per_gpu = !ev.gpu.empty();
  const std::string subject = subject_of(sim, ev);
  const auto rows =
      commitments_at(sim.catalog, ev.provider, per_gpu ? SubjectKind::gpu : SubjectKind::instance,
                     subject, ev.region, ev.time);
  std::vector<const CommitmentRow*> match;
  std::string keys;
  for (const CommitmentRow* r : rows) {
    if (r->term_months != *ev.term_months || r->payment != *ev.payment) continue;
    if (!ev.offering_class.empty() && r->offering_class != ev.offering_class) continue;
    match.push_back(r);
    keys += (keys.empty() ? "" : ", ") + r->key();
  }
  OfferLookup out;
  const std::string what = ev.provider + " " + subject + " in " + ev.region + ", " +
                           (*ev.term_months == 36 ? "3y" : "1y") + " " +
                           std::string(to_string(*ev.payment)) +
                           (ev.offering_class.empty() ? "" : " " + ev.offering_class);
  if (match.empty()) {
    out.error = "no commitment offer for " + what + " at " + format_instant(ev.time) +
                " in the catalog (gpubill catalog show lists its commitments)";
  } else if (match.size() > 1) {
    out.error = "more than one commitment offer for " + what + " (" + keys +
                "): name its class (standard or convertible)";
  } else {
    out.row = match.front();
  }
  return out;
}

}  // namespace

std::optional<std::string> Account::commit(Sim& sim, const UsageEvent& ev, std::int64_t seq) {
  if (!ev.plan.empty()) return commit_savings_plan(sim, ev, seq);
  const OfferLookup offer = find_offer(sim, ev);
  if (!offer.row) return offer.error;
  const CommitmentRow& r = *offer.row;
  Commitment c;
  c.id = ev.id;
  c.seq = seq;
  c.row_id = r.id;
  c.provider = ev.provider;
  c.region = ev.region;
  c.per_gpu = !ev.gpu.empty();
  c.subject = subject_of(sim, ev);
  if (!c.per_gpu) {
    const InstanceType* type = sim.catalog.find_instance_type(c.provider, c.subject);
    if (type) c.family = type->family;
  }
  c.count = *ev.count;
  // The term starts on a clock hour: `start`, else the first one at or after the purchase.
  c.start = ev.start ? to_seconds(*ev.start) : (to_seconds(ev.time) + kHour - 1) / kHour * kHour;
  if (c.start % kHour != 0) return "a commitment's term starts on a clock hour (UTC)";
  c.term_months = r.term_months;
  c.end = c.start + commitment_term_hours(r.term_months) * kHour;
  c.program = std::string(to_string(r.program));
  c.offering_class = r.offering_class;
  c.payment = std::string(to_string(r.payment));
  c.currency = r.upfront.currency();
  c.upfront = r.upfront.amount();
  c.hourly = r.hourly.amount();
  c.flexible = size_flexible(c);
  c.weight = c.flexible ? normalization_quarters(c.subject) : 4;
  c.next_hour = c.start + kHour;
  c.source = r.source;
  for (const auto& other : commitments) {
    if (other.id == c.id) return "commitment '" + c.id + "' was bought before";
  }
  ChargeRow row = commitment_row(name, c, "commitment_purchase");
  row.period_start = c.start;
  row.period_end = c.end;
  row.quantity = std::to_string(c.count);
  row.unit = "commitment";
  row.unit_price = c.upfront;
  row.price_unit = "term";
  row.exact = c.upfront * c.count;
  row.billed = row.exact;
  row.effective = Decimal{};  // amortised onto the term's covered and unused rows
  row.note = commitment_text(c) + ": upfront " + money_text(c.upfront, c.currency) + " × " +
             std::to_string(c.count) + " at purchase; term " + when(c.start) + " to " +
             when(c.end) + (c.flexible ? "; regional, size-flexible in family " + c.family : "") +
             " [source: " + c.source + "]";
  charge(sim, row, to_seconds(ev.time), seq, "charge");
  commitments.push_back(std::move(c));
  return std::nullopt;
}

Seconds Account::next_commitment_hour() const {
  Seconds next = kNever;
  for (const auto& c : commitments) {
    if (c.next_hour <= c.end) next = std::min(next, c.next_hour);
  }
  return next;
}

void Account::apply_commitments(Sim& sim, Seconds e) {
  covers_.clear();
  // The hour's pay-as-you-go compute usage settling at e, by instance number.
  std::vector<CoverCandidate> usage;
  for (auto& [index, inst] : by_index_) {
    if (inst->mode != BillingMode::payg) continue;
    for (auto& mp : inst->meters) {
      Meter& m = *mp;
      if (m.hour_end != e || !is_compute(m) || m.waiting_cycle) continue;
      const std::int64_t raw = m.used + (m.active ? e - m.active_since : 0) + m.extra;
      if (raw <= 0) continue;
      const BillingPolicy* policy = sim.policy_at(inst->provider, m.first_use).row;
      if (!policy) continue;
      usage.push_back({&m, rules::metered_seconds(raw, *policy) * m.multiplier});
    }
  }
  std::stable_sort(usage.begin(), usage.end(),
                   [](const CoverCandidate& a, const CoverCandidate& b) {
                     return a.meter->owner->index < b.meter->owner->index;
                   });
  for (std::size_t k = 0; k < commitments.size(); ++k) {
    Commitment& c = commitments[k];
    if (c.savings_plan() || c.next_hour != e || e > c.end) continue;
    c.next_hour += kHour;
    // Who may use it, smallest normalization factor first (then instance order).
    std::vector<std::pair<std::int64_t, std::size_t>> order;  // weight, candidate
    for (std::size_t i = 0; i < usage.size(); ++i) {
      const Meter& m = *usage[i].meter;
      const Instance& inst = *m.owner;
      if (inst.provider != c.provider || inst.region != c.region || usage[i].quantity <= 0)
        continue;
      if ((m.source == Source::gpu) != c.per_gpu) continue;
      std::int64_t w = 0;
      if (c.flexible) {
        if (inst.family == c.family) w = normalization_quarters(m.subject);
      } else if (m.subject == c.subject) {
        w = 4;
      }
      if (w > 0) order.emplace_back(w, i);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::int64_t capacity = c.count * c.weight * kHour;
    std::int64_t left = capacity;
    const std::size_t first = covers_.size();
    for (const auto& [w, i] : order) {
      const std::int64_t q = std::min(usage[i].quantity, left / w);
      if (q <= 0) continue;
      usage[i].quantity -= q;
      left -= q * w;
      covers_.push_back({usage[i].meter, k, q, q * w, e, Decimal{}});
    }
    // The hour's amortised cost (its upfront share and fee), shared by units; what the
    // truncation leaves goes to the unused part, else to the last covered part.
    const std::int64_t hour = (e - c.start) / kHour - 1;
    const Decimal hour_cost = rules::commitment_upfront_share(
                                  c.upfront * c.count, commitment_term_hours(c.term_months), hour) +
                              c.hourly * c.count;
    Decimal shared;
    for (std::size_t j = first; j < covers_.size(); ++j) {
      covers_[j].share = Decimal::from_units(
          divide_rounded(hour_cost.units() * covers_[j].units, capacity, RoundingMode::down));
      shared += covers_[j].share;
    }
    if (left == 0 && covers_.size() > first) covers_.back().share += hour_cost - shared;
    const Decimal amortised = amortised_hourly(c);
    if (!c.hourly.is_zero()) {
      ChargeRow fee = commitment_row(name, c, "commitment_fee");
      fee.period_start = e - kHour;
      fee.period_end = e;
      fee.quantity = std::to_string(c.count);
      fee.unit = "commitment_hour";
      fee.unit_price = c.hourly;
      fee.price_unit = "hour";
      fee.exact = c.hourly * c.count;
      fee.billed = fee.exact;
      fee.effective = Decimal{};  // amortised onto the hour's covered and unused rows
      fee.note = commitment_text(c) + ": the hourly fee, billed every hour of the term used or not";
      covered_rows_.emplace_back(kAfterCovers + 2 * k, std::move(fee));
    }
    if (left > 0) {
      ChargeRow unused = commitment_row(name, c, "commitment_unused");
      unused.period_start = e - kHour;
      unused.period_end = e;
      unused.quantity = c.flexible ? quarters_text(left) : std::to_string(left / 4);
      unused.unit = unit_of(c);
      unused.unit_price = amortised;
      unused.price_unit = "hour";
      unused.effective = hour_cost - shared;
      unused.note = commitment_text(c) + ": " + unused.quantity + " of " +
                    (c.flexible ? quarters_text(capacity) : std::to_string(capacity / 4)) + " " +
                    unused.unit + " unused this hour (use it or lose it); amortised " +
                    money_text(amortised, c.currency) + " per unit-hour";
      covered_rows_.emplace_back(kAfterCovers + 2 * k + 1, std::move(unused));
    }
  }
  apply_savings_plans(sim, e, usage);
  // The hour's rows follow its settlements (process_hour_end writes them); with none at e, now.
  if (next_hour_end_ != e) write_covered_rows(sim, e, {});
}

void Account::write_covers(Sim&, Meter& m, Seconds e, const PriceRow& price,
                           const BillingPolicy& policy) {
  for (std::size_t j = 0; j < covers_.size(); ++j) {
    const Cover& cv = covers_[j];
    if (cv.meter != &m || cv.at != e) continue;
    const Commitment& c = commitments[cv.commitment];
    Instance& inst = *m.owner;
    const auto s = rules::usage_record(price.amount, cv.quantity, policy, MeteredResource::compute);
    ChargeRow row = base_row(name, inst);
    row.instance_type = m.source == Source::instance ? m.subject : inst.type;
    row.component = m.component;
    row.kind = "commitment_covered";
    row.mode = commitment_mode(c);
    row.period_start = e - kHour;
    row.period_end = e;
    row.quantity = std::to_string(cv.quantity);
    row.unit = m.unit;
    row.unit_price = price.amount.amount();
    row.price_unit = "hour";
    row.exact = -s.exact.amount();
    row.billed = -s.billed.amount();
    row.rounding = -s.rounding.amount();
    row.decimals = policy.settlement_decimals;
    row.price_id = price.id;
    row.policy_id = policy.id;
    row.discount_id = cv.rate ? cv.rate->id : c.row_id;
    row.event_seqs = std::to_string(c.seq);
    for (std::int64_t s2 : m.run.seqs) row.event_seqs += "," + std::to_string(s2);
    if (cv.rate) {
      row.note = commitment_text(c) + ": covers " + std::to_string(cv.quantity) + " " + m.unit +
                 " of this hour at the savings plan rate " +
                 money_text(savings_plan_rate(*cv.rate), c.currency) +
                 " per hour (commitment_price row " + std::to_string(cv.rate->id) +
                 "): " + money_text(cv.share, c.currency) +
                 " of the commitment; offset at the on-demand " + "rate " +
                 money_text(price.amount.amount(), c.currency) + " per hour";
    } else {
      row.note = commitment_text(c) + ": covers " + std::to_string(cv.quantity) + " " + m.unit +
                 " of this hour" +
                 (c.flexible ? " (" + quarters_text(cv.units) + " normalized unit-seconds)" : "") +
                 ", offset at the on-demand rate " + money_text(price.amount.amount(), c.currency) +
                 " per hour";
    }
    row.effective = row.billed + cv.share;
    if (m.cycle_end) m.cycle_exact += row.exact;
    inst.lifetime_billed += row.billed;
    covered_rows_.emplace_back(j, std::move(row));
  }
}

void Account::write_covered_rows(Sim& sim, Seconds e, const std::vector<Meter*>& settled) {
  if (covered_rows_.empty()) return;
  // The hour's debits are all made: the runs' segments closed by these credits end there.
  for (Meter* m : settled) {
    if (m->run.repeat > 0 && m->run.settled_at == e) {
      m->run.balance_after = balance_of(*m->owner).amount;
    }
  }
  // In the order the commitments covered them (meters settle in no fixed order), then each
  // commitment's fee and unused rows.
  std::sort(covered_rows_.begin(), covered_rows_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [j, row] : covered_rows_) charge(sim, row, e, 0, "charge");
  covered_rows_.clear();
}

}  // namespace gpubill::replay
