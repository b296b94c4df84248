// A small deterministic generator of valid, time-ordered usage logs for the replay property
// tests: accounts with top-ups, pay-as-you-go, spot and prepaid instances on the bundled
// catalog's Tencent, Alibaba and AWS offers, start/stop cycles, resizes and destroys, at times
// that are sometimes exactly on the hour. It also returns, per pay-as-you-go instance, the
// intervals in which compute is billed (for "settled seconds = running seconds").
#pragma once

#include <date/date.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpubill::testing {

struct GeneratorOptions {
  std::uint64_t seed = 1;
  int accounts = 2;
  int instances_per_account = 3;
  int days = 3;
  // Start 2021-03-30 00:00 +08:00: the log crosses a month end in UTC+8 and in UTC.
  std::int64_t start = 1617033600;
  bool rich = true;       // top-ups large enough that no balance goes negative
  bool with_aws = false;  // AWS instances (USD, 60 s minimum per run; not in `accrual`)
};

struct GeneratedLog {
  std::vector<std::string> lines;  // time order
  std::int64_t until = 0;          // an hour boundary after every event
  // account/instance → intervals [from, to) in which compute accrues (Tencent: running;
  // Alibaba: create to destroy, its policy bills compute while stopped). Open intervals end at
  // `until`.
  std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>> accrual;
};

class LogGenerator {
 public:
  explicit LogGenerator(GeneratorOptions o) : o_(o), state_(o.seed * 0x9E3779B97F4A7C15ULL + 7) {}

  GeneratedLog generate() {
    GeneratedLog out;
    Events events;
    const std::int64_t end = o_.start + o_.days * 86400;
    for (int a = 0; a < o_.accounts; ++a) {
      const std::string account = "acct" + std::to_string(a);
      add_topups(account, end, events);
      for (int i = 0; i < o_.instances_per_account; ++i) add_instance(account, i, end, events, out);
    }
    number_lines(events.list, out);
    out.until = (end / 3600 + 2) * 3600;
    for (auto& [key, intervals] : out.accrual) {
      for (auto& [from, to] : intervals) {
        if (to < 0) to = out.until;
      }
    }
    return out;
  }

 private:
  struct Event {
    std::int64_t time;
    int order;
    std::string account, body;
  };
  // The events so far; `order` keeps the order of events at the same time.
  struct Events {
    std::vector<Event> list;
    int order = 0;
    void add(std::int64_t t, const std::string& account, const std::string& body) {
      list.push_back({t, order++, account, body});
    }
  };

  // The account's top-ups: one at the start (and one in USD for AWS), more through a poor
  // account's days.
  void add_topups(const std::string& account, std::int64_t end, Events& events) {
    events.add(o_.start, account,
               R"("type":"topup","amount":")" + std::string(o_.rich ? "1000000" : "60") +
                   R"(","currency":"CNY")");
    if (o_.with_aws) {
      events.add(o_.start, account, R"("type":"topup","amount":"1000","currency":"USD")");
    }
    if (!o_.rich) {
      for (int k = 0; k < o_.days * 2; ++k) {
        events.add(time_between(o_.start, end), account,
                   R"("type":"topup","amount":")" + std::to_string(10 + below(80)) +
                       R"(.5","currency":"CNY")");
      }
    }
  }

  // Instance i of the account: its creation, then stops and starts, resizes or its destruction
  // until `end`, and the intervals in which its compute accrues.
  void add_instance(const std::string& account, int i, std::int64_t end, Events& events,
                    GeneratedLog& out) {
    const std::string id = "i" + std::to_string(i);
    const std::string inst = R"("instance":")" + id + R"(")";
    const int kind = static_cast<int>(below(o_.with_aws ? 5 : 4));
    std::int64_t t = time_between(o_.start, o_.start + 86400);
    std::string create;
    bool stop_stops = true;
    bool tracked = true;
    bool resizable = false;
    switch (kind) {
      case 0:
        create =
            R"("provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg")";
        resizable = true;
        break;
      case 1:
        create =
            R"("provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"spot")";
        break;
      case 2:
        create =
            R"("provider":"alibaba","region":"intl-us-west-1","instance_type":"ecs.gn5-c4g1.xlarge","mode":"payg")";
        stop_stops = false;
        break;
      case 3:
        create =
            R"("provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1,"auto_renew":)" +
            std::string(below(2) ? "true" : "false");
        tracked = false;
        break;
      default:
        create =
            R"("provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"payg")";
        tracked = false;
        break;
    }
    if (kind == 3 && !o_.rich) return;  // a poor account cannot buy a month
    events.add(t, account, R"("type":"create",)" + inst + "," + create);
    auto& intervals = out.accrual[account + "/" + id];
    std::int64_t open = t;
    bool running = true;
    bool big = false;
    bool destroyed = false;
    while (true) {
      t = next_time(t);
      if (t >= end) break;
      const auto roll = below(100);
      if (kind == 3) {
        // Prepaid: stop/start only (destroying before expiry is forbidden).
        events.add(t, account,
                   std::string(R"("type":")") + (running ? "stop" : "start") + R"(",)" + inst);
        running = !running;
        continue;
      }
      if (roll < 8) {
        events.add(t, account, R"("type":"destroy",)" + inst);
        if (open >= 0) intervals.emplace_back(open, t);
        open = -1;
        destroyed = true;
        break;
      }
      if (resizable && roll < 25) {
        big = !big;
        events.add(t, account,
                   R"("type":"resize",)" + inst + R"(,"instance_type":")" +
                       (big ? "GN8.3XLARGE112" : "GN8.LARGE56") + R"(")");
        continue;
      }
      events.add(t, account,
                 std::string(R"("type":")") + (running ? "stop" : "start") + R"(",)" + inst);
      if (stop_stops) {
        if (running) {
          intervals.emplace_back(open, t);
          open = -1;
        } else {
          open = t;
        }
      }
      running = !running;
    }
    if (!destroyed && open >= 0) intervals.emplace_back(open, -1);  // open to `until`
    if (!tracked) out.accrual.erase(account + "/" + id);
  }

  // Events in time order (equal times in the order they were added) as log lines, numbered
  // per account.
  static void number_lines(std::vector<Event>& events, GeneratedLog& out) {
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      return a.time != b.time ? a.time < b.time : a.order < b.order;
    });
    std::map<std::string, int> ids;
    for (const auto& e : events) {
      const int n = ++ids[e.account];
      out.lines.push_back(R"({"id":"e)" + std::to_string(n) + R"(","time":")" + iso(e.time) +
                          R"(","account":")" + e.account + R"(",)" + e.body + "}");
    }
  }

  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::int64_t below(std::int64_t n) {
    return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n));
  }
  std::int64_t time_between(std::int64_t from, std::int64_t to) { return from + below(to - from); }
  // The next event time: usually minutes to hours later, sometimes on the next hour exactly,
  // sometimes within the same second's neighbourhood.
  std::int64_t next_time(std::int64_t t) {
    switch (below(6)) {
      case 0:
        return (t / 3600 + 1 + below(3)) * 3600;  // exactly on an hour
      case 1:
        return t + 1 + below(90);  // seconds later
      default:
        return t + 60 + below(8 * 3600);
    }
  }
  static std::string iso(std::int64_t t) {
    return date::format("%FT%TZ", date::sys_seconds{std::chrono::seconds{t}});
  }

  GeneratorOptions o_;
  std::uint64_t state_;
};

// Lines [from, to) of a generated log as one text, leaving out line `skip`.
inline std::string join_lines(const std::vector<std::string>& lines, std::size_t from,
                              std::size_t to, std::size_t skip = SIZE_MAX) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    if (i != skip) out += lines[i] + "\n";
  }
  return out;
}

// Generator options that mix providers: odd seeds run into arrears, even ones stay funded.
inline GeneratorOptions mixed_generator(std::uint64_t seed) {
  GeneratorOptions o;
  o.seed = seed;
  o.rich = seed % 2 == 0;
  o.with_aws = true;
  return o;
}

}  // namespace gpubill::testing
