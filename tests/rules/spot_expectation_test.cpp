// Spot lines under an interruption model (issue 11): the expected running time of a run
// (gpubill/rules/spot_model.hpp), worked out by hand, and quotes priced at it on the test catalog
// (quote_fixture.hpp: AWS p3.2xlarge spot 0.998 USD/h settles 1.00 a full hour, half-up, at
// 7.2688 CNY per USD).
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/rules/spot_model.hpp"
#include "quote_fixture.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::cny;
using gpubill::testing::line_with_id;
using gpubill::testing::quote_catalog;
using gpubill::testing::quote_workload;

namespace {

SpotInterruptionModel model(const char* rate, const char* interval, const char* write,
                            const char* restart) {
  SpotInterruptionModel m;
  m.interruptions_per_hour = Decimal::parse(rate);
  m.checkpoint_interval_hours = Decimal::parse(interval);
  m.checkpoint_write_hours = Decimal::parse(write);
  m.restart_hours = Decimal::parse(restart);
  return m;
}

// A quote of `w` on the test catalog, AWS spot only; `max_run_hours` set on AWS's policy.
struct SpotQuote {
  Catalog catalog;
  QuoteResult result;
  SpotQuote(Workload w, int max_run_hours = 0) : catalog(with_max_run(max_run_hours)) {
    w.providers = {"aws"};
    w.modes = {"spot"};
    result = QuoteEngine(catalog).quote(resolve_workload(w, catalog));
  }
  static CatalogData with_max_run(int hours) {
    CatalogData d = quote_catalog();
    for (auto& p : d.policies) {
      if (p.provider == "aws") p.spot_max_run_hours = hours;
    }
    return d;
  }
  const QuoteLine& line() const {
    const QuoteLine* l = line_with_id(result, "aws/us-east-1/p3.2xlarge/spot");
    REQUIRE(l != nullptr);
    return *l;
  }
};

Workload spot_workload(const char* hours, const char* rate) {
  Workload w = quote_workload({"V100"});
  w.gpu.models = {"V100-SXM2-16GB"};
  w.duration.hours = Decimal::parse(hours);
  w.spot.interruptions_per_hour = Decimal::parse(rate);
  return w;
}

bool has_note(const QuoteLine& l, const std::string& start) {
  for (const auto& n : l.notes) {
    if (n.rfind(start, 0) == 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("expected spot run: interruptions, checkpoints and restarts", "[spot][rules]") {
  // 100 h of work, λ = 0.02/h, a checkpoint every hour taking 0.05 h, restarts of 0.1 h:
  // T = 360000 × 1.05 / (1 − 0.02 × (0.5 + 0.1)) = 378000 / 0.988 = 382591.09… → 382592 s;
  // interruptions 0.02 × 382592 / 3600 = 2.125511…; lives 1 + 2 = 3.
  const auto e = expected_spot_run(360000, model("0.02", "1", "0.05", "0.1"), 0);
  REQUIRE(e.finishes);
  CHECK(e.work_seconds == 360000);
  CHECK(e.running_seconds == 382592);
  CHECK(e.interruptions == Decimal::parse("2.125511111111"));
  CHECK(e.planned_stops == 0);
  CHECK(e.lives == 3);

  // No interruptions and free checkpoints: the run is the work.
  const auto none = expected_spot_run(5000, model("0", "1", "0", "0"), 0);
  CHECK(none.running_seconds == 5000);
  CHECK(none.lives == 1);
}

TEST_CASE("expected spot run: a provider's maximum run time adds planned stops", "[spot][rules]") {
  // Preemptible-style stop after 24 h, restarts of 0.25 h, no random interruptions:
  // T = 360000 / (1 − 0.25 / 24) = 360000 × 96 / 95 = 363789.47… → 363790 s;
  // planned stops ceil(363790 / 86400) − 1 = 4; lives 5.
  const auto e = expected_spot_run(360000, model("0", "1", "0", "0.25"), 24);
  REQUIRE(e.finishes);
  CHECK(e.running_seconds == 363790);
  CHECK(e.planned_stops == 4);
  CHECK(e.lives == 5);
  // Exactly 24 h of running needs no stop; a second more needs one.
  CHECK(expected_spot_run(86400, model("0", "1", "0", "0"), 24).planned_stops == 0);
  CHECK(expected_spot_run(86401, model("0", "1", "0", "0"), 24).planned_stops == 1);
}

TEST_CASE("expected spot run: losses that outpace the work never finish", "[spot][rules]") {
  // λ × (τ/2 + r) = 1 × (1 + 0) = 1: every hour loses an hour.
  CHECK_FALSE(expected_spot_run(3600, model("1", "2", "0", "0"), 0).finishes);
  CHECK_FALSE(expected_spot_run(3600, model("2", "1", "0", "0.5"), 0).finishes);
  // A denominator of 1e-12 would take longer than a century: reported as not finishing.
  CHECK_FALSE(expected_spot_run(3600, model("1", "1.999999999998", "0", "0"), 0).finishes);
  // Nothing to run.
  CHECK_FALSE(expected_spot_run(0, model("0", "1", "0", "0"), 0).finishes);
}

TEST_CASE("spot quote: the expected total bills each instance life as a run of its own",
          "[spot][quote][golden]") {
  Workload w = spot_workload("100", "0.02");
  w.spot.checkpoint_write_hours = Decimal::parse("0.05");
  w.spot.restart_hours = Decimal::parse("0.1");
  const SpotQuote q(w);
  const QuoteLine& l = q.line();
  REQUIRE(l.spot_expectation);
  CHECK(l.spot_expectation->running_seconds == 382592);
  CHECK(l.spot_expectation->lives == 3);
  // Three lives of ceil(382592 / 3) = 127531 s = 35 h + 1531 s, each settled per hour:
  // 35 × 1.00 + 0.998 × 1531 / 3600 (0.4244… → 0.42) = 35.42; × 3 = 106.26 USD × 7.2688.
  CHECK(l.runs == 3);
  CHECK(l.run_seconds == 127531);
  CHECK(*l.compute == Money::parse("106.26 USD"));
  CHECK(*l.total == cny("772.382688"));
  // Uninterrupted: 100 × 1.00 = 100 USD × 7.2688.
  CHECK(*l.uninterrupted_total == cny("726.88"));
  CHECK(has_note(l,
                 "expected 106.28 h of running for 100 h of work: 2.13 interruptions, 0 "
                 "planned stops, billed as 3 instance lives; uninterrupted 726.88 CNY"));
  bool stated = false;
  for (const auto& a : q.result.assumptions) {
    stated = stated || (a.find("λ = 0.02 interruptions per hour") != std::string::npos &&
                        a.find("τ = 1 h (default)") != std::string::npos &&
                        a.find("c = 0.05 h to write") != std::string::npos);
  }
  CHECK(stated);
  CHECK_THAT(explain_line(q.result, l), Catch::Contains("3 instance lives of ceil(382592 / 3)"));
}

TEST_CASE("spot quote: a maximum run time's planned stops are in the expected total",
          "[spot][quote][golden]") {
  Workload w = spot_workload("100", "0");
  w.spot.restart_hours = Decimal::parse("0.25");
  const SpotQuote q(w, 24);
  const QuoteLine& l = q.line();
  // 5 lives of ceil(363790 / 5) = 72758 s = 20 h + 758 s: 20 × 1.00 + 0.998 × 758 / 3600
  // (0.2101… → 0.21) = 20.21; × 5 = 101.05 USD × 7.2688.
  CHECK(l.runs == 5);
  CHECK(l.run_seconds == 72758);
  CHECK(*l.compute == Money::parse("101.05 USD"));
  CHECK(*l.total == cny("734.51224"));
  CHECK(has_note(l, "stopped after 24 h of running (policy "));
  CHECK(std::any_of(l.notes.begin(), l.notes.end(), [](const std::string& n) {
    return n.find("restarts in the expected total") != std::string::npos;
  }));

  // Without a model the stops are only noted.
  Workload plain = quote_workload({"V100-SXM2-16GB"});
  plain.duration.hours = Decimal(100);
  const SpotQuote p(plain, 24);
  CHECK_FALSE(p.line().spot_expectation);
  CHECK(*p.line().compute == Money::parse("100 USD"));
  CHECK(std::any_of(p.line().notes.begin(), p.line().notes.end(), [](const std::string& n) {
    return n.find("needs 4 restart(s), not in the total") != std::string::npos;
  }));
}

TEST_CASE("spot quote: work finishes later, and unreachable runs are unpriced", "[spot][quote]") {
  // 50 GPU-hours on V100-SXM2-16GB itself: 180000 s of work; λ = 0.1, τ = 1:
  // T = 180000 / 0.95 = 189473.68… → 189474 s; interruptions 5.26… → lives 6.
  Workload work = quote_workload({"V100-SXM2-16GB"});
  work.duration.gpu_hours = Decimal(50);
  work.spot.interruptions_per_hour = Decimal::parse("0.1");
  const SpotQuote q(work);
  CHECK(*q.line().finish_seconds == 189474);
  CHECK(q.line().spot_expectation->lives == 6);
  CHECK(has_note(q.line(), "expected to finish in 52.63 h on 1 × V100-SXM2-16GB"));

  // λ = 2 with τ = 1: every hour loses an hour.
  const SpotQuote never(spot_workload("10", "2"));
  CHECK_FALSE(never.line().priced);
  CHECK_THAT(never.line().unknown_reason, Catch::Contains("not expected to finish"));

  // 20 h a day at λ = 0.5: 20 / 0.75 = 26.67 h does not fit in a day.
  Workload daily = quote_workload({"V100-SXM2-16GB"});
  daily.duration.hours_per_day = Decimal(20);
  daily.duration.days = 2;
  daily.spot.interruptions_per_hour = Decimal::parse("0.5");
  const SpotQuote d(daily);
  CHECK_FALSE(d.line().priced);
  CHECK_THAT(d.line().unknown_reason,
             Catch::Contains("26.67 h") && Catch::Contains("does not fit in a day"));
}

TEST_CASE("spot workload fields: read from a file and checked", "[spot][workload]") {
  const Workload w = parse_workload_json(
      R"({"gpu": {"model": "V100"}, "duration": {"hours": 10},
          "spot": {"interruptions_per_hour": "0.05", "checkpoint_interval_hours": 2,
                   "checkpoint_write_hours": "0.1", "restart_hours": "0.2"}})",
      "w.json");
  const Catalog catalog(quote_catalog());
  const ResolvedWorkload r = resolve_workload(w, catalog);
  REQUIRE(r.spot_model);
  CHECK(r.spot_model->interruptions_per_hour == Decimal::parse("0.05"));
  CHECK(r.spot_model->checkpoint_interval_hours == Decimal(2));
  CHECK(r.spot_model->checkpoint_write_hours == Decimal::parse("0.1"));
  CHECK(r.spot_model->restart_hours == Decimal::parse("0.2"));

  const auto error = [&](Workload bad) -> InputError {
    try {
      resolve_workload(bad, catalog);
    } catch (const InputError& e) {
      return e;
    }
    FAIL("no InputError");
    throw std::logic_error("unreachable");
  };
  Workload no_rate = w;
  no_rate.spot.interruptions_per_hour.reset();
  CHECK(error(no_rate).field() == "checkpoint_interval_hours");
  CHECK_THAT(error(no_rate).reason(), Catch::Contains("without interruptions_per_hour"));
  Workload zero_interval = w;
  zero_interval.spot.checkpoint_interval_hours = Decimal(0);
  CHECK(error(zero_interval).field() == "checkpoint_interval_hours");
  Workload payg_only = w;
  payg_only.modes = {"payg"};
  CHECK_THAT(error(payg_only).reason(), Catch::Contains("modes exclude spot"));
  Workload too_many = w;
  too_many.spot.interruptions_per_hour = Decimal(1001);
  CHECK_THAT(error(too_many).reason(), Catch::Contains("above the limit of 1000"));
  CHECK_THROWS_AS(parse_workload_json(R"({"spot": {"interruptions": 1}})", "w.json"), InputError);
}
