// The hours in a quote's month (issue 27): each provider's calculator convention by default
// (the policy row's quote_month_hours: 730 h for AWS, Azure and Google, 720 h elsewhere),
// settable per workload, stated on every line; Google's sustained use discount computed per
// calendar month from the quote's date, so that the quote still equals the replayed bill.
#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

const QuoteLine* line_of(const QuoteResult& q, const std::string& instance_type) {
  for (const auto& l : q.lines) {
    if (l.priced && l.instance_type == instance_type) return &l;
  }
  return nullptr;
}

QuoteResult quote_text(ReplayFixture& fx, const std::string& text, const std::string& at) {
  const Workload w = parse_workload_json(text, "w.json");
  const Catalog catalog = load_quote_catalog(fx.db(), parse_instant(at), w);
  return QuoteEngine(catalog).quote(resolve_workload(w, catalog));
}

}  // namespace

TEST_CASE("quote month: a month is 730 h at AWS and 720 h at Tencent, unless the workload says",
          "[quote][month]") {
  ReplayFixture fx;
  const std::string base = R"({"format": "gpubill-workload/1", "gpu": {"models": ["V100", "P40"]},
    "host": {"min_ram_gb": 0}, "duration": {"months": 1}, "providers": ["aws", "tencent"],
    "regions": ["us-east-1", "ap-guangzhou"], "modes": ["payg"], "date": "2019-06-01")";
  const QuoteResult q = quote_text(fx, base + "}", "2019-06-01T00:00:00Z");
  const QuoteLine* aws = line_of(q, "p3.2xlarge");
  const QuoteLine* tencent = line_of(q, "GN8.LARGE56");
  REQUIRE(aws);
  REQUIRE(tencent);
  CHECK(aws->month_hours == 730);
  CHECK(!aws->month_hours_from_workload);
  CHECK(aws->run_seconds == 730 * 3600);
  CHECK(tencent->month_hours == 720);
  CHECK(tencent->run_seconds == 720 * 3600);
  // 730 h × 3.06 USD/h, one monthly record: 2233.80.
  CHECK(aws->compute->amount() == Decimal::parse("2233.8"));
  CHECK(std::any_of(aws->notes.begin(), aws->notes.end(), [](const std::string& n) {
    return n.rfind("a month is 730 h (the provider's convention, policy", 0) == 0;
  }));

  const QuoteResult set = quote_text(fx, base + R"(, "month_hours": 720})", "2019-06-01T00:00:00Z");
  const QuoteLine* aws720 = line_of(set, "p3.2xlarge");
  REQUIRE(aws720);
  CHECK(aws720->month_hours == 720);
  CHECK(aws720->month_hours_from_workload);
  CHECK(aws720->run_seconds == 720 * 3600);
}

TEST_CASE("quote month: month_hours outside 28 to 31 days is refused, naming the field",
          "[quote][month]") {
  ReplayFixture fx;
  CHECK_THROWS_WITH(quote_text(fx,
                               R"({"format": "gpubill-workload/1", "gpu": {"models": ["V100"]},
                     "duration": {"months": 1}, "month_hours": 800, "date": "2019-06-01"})",
                               "2019-06-01T00:00:00Z"),
                    Catch::Contains("month_hours") && Catch::Contains("672 to 744"));
}

// Google's sustained use discount is per calendar month (cloud.google.com/compute/docs/sustained-
// use-discounts): a 730-h quote from June 1 is June whole (30 % off) and 10 h of July at the
// first tier — and replaying it bills the same.
TEST_CASE("quote month: a 730 h Google quote from June 1 equals its replayed bill",
          "[quote][month][replay]") {
  ReplayFixture fx;
  const QuoteResult q = quote_text(fx, R"({"format": "gpubill-workload/1",
    "gpu": {"models": ["K80"]}, "host": {"min_ram_gb": 0}, "duration": {"months": 1},
    "providers": ["google"], "regions": ["us-central1"], "modes": ["payg"],
    "date": "2019-06-01T00:00:00Z"})",
                                   "2019-06-01T00:00:00Z");
  const QuoteLine* g = line_of(q, "n1-highmem-2+1×K80");
  REQUIRE(g);
  CHECK(g->month_hours == 730);
  REQUIRE(g->sustained_use_credit);
  // June: 720 h, 30 % off 0.1184 and 0.45 per hour: 25.57 + 97.20; July: 10 h at 100 %.
  CHECK(g->sustained_use_credit->amount() == Decimal::parse("122.77"));
  fx.replay_text(
      R"({"id":"c1","time":"2019-06-01T00:00:00Z","type":"create","account":"g","instance":"i","provider":"google","region":"us-central1","instance_type":"n1-highmem-2","mode":"payg","gpu":"K80","gpus":1}
{"id":"d1","time":"2019-07-01T10:00:00Z","type":"destroy","account":"g","instance":"i"}
)",
      until("2019-08-01T00:00:00Z"));
  Decimal billed;
  for (const auto& c : fx.charges("account = 'g'")) billed += Decimal::parse(c.total_billed);
  CHECK(billed == g->compute->amount());
}

TEST_CASE("quote month: the CLI states each line's month, and takes --month-hours",
          "[quote][month][cli]") {
  TempDir dir;
  const std::string db = dir.file("q.db");
  ensure_database(db);
  const CliRun j = run_cli("--db '" + db +
                               "' quote --gpu V100 --months 1 --provider aws --at 2019-06-01 "
                               "--mode payg --format json --top 1",
                           Stderr::discarded);
  REQUIRE(j.status == 0);
  const auto doc = nlohmann::json::parse(j.output);
  REQUIRE(!doc["lines"].empty());
  CHECK(doc["lines"][0]["month_hours"] == 730);
  CHECK(doc["lines"][0]["month_hours_from"] == "policy");
  const CliRun set = run_cli("--db '" + db +
                                 "' quote --gpu V100 --months 1 --provider aws --at 2019-06-01 "
                                 "--mode payg --format csv --top 1 --month-hours 720",
                             Stderr::discarded);
  REQUIRE(set.status == 0);
  CHECK(set.output.find(",720\n") != std::string::npos);
  const CliRun bad = run_cli("--db '" + db + "' quote --gpu V100 --months 1 --month-hours 800");
  CHECK(bad.status == 1);
  CHECK(bad.output.find("--month-hours") != std::string::npos);
}
