// Metering edges as properties (issue 27): for every provider and pay-as-you-go / spot mode with
// a price, runs of 1 s, the minimum − 1 s, the minimum, the minimum + 1 s, whole minutes, a
// partial minute, an hour − 1 s, an hour, an hour + 1 s, across a month end, and across the
// daylight-saving changes of a zone that has them. Each bill is checked against the policy row's
// rule computed here, independently of the engine (clock-hour pieces, metering units, the
// minimum per run, rounding per settlement or per calendar month, the lifetime minimum), and,
// for runs a quote can place (from a cycle start), the quote equals the bill.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

struct Case {
  std::string provider, region, instance_type, gpu;
  std::string host_type;  // attachable GPUs: the host machine; else empty
  std::string mode;
  std::string month_start;   // RFC 3339, the first instant of a month in the provider's zone
  int utc_offset_hours = 0;  // the zone's fixed offset (the zones here have whole hours)
  int gpus = 1;              // GPUs of the instance type (the quote's count)
};

// The policy row's metering and settlement fields, read as data.
struct Rule {
  int granularity = 1, min_run = 0, decimals = 2;
  bool monthly = false;
  RoundingMode rounding = RoundingMode::half_up;
  std::optional<Decimal> lifetime_min;
};

Rule rule_at(ReplayFixture& fx, const std::string& provider, std::int64_t t) {
  store::Statement q(fx.conn(),
                     "SELECT metering_granularity_seconds, min_charge_seconds_per_run, "
                     "settlement_decimals, settlement_period, settlement_rounding, "
                     "min_charge_per_lifetime FROM policy WHERE provider = ? AND "
                     "effective_from <= ? AND (effective_to IS NULL OR effective_to > ?)");
  q.bind(1, provider);
  q.bind(2, static_cast<int64_t>(t));
  q.bind(3, static_cast<int64_t>(t));
  REQUIRE(q.executeStep());
  Rule r;
  r.granularity = q.getColumn(0).getInt();
  r.min_run = q.getColumn(1).getInt();
  r.decimals = q.getColumn(2).getInt();
  r.monthly = q.getColumn(3).getString() == "month";
  r.rounding = parse_rounding_mode(q.getColumn(4).getString());
  if (!q.getColumn(5).isNull()) r.lifetime_min = Decimal::parse(q.getColumn(5).getString());
  return r;
}

Decimal price_at(ReplayFixture& fx, const std::string& provider, const std::string& subject,
                 const std::string& region, const std::string& mode, std::int64_t t) {
  store::Statement q(fx.conn(),
                     "SELECT amount FROM price WHERE provider = ? AND subject = ? AND mode = ? "
                     "AND (region = ? OR region = '') AND effective_from <= ? AND "
                     "(effective_to IS NULL OR effective_to > ?) ORDER BY region DESC LIMIT 1");
  q.bind(1, provider);
  q.bind(2, subject);
  q.bind(3, mode);
  q.bind(4, region);
  q.bind(5, static_cast<int64_t>(t));
  q.bind(6, static_cast<int64_t>(t));
  REQUIRE(q.executeStep());
  return Decimal::parse(q.getColumn(0).getString());
}

// The bill of one meter at `price` per hour for a run of `n` seconds from `t0`, by the rule:
// cut at clock hours (UTC-aligned: whole-hour zones), the minimum's missing seconds added to the
// hour the run ends in (a run ending on the hour: the next), each piece in whole metering units,
// rounded per piece (hourly) or per local calendar month (monthly), then the lifetime minimum.
Decimal expected_bill(const Rule& r, const Decimal& price, std::int64_t t0, std::int64_t n,
                      int utc_offset_hours) {
  std::vector<std::pair<std::int64_t, std::int64_t>> pieces;  // (hour start, seconds)
  for (std::int64_t t = t0; t < t0 + n;) {
    const std::int64_t hour = t - ((t % 3600) + 3600) % 3600;
    const std::int64_t end = std::min(hour + 3600, t0 + n);
    pieces.emplace_back(hour, end - t);
    t = end;
  }
  if (n < r.min_run) {
    const std::int64_t end_hour = (t0 + n) - (((t0 + n) % 3600) + 3600) % 3600;
    if (end_hour == t0 + n) {
      pieces.emplace_back(end_hour, r.min_run - n);
    } else {
      pieces.back().second += r.min_run - n;
    }
  }
  const auto month_of = [&](std::int64_t t) {
    const auto local = date::sys_seconds{std::chrono::seconds{t + utc_offset_hours * 3600}};
    const date::year_month_day d{date::floor<date::days>(local)};
    return int(d.year()) * 12 + int(unsigned(d.month()));
  };
  Decimal billed;
  std::map<int, Decimal> months;
  for (const auto& [hour, s] : pieces) {
    const std::int64_t metered = (s + r.granularity - 1) / r.granularity * r.granularity;
    const Decimal exact =
        Decimal::divide(price * metered, 3600, Decimal::kScale, RoundingMode::half_even);
    if (r.monthly) {
      months[month_of(hour)] += exact;
    } else {
      billed += exact.round(r.decimals, r.rounding);
    }
  }
  for (const auto& [m, exact] : months) billed += exact.round(r.decimals, r.rounding);
  if (r.lifetime_min && billed < *r.lifetime_min) billed = *r.lifetime_min;
  return billed;
}

std::string at_text(std::int64_t s) {
  return format_instant(Instant{std::chrono::seconds{s}});
}

std::string run_log(const Case& c, const std::string& account, std::int64_t t0, std::int64_t n) {
  std::string tail =
      R"(,"provider":")" + c.provider + R"(","region":")" + c.region + R"(","instance_type":")" +
      (c.host_type.empty() ? c.instance_type : c.host_type) + R"(","mode":")" + c.mode + "\"";
  if (!c.host_type.empty()) tail += R"(,"gpu":")" + c.gpu + R"(","gpus":1)";
  return R"({"id":"c","time":")" + at_text(t0) + R"(","type":"create","account":")" + account +
         R"(","instance":"i")" + tail + "}\n" + R"({"id":"d","time":")" + at_text(t0 + n) +
         R"(","type":"destroy","account":")" + account + R"(","instance":"i"})" + "\n";
}

Decimal billed_total(ReplayFixture& fx, const std::string& account) {
  Decimal sum;
  for (const auto& c :
       fx.charges("account = '" + account + "' AND kind != 'sustained_use_discount'")) {
    sum += Decimal::parse(c.total_billed);
  }
  return sum;
}

// The quote's compute total for one run of `n` seconds from the case's month start.
Decimal quoted(ReplayFixture& fx, const Case& c, std::int64_t n) {
  // The prices' own currency: no FX rate is needed (the catalog has none before mid-2017).
  const bool usd = c.provider == "aws" || c.provider == "google" || c.provider == "azure";
  const std::string currency = usd ? "USD" : "CNY";
  // Hours cut to 12 decimals: the quote rounds up to the second, giving back n exactly.
  const std::string hours = Decimal::divide(Decimal(n), 3600, 12, RoundingMode::down).to_string();
  const std::string text =
      R"({"format": "gpubill-workload/1", "gpu": {"models": [")" + c.gpu + R"("], "count": )" +
      std::to_string(c.gpus) + R"(}, "host": {"min_ram_gb": 0}, "duration": {"hours": ")" + hours +
      R"("}, "providers": [")" + c.provider + R"("], "modes": [")" + c.mode + R"("], "date": ")" +
      c.month_start + R"(", "currency": ")" + currency + "\"}";
  const Workload w = parse_workload_json(text, "w.json");
  const Catalog catalog = load_quote_catalog(fx.db(), parse_instant(c.month_start), w);
  const QuoteResult q = QuoteEngine(catalog).quote(resolve_workload(w, catalog));
  const std::string name = c.host_type.empty() ? c.instance_type : c.host_type + "+1×" + c.gpu;
  for (const auto& l : q.lines) {
    if (l.priced && l.instance_type == name && (l.region == c.region || l.region == "*")) {
      return l.compute->amount();
    }
  }
  FAIL("no quote line for " << name);
  return Decimal{};
}

}  // namespace

TEST_CASE("metering edges: every provider and mode against its policy row, and quote = replay",
          "[provider_examples][property][edges]") {
  const std::vector<Case> cases = {
      {"tencent", "ap-guangzhou", "GN8.LARGE56", "P40", "", "payg", "2019-06-01T00:00:00+08:00", 8},
      {"tencent", "ap-guangzhou", "GN8.LARGE56", "P40", "", "spot", "2019-06-01T00:00:00+08:00", 8},
      {"alibaba", "cn-shanghai", "ecs.gn6i-c4g1.xlarge", "T4", "", "payg",
       "2023-07-01T00:00:00+08:00", 8},
      {"alibaba", "cn-shanghai", "ecs.gn6i-c4g1.xlarge", "T4", "", "payg",
       "2024-06-01T00:00:00+08:00", 8},
      {"alibaba", "us-west-1", "ecs.gn5-c4g1.xlarge", "P100", "", "spot",
       "2019-06-01T00:00:00+08:00", 8},
      {"huawei", "cn-north-4", "p2v.16xlarge.8", "V100", "", "payg", "2026-08-01T00:00:00+08:00", 8,
       8},
      {"aws", "us-east-1", "p3.2xlarge", "V100", "", "payg", "2019-06-01T00:00:00Z", 0},
      {"aws", "us-east-1", "p2.xlarge", "K80", "", "payg", "2017-06-01T00:00:00Z", 0},
      {"aws", "us-east-1", "p3.2xlarge", "V100", "", "spot", "2023-06-01T00:00:00Z", 0},
      {"google", "us-central1", "K80", "K80", "n1-highmem-2", "payg", "2019-06-01T00:00:00Z", 0},
      {"azure", "eastus", "Standard_NC12", "K80", "", "payg", "2023-06-01T00:00:00Z", 0, 2},
  };
  for (const auto& c : cases) {
    ReplayFixture fx;
    const std::int64_t t0 = secs(c.month_start.c_str());
    const Rule rule = rule_at(fx, c.provider, t0);
    const std::int64_t minimum = std::max(rule.min_run, rule.granularity);
    std::set<std::int64_t> lengths = {1, 59, 60, 61, 90, 120, 3599, 3600, 3601};
    for (std::int64_t d : {minimum - 1, minimum, minimum + 1}) {
      if (d >= 1) lengths.insert(d);
    }
    // Meters: the instance, or a host and its attached GPU, each billed on its own.
    std::vector<Decimal> prices;
    if (c.host_type.empty()) {
      prices.push_back(price_at(fx, c.provider, c.instance_type, c.region, c.mode, t0));
    } else {
      prices.push_back(price_at(fx, c.provider, c.host_type, c.region, c.mode, t0));
      prices.push_back(price_at(fx, c.provider, c.gpu, c.region, c.mode, t0));
    }
    struct Run {
      std::string account;
      std::int64_t start, seconds;
      bool quotable;
    };
    std::vector<Run> runs;
    std::string log;
    int k = 0;
    for (std::int64_t n : lengths) runs.push_back({"a" + std::to_string(k++), t0, n, true});
    // Across the month end: the last 30 s of the previous month and 60 s of this one, and a
    // run from the previous month's last hour into this month's first.
    runs.push_back({"a" + std::to_string(k++), t0 - 30, 90, false});
    runs.push_back({"a" + std::to_string(k++), t0 - 1800, 3600, false});
    for (const auto& r : runs) log += run_log(c, r.account, r.start, r.seconds);
    fx.replay_text(log, until_s(t0 + 40 * 86400));
    CHECK(fx.count("SELECT COUNT(*) FROM reject") == 0);
    for (const auto& r : runs) {
      INFO(c.provider << " " << c.instance_type << " " << c.mode << " from " << at_text(r.start)
                      << " for " << r.seconds << " s");
      Decimal want;
      for (const Decimal& p : prices) {
        Rule meter = rule;
        // The lifetime minimum is per instance: checked on the sum below.
        meter.lifetime_min.reset();
        want += expected_bill(meter, p, r.start, r.seconds, c.utc_offset_hours);
      }
      if (rule.lifetime_min && want < *rule.lifetime_min) want = *rule.lifetime_min;
      const Decimal got = billed_total(fx, r.account);
      INFO("billed " << got.to_string() << ", the rule gives " << want.to_string());
      CHECK(got == want);
      if (r.quotable) {
        const Decimal q = quoted(fx, c, r.seconds);
        INFO("quoted " << q.to_string());
        CHECK(q == got);
      }
    }
  }
}

TEST_CASE("metering edges: hours across daylight-saving changes are the zone's local hours",
          "[provider_examples][property][edges]") {
  // tests/data/testcloud.json: testcloud-us bills hourly in America/Los_Angeles at 1.00 USD/h,
  // half-up. 2020-03-08 02:00 PST jumps to 03:00 PDT; 2020-11-01 02:00 PDT falls back to 01:00
  // PST. Local hours there are still whole UTC hours, so a run of 3600 s from the half hour is
  // two pieces of 1800 s, and a run through the repeated hour is billed for its real seconds.
  ReplayFixture fx;
  fx.import_catalog(data_path("testcloud.json"));
  const Case c{
      "testcloud-us", "us-test-1", "U.GPU", "T4", "", "payg", "2020-03-01T00:00:00-08:00", 0};
  const Rule rule = rule_at(fx, c.provider, secs("2020-03-01T00:00:00Z"));
  struct Run {
    std::string account;
    std::int64_t start, seconds;
  };
  const std::vector<Run> runs = {
      {"spring", secs("2020-03-08T01:30:00-08:00"), 3600},    // 01:30 PST → 03:30 PDT
      {"spring1", secs("2020-03-08T01:59:59-08:00"), 2},      // the last second before the jump
      {"fall", secs("2020-11-01T00:30:00-07:00"), 3 * 3600},  // 00:30 PDT → 02:30 PST
      {"fall1", secs("2020-11-01T01:59:59-07:00"), 2},        // into the repeated 01:00 hour
  };
  std::string log;
  for (const auto& r : runs) log += run_log(c, r.account, r.start, r.seconds);
  fx.replay_text(log, until("2020-11-03T00:00:00Z"));
  for (const auto& r : runs) {
    INFO(r.account);
    const Decimal want = expected_bill(rule, Decimal(1), r.start, r.seconds, 0);
    CHECK(billed_total(fx, r.account) == want);
    // Every single settlement lies within one local hour, which is a whole UTC hour.
    for (const auto& ch : fx.charges("account = '" + r.account + "' AND repeat = 1")) {
      CHECK((ch.start / 3600 == (ch.end - 1) / 3600));
    }
  }
}
