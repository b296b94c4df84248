// Writes a synthetic, time-ordered usage log (JSON Lines, docs/usage-log.md) for the replay
// benchmark: accounts with top-ups, pay-as-you-go and prepaid instances on the bundled
// catalog's Tencent and Alibaba offers, and start/stop cycles.
//
//   gpubill_gen_log --instances 10000 --days 30 --out log.jsonl [--seed 1]
//
// Deterministic: the same arguments give the same file (own PRNG, no std distributions).
#include <date/date.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Rng {  // splitmix64
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::int64_t below(std::int64_t n) {
    return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n));
  }
};

struct Event {
  std::int64_t time;
  std::string line;  // without the time, which is inserted on output
  bool operator<(const Event& o) const { return time < o.time; }
};

std::string iso(std::int64_t t) {
  return date::format("%FT%TZ", date::sys_seconds{std::chrono::seconds{t}});
}

}  // namespace

int main(int argc, char** argv) {
  long instances = 10000, days = 30, seed = 1;
  std::string out = "usage.jsonl";
  const char* usage = "usage: gpubill_gen_log --instances N --days D --out FILE [--seed S]\n";
  if (argc % 2 == 0) {  // every option takes a value
    std::cerr << usage;
    return 2;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--instances"))
      instances = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--days"))
      days = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::atol(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--out"))
      out = argv[i + 1];
    else {
      std::cerr << usage;
      return 2;
    }
  }
  Rng rng{static_cast<std::uint64_t>(seed)};
  const std::int64_t start = 1546272000;  // 2019-01-01 00:00 +08:00
  const std::int64_t end = start + days * 86400;
  const long accounts = std::max(1L, instances / 10);
  struct Offer {
    const char* provider;
    const char* region;
    const char* type;
  };
  const Offer payg_offers[] = {{"tencent", "ap-guangzhou", "GN8.LARGE56"},
                               // Priced over every day a 300-day log covers: GN7 (T4)
                               // only from 2019-10-16 (its creates were rejected), GN10's
                               // list ends 2019-04-21 (every later hour unpriced).
                               {"tencent", "ap-guangzhou", "GN2.7XLARGE56"},
                               {"tencent", "ap-guangzhou", "GN10X.2XLARGE40"}};
  std::vector<Event> events;
  events.reserve(static_cast<std::size_t>(instances * (2 * days + 2) + accounts * days));
  long seq = 0;
  auto add = [&](std::int64_t t, long account, const std::string& body) {
    events.push_back({t, "\"id\":\"e" + std::to_string(++seq) + "\",\"account\":\"acct" +
                             std::to_string(account) + "\"," + body});
  };
  // Each account is topped up enough to stay in credit, once a day.
  for (long a = 0; a < accounts; ++a) {
    for (std::int64_t d = 0; d < days; ++d) {
      add(start + d * 86400 + 60, a,
          "\"type\":\"topup\",\"amount\":\"100000\",\"currency\":\"CNY\"");
    }
  }
  for (long i = 0; i < instances; ++i) {
    const long account = i % accounts;
    const std::string inst = "\"instance\":\"i" + std::to_string(i) + "\"";
    const bool prepaid = i % 5 == 0;
    const Offer& o = payg_offers[static_cast<std::size_t>(i) % 3];
    std::int64_t t = start + 3600 + rng.below(86400);
    add(t, account,
        std::string("\"type\":\"create\",") + inst + ",\"provider\":\"" + o.provider +
            "\",\"region\":\"" + o.region + "\",\"instance_type\":\"" + o.type + "\",\"mode\":\"" +
            (prepaid ? "prepaid\",\"months\":1,\"auto_renew\":true" : "payg\""));
    if (prepaid) continue;  // prepaid instances run for their term; time causes the rest
    // Start/stop cycles at a fixed rate, so a log of 10× the days has about 10× the events:
    // a stop or start every 12.4 h on average (about 58 over 30 days), runs of hours.
    bool running = true;
    const std::int64_t step = 44'690;
    while (true) {
      t += step / 2 + rng.below(step);
      if (t >= end) break;
      add(t, account, std::string("\"type\":\"") + (running ? "stop" : "start") + "\"," + inst);
      running = !running;
    }
  }
  std::stable_sort(events.begin(), events.end());
  std::ofstream f(out);
  for (const auto& e : events) f << "{\"time\":\"" << iso(e.time) << "\"," << e.line << "}\n";
  f.close();
  if (!f) {
    std::cerr << "gpubill_gen_log: cannot write " << out << "\n";
    return 1;
  }
  std::cerr << "wrote " << events.size() << " events for " << instances << " instances over "
            << days << " days to " << out << "\n";
  return 0;
}
