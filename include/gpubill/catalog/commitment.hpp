// Commitment offers: reserved instances, savings plans and committed-use discounts (issue 29).
//
// A CommitmentRow is one offer a provider publishes for one subject (an instance type, or a GPU
// attached per GPU, Google-style) in one region: commit for a term of 12 or 36 months, pay an
// upfront amount (at purchase) and a recurring fee for every hour of the term, whether the
// commitment is used or not (AWS: "billed for every hour within the term regardless of whether
// the Reserved Instance is being used"; Google: "you are billed monthly for the commitment
// regardless of usage"). A year is 365 days (8760 h), three years 1095 days (26280 h), as
// both providers count their terms. Each row is effective-dated and names its source like a
// price row; a commitment the catalog has no row for is unknown, never free.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"

namespace gpubill {

class Catalog;
enum class SubjectKind;  // catalog.hpp: instance, gpu

// reserved_instance (AWS RI), savings_plan (AWS EC2 Instance / Compute Savings Plan, priced per
// instance type), committed_use (Google resource-based CUD).
enum class CommitmentProgram { reserved_instance, savings_plan, committed_use };
// no_upfront: upfront 0, hourly > 0; all_upfront: hourly 0; partial_upfront: both.
enum class CommitmentPayment { no_upfront, partial_upfront, all_upfront };

// Throw ParseError naming the accepted values.
CommitmentProgram parse_commitment_program(std::string_view text);
CommitmentPayment parse_commitment_payment(std::string_view text);
std::string_view to_string(CommitmentProgram p) noexcept;
std::string_view to_string(CommitmentPayment p) noexcept;

// Hours of a term: 12 months = 8760 h, 36 months = 26280 h.
std::int64_t commitment_term_hours(int term_months) noexcept;

struct CommitmentRow {
  std::int64_t id = 0;
  std::string provider;
  SubjectKind subject_kind{};  // instance
  std::string subject;         // instance type id or GPU id
  std::string region;          // empty = every region
  CommitmentProgram program = CommitmentProgram::reserved_instance;
  // "standard" | "convertible" (AWS RIs); "compute" | "ec2_instance" (the savings plan a
  // savings_plan row is the rate of); "" otherwise.
  std::string offering_class;
  int term_months = 12;  // 12 or 36
  CommitmentPayment payment = CommitmentPayment::no_upfront;
  Money upfront{Decimal{}, Currency::parse("USD")};  // per unit (per GPU for a gpu row)
  Money hourly{Decimal{}, Currency::parse("USD")};   // per unit and hour of the term
  Effective period;
  std::string source, as_of;

  std::int64_t term_hours() const noexcept { return commitment_term_hours(term_months); }
  // "ri-standard-all-upfront", "cud-no-upfront": the offer's key within its subject and term.
  std::string key() const;
  // upfront + hourly × term hours: what one unit costs over one term.
  Money term_cost() const;
};

// The commitment rows in force at t for a subject, a region row winning over an every-region
// row of the same key; in key order (program, class, term, payment).
std::vector<const CommitmentRow*> commitments_at(const Catalog& catalog, std::string_view provider,
                                                 SubjectKind kind, std::string_view subject,
                                                 std::string_view region, Instant t);

}  // namespace gpubill
