// Lease versus buy with commitments (issue 29): the 8 × V100 server against AWS p3.16xlarge
// rented under 1- and 3-year reserved instances (test offers), worked out by hand: each term's
// upfront at its start, the hourly fee for 730 h at the end of each month, whatever the
// utilisation.
#include <catch2/catch.hpp>

#include "gpubill/tco/tco.hpp"
#include "tco_catalog.hpp"

using namespace gpubill;
using tco_test::usd;

namespace {

CommitmentRow reserved(std::int64_t id, int months, CommitmentPayment payment, const char* upfront,
                       const char* hourly) {
  CommitmentRow r;
  r.id = id;
  r.provider = "aws";
  r.subject_kind = SubjectKind::instance;
  r.subject = "p3.16xlarge";
  r.region = "us-east-1";
  r.program = CommitmentProgram::reserved_instance;
  r.offering_class = "standard";
  r.term_months = months;
  r.payment = payment;
  r.upfront = usd(upfront);
  r.hourly = usd(hourly);
  r.period.from = parse_instant("2019-01-01", true);
  r.source = "test";
  r.as_of = "2019-01-01";
  return r;
}

const RentOption* option(const LeaseVsBuyResult& r, BillingMode mode) {
  for (const auto& o : r.options) {
    if (o.mode == mode) return &o;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("8 × V100 against AWS p3.16xlarge reserved instances, by hand", "[tco][commitment]") {
  CatalogData d = tco_test::data();
  d.commitments = {reserved(71, 12, CommitmentPayment::partial_upfront, "60000", "6"),
                   reserved(72, 36, CommitmentPayment::all_upfront, "230000", "0")};
  const Catalog catalog(std::move(d));
  LeaseVsBuyConfig c = tco_test::dgx1();
  c.providers = {"aws"};
  const LeaseVsBuyResult r = lease_vs_buy(catalog, c);

  // Options: pay-as-you-go (386000.64, tco_rent_test), then the commitments by term.
  REQUIRE(r.options.size() == 3);
  CHECK(r.options[0].mode == BillingMode::payg);
  const RentOption* one = option(r, BillingMode::reserved_1y);
  const RentOption* three = option(r, BillingMode::reserved_3y);
  REQUIRE(one);
  REQUIRE(three);

  // 1 year, partial upfront: a term costs 60000 + 6 × 8760 = 112560; 36 months need 3 terms:
  // 337680. Month 0 pays the first upfront; each month 6 × 730 = 4380; month 12 the second
  // upfront: 60000 + 12 × 4380 + 60000 = 172560 by month 12.
  CHECK(one->total == usd("337680"));
  CHECK(one->cumulative[0] == usd("60000"));
  CHECK(one->cumulative[1] == usd("64380"));
  CHECK(one->cumulative[12] == usd("172560"));
  CHECK(one->cumulative[36] == usd("337680"));
  CHECK(one->price_per_gpu_hour == usd("1.606164383562"));  // 337680 / (36 × 730 × 8)
  CHECK(one->total_line.per_utilisation == usd("0"));       // paid whatever the utilisation

  // 3 years, all upfront: 230000 at month 0, nothing after.
  CHECK(three->cumulative[0] == usd("230000"));
  CHECK(three->cumulative[36] == usd("230000"));
  CHECK(three->per_month == usd("6388.888888888889"));
  CHECK(three->price_per_gpu_hour == usd("1.09398782344"));
  CHECK_THAT(three->plan, Catch::Contains("commitment row 72"));
  // Its own break-even against pay-as-you-go: 230000 / (24.48 × 26280) = 0.3575.
  bool notes_break_even = false;
  for (const auto& n : three->notes)
    notes_break_even |= n.find("above 35.8 %") != std::string::npos;
  CHECK(notes_break_even);

  // The cheaper commitment is compared with buying: 230000 − 179608.64 = 50391.36 more; buying's
  // line (172040 + 12614.40 × u) stays under 230000 at every utilisation.
  REQUIRE(r.best_commitment);
  CHECK(&r.options[*r.best_commitment] == three);
  REQUIRE(r.comparisons.size() == 2);
  CHECK(r.comparisons[1].saving == usd("50391.36"));
  // The verdict: buying (179608.64) beats every rent option at 60 %.
  CHECK_FALSE(r.verdict.rent);
}
