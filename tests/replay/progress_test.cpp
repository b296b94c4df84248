// Progress reports of replay, rebuild and catalog import (gpubill/base/progress.hpp): positions of
// the input that never decrease and end at the total, whatever the wall clock does.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "gpubill/base/progress.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

struct Seen {
  std::string stage, unit;
  std::uint64_t done = 0, total = 0;
  std::int64_t items = 0;
};

struct Recorder {
  std::vector<Seen> reports;
  ProgressSink sink() {
    return [this](const Progress& p) {
      reports.push_back({std::string(p.stage), std::string(p.unit), p.done, p.total, p.items});
    };
  }
  // Positions and items never decrease, the total stays put, and the last report is complete.
  void check_complete(const std::string& stage, std::uint64_t total) const {
    REQUIRE_FALSE(reports.empty());
    for (std::size_t i = 0; i < reports.size(); ++i) {
      INFO("report " << i);
      CHECK(reports[i].stage == stage);
      CHECK(reports[i].total == total);
      CHECK(reports[i].done <= total);
      if (i > 0) {
        CHECK(reports[i].done >= reports[i - 1].done);
        CHECK(reports[i].items >= reports[i - 1].items);
      }
    }
    CHECK(reports.back().done == total);
  }
};

// `n` top-ups of one account, a second apart: one event a line.
std::string topups(int n) {
  std::string log;
  for (int i = 0; i < n; ++i) {
    const int m = i / 60, s = i % 60;
    log += "{\"id\":\"t" + std::to_string(i) +
           "\",\"time\":\"2019-03-01T09:" + (m < 10 ? "0" : "") + std::to_string(m) + ":" +
           (s < 10 ? "0" : "") + std::to_string(s) +
           "+08:00\",\"type\":\"topup\",\"account\":\"acme\",\"amount\":\"1.00\","
           "\"currency\":\"CNY\"}\n";
  }
  return log;
}

}  // namespace

TEST_CASE("replay reports bytes read, every 1024 events and at the end", "[progress][replay]") {
  ReplayFixture fx;
  const std::string a = fx.write_log("a.jsonl", topups(2500));
  // The second file has no line end at its end: the last byte still counts.
  std::string tail =
      "{\"id\":\"x1\",\"time\":\"2019-03-01T11:00:00+08:00\",\"type\":\"topup\","
      "\"account\":\"acme\",\"amount\":\"1.00\",\"currency\":\"CNY\"}";
  const std::string b = fx.write_log("b.jsonl", tail);
  const auto total = std::filesystem::file_size(a) + std::filesystem::file_size(b);
  Recorder r;
  ReplayOptions options;
  options.progress = r.sink();
  const ReplayReport report = replay_logs(fx.db(), {a, b}, options);
  CHECK(report.events_read == 2501);
  r.check_complete("replay", total);
  REQUIRE(r.reports.size() == 3);  // events 1024 and 2048, then the end
  CHECK(r.reports[0].items == 1024);
  CHECK(r.reports[1].items == 2048);
  CHECK(r.reports[2].items == 2501);
  CHECK(r.reports[0].unit == "bytes");
  // 1024 lines of the first file, each as long as its text and its line end.
  CHECK(r.reports[0].done == topups(1024).size());

  SECTION("rebuild reports the stored events re-applied") {
    Recorder rb;
    RebuildOptions ro;
    ro.progress = rb.sink();
    const RebuildReport rebuilt = rebuild_accounts(fx.db(), ro);
    CHECK(rebuilt.replay.events_read == 2501);
    rb.check_complete("rebuild", 2501);
    CHECK(rb.reports.size() == 3);
    CHECK(rb.reports.front().done == 1024);
  }
}

TEST_CASE("without a sink nothing is reported and nothing changes", "[progress][replay]") {
  ReplayFixture fx;
  const ReplayReport report = fx.replay_text(topups(3));
  CHECK(report.applied == 3);
}

TEST_CASE("catalog import reports the rows written", "[progress][catalog]") {
  ReplayFixture fx;
  Recorder r;
  ImportOptions options;
  options.progress = r.sink();
  options.force = true;
  const ImportReport report = import_catalog_file(fx.db(), data_path("catalog-diff.json"), options);
  r.check_complete("import", report.total());
  CHECK(r.reports.back().unit == "rows");
  CHECK(report.total() == 1 + 2 + 4 + 20);  // provider, regions, instance types, prices
}
