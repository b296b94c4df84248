// Lease versus buy: renting under a commitment (reserved instance, savings plan, committed use
// discount), month by month (tco_commit.hpp).
#include "tco/tco_commit.hpp"

#include <algorithm>

namespace gpubill::tco_detail {

namespace {

std::string commitment_plan_text(const QuoteLine& line) {
  const CommitmentTerms& t = *line.commitment;
  const CommitmentRow& r = *t.row;
  std::string out = std::to_string(t.terms) + " × " + std::to_string(r.term_months) + " months " +
                    std::string(to_string(r.program));
  if (!r.offering_class.empty()) out += " " + r.offering_class;
  out += ", " + std::string(to_string(r.payment)) + " (commitment row " + std::to_string(r.id);
  if (t.gpu_row) out += " + per-GPU row " + std::to_string(t.gpu_row->id);
  return out + ")";
}

}  // namespace

std::optional<std::string> first_commitment_date(const Catalog& catalog,
                                                 const LeaseVsBuyInputs& in) {
  const auto rents = [&](const std::string& gpu) {
    return std::find(in.rent_gpus.begin(), in.rent_gpus.end(), gpu) != in.rent_gpus.end();
  };
  std::optional<Instant> first;
  for (const auto& r : catalog.data().commitments) {
    if (!in.providers.empty() &&
        std::find(in.providers.begin(), in.providers.end(), r.provider) == in.providers.end()) {
      continue;
    }
    bool carries = r.subject_kind == SubjectKind::gpu && rents(r.subject);
    if (const InstanceType* it = r.subject_kind == SubjectKind::instance
                                     ? catalog.find_instance_type(r.provider, r.subject)
                                     : nullptr) {
      carries = !it->gpu.empty() && rents(it->gpu);
    }
    if (carries && (!first || r.period.from < *first)) first = r.period.from;
  }
  if (!first) return std::nullopt;
  return format_day(date::floor<date::days>(*first));
}

RentOption commitment_option(const QuoteLine& line, int instances, const LeaseVsBuyInputs& in,
                             const Discounter& discount) {
  const Currency c = in.currency;
  const int horizon = in.horizon_months;
  const CommitmentTerms& t = *line.commitment;
  RentOption o = describe_rent(line, instances, *line.mode, PriceUnit::hour);
  o.plan = commitment_plan_text(line);
  const auto converted = [&](const Money& m) {
    return m.currency() == c ? m : Money(m.amount() * line.fx->rate, c);
  };
  const int term_months = t.row->term_months;
  const int committed_months = t.terms * term_months;
  const Money upfront = converted(t.upfront) * instances;
  const Money monthly = converted(t.hourly * kHoursPerMonth) * instances;
  std::vector<Money> paid(static_cast<std::size_t>(horizon) + 1, Money::zero(c));
  for (int k = 0; k < t.terms; ++k) {
    paid[static_cast<std::size_t>(std::min(k * term_months, horizon))] += upfront;
  }
  for (int m = 1; m <= committed_months; ++m) {
    paid[static_cast<std::size_t>(std::min(m, horizon))] += monthly;
  }
  // The quoted total, exactly: what the conversion of the parts rounded goes to the last month.
  const Money total = *line.compute_converted * instances;
  Money allotted = Money::zero(c);
  for (const auto& p : paid) allotted += p;
  paid.back() += total - allotted;
  fill_from_payments(o, paid, total, in, discount);
  if (committed_months > horizon) {
    o.notes.push_back("commits " + std::to_string(committed_months) + " months for a " +
                      std::to_string(horizon) +
                      "-month horizon: the fees after it are owed all the same (counted at its "
                      "end)");
  }
  if (t.break_even_utilisation) {
    o.notes.push_back(
        "cheaper than its own pay-as-you-go above " +
        (*t.break_even_utilisation * Decimal(100)).round(1, RoundingMode::half_up).to_string() +
        " % utilisation; paid in full whatever the utilisation");
  }
  return o;
}

}  // namespace gpubill::tco_detail
