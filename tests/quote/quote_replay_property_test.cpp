// A quote is a promise about a bill (issue 11): for workloads drawn at random and every provider
// with prices (Baidu has none) and every billing mode replay bills, writing the quoted workload as
// a usage log and replaying it bills exactly the quoted compute total — the same settlement cycles,
// rounding, minimums and meters (a Google host and its GPUs are settled apart). The log starts
// where a quote places the run: at the start of a settlement cycle (the first of a month, 00:00 in
// the provider's zone).
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

struct OfferCase {
  std::string provider, region, instance_type, gpu;  // gpu: the workload's model
  int gpus = 1;                                      // GPUs the offer has (or attaches)
  bool attached = false;                             // Google-style host + per-GPU price
  std::string mode;                                  // payg or spot
  std::string month_start;                           // RFC 3339, a cycle start
};

// The log of one workload: `runs` runs of `run_seconds`, one every `period` seconds (one run, one
// run a day, or a spot run's instance lives), each released when `released` (the provider
// charges stopped instances, as the quote assumes; else stopped and started again).
std::string log_of(const OfferCase& o, const std::string& account, std::int64_t run_seconds,
                   int runs, std::int64_t period, bool released) {
  const std::int64_t t0 = secs(o.month_start.c_str());
  const auto at = [](std::int64_t s) { return format_instant(Instant{std::chrono::seconds{s}}); };
  std::string create_tail = R"(,"provider":")" + o.provider + R"(","region":")" + o.region +
                            R"(","instance_type":")" + o.instance_type + R"(","mode":")" + o.mode +
                            "\"";
  if (o.attached) {
    create_tail += R"(,"gpu":")" + o.gpu + R"(","gpus":)" + std::to_string(o.gpus);
  }
  std::string out;
  int n = 0;
  const auto event = [&](std::int64_t t, const std::string& type, const std::string& instance,
                         const std::string& tail) {
    out += R"({"id":"e)" + std::to_string(++n) + R"(","time":")" + at(t) + R"(","type":")" + type +
           R"(","account":")" + account + R"(","instance":")" + instance + "\"" + tail + "}\n";
  };
  for (int d = 0; d < runs; ++d) {
    const std::int64_t start = t0 + std::int64_t{d} * period;
    const std::string id = released ? "i" + std::to_string(d) : "i";
    if (d == 0 || released) {
      event(start, "create", id, create_tail);
    } else {
      event(start, "start", id, "");
    }
    const bool last = d + 1 == runs;
    event(start + run_seconds, released || last ? "destroy" : "stop", id, "");
  }
  return out;
}

// Summed exactly (never in SQL: amounts are decimal text).
Decimal billed_total(ReplayFixture& fx, const std::string& account) {
  Decimal sum;
  for (const auto& c : fx.charges("account = '" + account + "'")) {
    sum += Decimal::parse(c.total_billed);
  }
  return sum;
}

}  // namespace

TEST_CASE("quote equals replay: random workloads on every provider's pay-as-you-go and spot",
          "[quote][replay][property]") {
  const std::vector<OfferCase> cases = {
      {"tencent", "ap-guangzhou", "GN8.LARGE56", "P40", 1, false, "payg",
       "2019-06-01T00:00:00+08:00"},
      {"alibaba", "cn-shanghai", "ecs.gn6i-c4g1.xlarge", "T4", 1, false, "payg",
       "2023-07-01T00:00:00+08:00"},  // hourly settlement, rounded down, 0.01 minimum
      {"alibaba", "cn-shanghai", "ecs.gn6i-c4g1.xlarge", "T4", 1, false, "payg",
       "2024-06-01T00:00:00+08:00"},  // monthly settlement from 2024-04-01
      {"tencent", "ap-guangzhou", "GN8.LARGE56", "P40", 1, false, "spot",
       "2019-06-01T00:00:00+08:00"},  // a test-fixture spot price (tests/data)
      {"alibaba", "us-west-1", "ecs.gn5-c4g1.xlarge", "P100", 1, false, "spot",
       "2019-06-01T00:00:00+08:00"},  // a test-fixture spot price (tests/data)
      {"huawei", "cn-north-4", "p2v.16xlarge.8", "V100", 8, false, "payg",
       "2026-08-01T00:00:00+08:00"},
      {"aws", "us-east-1", "p3.2xlarge", "V100", 1, false, "payg", "2019-06-01T00:00:00Z"},
      {"aws", "us-east-1", "p3.2xlarge", "V100", 1, false, "spot", "2023-06-01T00:00:00Z"},
      {"google", "us-central1", "n1-highmem-2", "K80", 1, true, "payg", "2019-06-01T00:00:00Z"},
      {"azure", "eastus", "Standard_NC12", "K80", 2, false, "payg", "2023-06-01T00:00:00Z"},
  };
  std::mt19937 rng(20261201);
  for (const auto& o : cases) {
    ReplayFixture fx;
    // Workloads: one run of 1 s to 27 days, or 2–27 daily runs of up to 24 h (within a month).
    struct Drawn {
      std::int64_t seconds;
      int days;
    };
    std::vector<Drawn> drawn = {{30, 1}, {3600, 1}, {5400, 1}};
    for (int i = 0; i < 5; ++i) {
      drawn.push_back({std::uniform_int_distribution<std::int64_t>(1, 27 * 86400)(rng), 1});
      drawn.push_back({std::uniform_int_distribution<std::int64_t>(1, 86400)(rng),
                       std::uniform_int_distribution<int>(2, 27)(rng)});
    }
    std::string log;
    std::vector<std::pair<std::string, Drawn>> accounts;
    std::vector<Decimal> quoted;
    std::vector<bool> released;
    for (std::size_t k = 0; k < drawn.size(); ++k) {
      const auto& d = drawn[k];
      const std::string hours =
          Decimal::divide(Decimal(d.seconds), 3600, 12, RoundingMode::half_even).to_string();
      std::string duration =
          d.days == 1 ? R"("hours": ")" + hours + "\""
                      : R"("hours_per_day": ")" + hours + R"(", "days": )" + std::to_string(d.days);
      const std::string text = R"({"format": "gpubill-workload/1", "gpu": {"models": [")" + o.gpu +
                               R"("], "count": )" + std::to_string(o.gpus) +
                               R"(}, "host": {"min_ram_gb": 0}, "duration": {)" + duration +
                               R"(}, "providers": [")" + o.provider + R"("], "modes": [")" +
                               o.mode + R"("], "date": ")" + o.month_start + "\"}";
      INFO(o.provider << " " << o.instance_type << " " << o.mode << " " << o.month_start << ": "
                      << text);
      const Workload w = parse_workload_json(text, "w.json");
      const Catalog catalog = load_quote_catalog(fx.db(), parse_instant(o.month_start), w);
      const QuoteResult q = QuoteEngine(catalog).quote(resolve_workload(w, catalog));
      const QuoteLine* line = nullptr;
      for (const auto& l : q.lines) {
        const std::string name = o.attached
                                     ? o.instance_type + "+" + std::to_string(o.gpus) + "×" + o.gpu
                                     : o.instance_type;
        if (l.priced && l.instance_type == name && l.region == o.region) {
          line = &l;
        }
      }
      REQUIRE(line != nullptr);
      REQUIRE(line->compute);
      if (o.mode == "spot") {
        // Spot terms from the policy row: Alibaba's protection hour.
        const bool protection =
            std::any_of(line->notes.begin(), line->notes.end(), [](const std::string& n) {
              return n.rfind("not reclaimed in its first 1 h (protection period", 0) == 0;
            });
        CHECK(protection == (o.provider == "alibaba"));
      }
      const std::string account = "w" + std::to_string(k);
      quoted.push_back(line->compute->amount());
      released.push_back(line->released_daily);
      accounts.emplace_back(account, d);
      log += log_of(o, account, line->run_seconds, d.days, 86400, line->released_daily);
    }
    fx.replay_text(
        log,
        until(
            (format_instant(parse_instant(o.month_start) + std::chrono::hours{24 * 32})).c_str()));
    CHECK(fx.count("SELECT COUNT(*) FROM reject") == 0);
    for (std::size_t k = 0; k < accounts.size(); ++k) {
      INFO(o.provider << " " << o.instance_type << " " << o.mode << " " << o.month_start << ": "
                      << accounts[k].second.seconds << " s × " << accounts[k].second.days
                      << (released[k] ? " (released daily)" : ""));
      CHECK(billed_total(fx, accounts[k].first).to_string() == quoted[k].to_string());
    }
  }
}

TEST_CASE("quote equals replay: prepaid plans bought as an order and renewals",
          "[quote][replay][property]") {
  // The quote's cheapest plan of terms for ceil(span / 720 h) months, bought as the create's
  // order and renewals at once: the charges add up to the quoted compute total.
  const std::vector<OfferCase> cases = {
      {"tencent", "ap-guangzhou", "GN8.LARGE56", "P40", 1, false, "prepaid",
       "2019-06-01T00:00:00+08:00"},
      {"alibaba", "cn-shanghai", "ecs.gn6i-c4g1.xlarge", "T4", 1, false, "prepaid",
       "2024-06-01T00:00:00+08:00"},
      {"huawei", "cn-north-4", "p2.2xlarge.8", "V100", 1, false, "prepaid",
       "2021-03-01T00:00:00+08:00"},  // test-fixture prices: the catalog has no Huawei prepaid one
  };
  std::mt19937 rng(1201);
  for (const auto& o : cases) {
    ReplayFixture fx;
    if (o.provider == "huawei") fx.import_catalog(data_path("huawei-fake-prices.json"));
    std::string log;
    std::vector<std::pair<std::string, Decimal>> quoted;
    for (int k = 0; k < 6; ++k) {
      const int hours = std::uniform_int_distribution<int>(1, 720 * 40)(rng);
      const std::string text = R"({"format": "gpubill-workload/1", "gpu": {"models": [")" + o.gpu +
                               R"("], "count": )" + std::to_string(o.gpus) +
                               R"(}, "host": {"min_ram_gb": 0}, "duration": {"hours": )" +
                               std::to_string(hours) + R"(}, "providers": [")" + o.provider +
                               R"("], "modes": ["prepaid"], "date": ")" + o.month_start + "\"}";
      INFO(o.provider << " " << o.instance_type << ": " << text);
      const Workload w = parse_workload_json(text, "w.json");
      const Catalog catalog = load_quote_catalog(fx.db(), parse_instant(o.month_start), w);
      const QuoteResult q = QuoteEngine(catalog).quote(resolve_workload(w, catalog));
      const QuoteLine* line = nullptr;
      for (const auto& l : q.lines) {
        if (l.priced && l.instance_type == o.instance_type &&
            (l.region == o.region || l.region == "*")) {
          line = &l;
        }
      }
      REQUIRE(line != nullptr);
      REQUIRE(line->plan);
      const std::string account = "w" + std::to_string(k);
      const std::string at = format_instant(parse_instant(o.month_start));
      const std::string head =
          R"({"time":")" + at + R"(","account":")" + account + R"(","instance":"i")";
      log += R"({"time":")" + at + R"(","account":")" + account +
             R"(","id":"t","type":"topup","amount":")" + line->compute->amount().to_string() +
             R"(","currency":")" + line->compute->currency().to_string() + "\"}\n";
      int n = 0;
      for (const auto& planned : line->plan->orders) {
        for (std::int64_t c = 0; c < planned.count; ++c) {
          const std::string months = std::to_string(planned.order.months);
          log += n == 0 ? head + R"(,"id":"e0","type":"create","provider":")" + o.provider +
                              R"(","region":")" + o.region + R"(","instance_type":")" +
                              o.instance_type + R"(","mode":"prepaid","months":)" + months +
                              R"(,"auto_renew":false})" + "\n"
                        : head + R"(,"id":"e)" + std::to_string(n) +
                              R"(","type":"renew","months":)" + months + "}\n";
          ++n;
        }
      }
      quoted.emplace_back(account, line->compute->amount());
    }
    fx.replay_text(
        log,
        until((format_instant(parse_instant(o.month_start) + std::chrono::hours{24})).c_str()));
    CHECK(fx.count("SELECT COUNT(*) FROM reject") == 0);
    for (const auto& [account, total] : quoted) {
      INFO(o.provider << " " << o.instance_type << " " << account);
      CHECK(billed_total(fx, account) == total);
      CHECK(fx.movements(account).back().balance_after == "0");  // the top-up was the quote
    }
  }
}

TEST_CASE("quote equals replay: spot lines under an interruption model, life by life",
          "[quote][replay][property][spot]") {
  // The expected total of a spot line is a promise about the bill of its instance lives: each
  // life a run of its own (a new instance where stopped instances are charged), starting on a
  // whole hour, within one settlement month.
  const std::vector<OfferCase> cases = {
      {"tencent", "ap-guangzhou", "GN8.LARGE56", "P40", 1, false, "spot",
       "2019-06-01T00:00:00+08:00"},
      {"alibaba", "us-west-1", "ecs.gn5-c4g1.xlarge", "P100", 1, false, "spot",
       "2019-06-01T00:00:00+08:00"},
      {"aws", "us-east-1", "p3.2xlarge", "V100", 1, false, "spot", "2023-06-01T00:00:00Z"},
  };
  const char* rates[] = {"0", "0.01", "0.05", "0.2"};
  const char* intervals[] = {"0.5", "1", "2"};
  const char* writes[] = {"0", "0.05"};
  const char* restarts[] = {"0", "0.1"};
  std::mt19937 rng(20261202);
  const auto pick = [&](const auto& options) {
    return options[std::uniform_int_distribution<std::size_t>(0, std::size(options) - 1)(rng)];
  };
  for (const auto& o : cases) {
    ReplayFixture fx;
    std::string log;
    std::vector<std::pair<std::string, Decimal>> quoted;
    for (int k = 0; k < 8; ++k) {
      const std::int64_t work = std::uniform_int_distribution<std::int64_t>(1, 4 * 86400)(rng);
      const std::string text =
          R"({"gpu": {"models": [")" + o.gpu + R"("]}, "host": {"min_ram_gb": 0}, "duration": )" +
          R"({"hours": ")" +
          Decimal::divide(Decimal(work), 3600, 12, RoundingMode::half_even).to_string() +
          R"("}, "spot": {"interruptions_per_hour": ")" + pick(rates) +
          R"(", "checkpoint_interval_hours": ")" + pick(intervals) +
          R"(", "checkpoint_write_hours": ")" + pick(writes) + R"(", "restart_hours": ")" +
          pick(restarts) + R"("}, "providers": [")" + o.provider +
          R"("], "modes": ["spot"], "date": ")" + o.month_start + "\"}";
      INFO(o.provider << " " << text);
      const Workload w = parse_workload_json(text, "w.json");
      const Catalog catalog = load_quote_catalog(fx.db(), parse_instant(o.month_start), w);
      const QuoteResult q = QuoteEngine(catalog).quote(resolve_workload(w, catalog));
      const QuoteLine* line = nullptr;
      for (const auto& l : q.lines) {
        if (l.priced && l.instance_type == o.instance_type && l.region == o.region) line = &l;
      }
      REQUIRE(line != nullptr);
      REQUIRE(line->spot_expectation);
      CHECK(line->runs == line->spot_expectation->lives);
      const std::string account = "s" + std::to_string(k);
      quoted.emplace_back(account, line->compute->amount());
      const std::int64_t period = (line->run_seconds + 3599) / 3600 * 3600;
      log += log_of(o, account, line->run_seconds, static_cast<int>(line->runs), period,
                    line->policy->stopped_payg_compute_charged);
    }
    fx.replay_text(
        log,
        until(
            (format_instant(parse_instant(o.month_start) + std::chrono::hours{24 * 32})).c_str()));
    CHECK(fx.count("SELECT COUNT(*) FROM reject") == 0);
    for (const auto& [account, amount] : quoted) {
      INFO(o.provider << " " << account);
      CHECK(billed_total(fx, account).to_string() == amount.to_string());
    }
  }
}
