// Commitments in replay (issue 29, engine/replay/replay_sim_commit.cpp): a log with a reserved
// instance replayed whole, split at every line and in small parts gives the same rows (the
// commitment lives in the account's saved state), and the bulk fast path stops at the term's
// start. Bundled catalog: g4dn.xlarge us-east-1 on demand 0.526 USD/h; its 1-year standard
// no-upfront RI 0.331 USD/h (g4dn: no size flexibility, apply_ri.md).
#include <catch2/catch.hpp>

#include <vector>

#include "gpubill/base/decimal.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

// Hours 05:00–24:00 of 2025-12-01 are the commitment's (19 hours). Usage in them:
//   05–06 a 3600;  06–07 a 3600, b 2400;  07–08 a, b 3600 each;  08–09 a 600, b 3600;
//   09–12 a, b 3600 each;  12–14 a 3600;  14–15 a 1800;  15–24 nothing.
// The RI covers up to 3600 s an hour, first instance first: 3600 in each of the 9 hours 05–14,
// 1800 in 14–15 → 34200 s covered; unused 1800 + 9 × 3600 = 34200 s; a fee every hour: 19 rows.
const std::vector<std::string> kLines = {
    R"({"id":"t1","time":"2025-12-01T00:00:00Z","type":"topup","account":"acme","amount":"1000","currency":"USD"})",
    R"({"id":"c1","time":"2025-12-01T00:00:00Z","type":"create","account":"acme","instance":"a","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","mode":"payg"})",
    R"({"id":"ri-1","time":"2025-12-01T01:30:00Z","type":"commit","account":"acme","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","term":"1y","payment":"no_upfront","class":"standard","count":1,"start":"2025-12-01T05:00:00Z"})",
    R"({"id":"c2","time":"2025-12-01T06:20:00Z","type":"create","account":"acme","instance":"b","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","mode":"payg"})",
    R"({"id":"s1","time":"2025-12-01T08:10:00Z","type":"stop","account":"acme","instance":"a"})",
    R"({"id":"s2","time":"2025-12-01T09:00:00Z","type":"start","account":"acme","instance":"a"})",
    R"({"id":"d1","time":"2025-12-01T12:00:00Z","type":"destroy","account":"acme","instance":"b"})",
    R"({"id":"s3","time":"2025-12-01T14:30:00Z","type":"stop","account":"acme","instance":"a"})",
};
constexpr const char* kUntil = "2025-12-02T00:00:00Z";

std::string lines(std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) out += kLines[i] + "\n";
  return out;
}

Decimal sum_of(ReplayFixture& fx, const std::string& what, const std::string& kind) {
  Decimal sum;
  store::Statement q(fx.conn(), "SELECT " + what + " FROM charge WHERE kind = ?");
  q.bind(1, kind);
  while (q.executeStep()) sum += Decimal::parse(q.getColumn(0).getString());
  return sum;
}

}  // namespace

TEST_CASE("A log with a commitment: covered, unused and fee rows as worked out by hand",
          "[replay][commitments]") {
  ReplayFixture fx;
  const auto r = fx.replay_text(lines(0, kLines.size()), until(kUntil));
  CHECK(r.rejected == 0);
  CHECK(sum_of(fx, "quantity", "commitment_covered") == Decimal(34200));
  CHECK(sum_of(fx, "quantity", "commitment_unused") == Decimal(34200));
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE kind = 'commitment_fee'") == 19);
  CHECK(sum_of(fx, "total_billed", "commitment_fee") == Decimal::parse("0.331") * 19);
  // The first covered hour is the term's first: the hours before it ran in bulk and stopped there.
  CHECK(fx.count("SELECT MIN(period_start) FROM charge WHERE kind = 'commitment_covered'") ==
        1764565200);  // 2025-12-01T05:00:00Z
  // Covered at the on-demand rate: 34200 s × 0.526 / 3600 = 4.997 USD offset.
  CHECK(sum_of(fx, "total_exact", "commitment_covered") == Decimal::parse("-4.997"));
  // The balance movements add up and each shows the balance replay recorded: at an hour end the
  // settlements first, then the covered credits and the fee.
  const auto s = monthly_statement(fx.db(), "acme", 2025, 12, Calendar("UTC"));
  REQUIRE(s.balances.size() == 1);
  CHECK(s.balances[0].reconciles);
  CHECK(s.balances[0].movements > 19);
}

TEST_CASE("A log with a commitment replayed in two parts equals it whole, at every split",
          "[replay][property][commitments]") {
  ReplayFixture whole;
  whole.replay_text(lines(0, kLines.size()), until(kUntil));
  const std::string expected = whole.dump();
  for (std::size_t k = 1; k < kLines.size(); ++k) {
    ReplayFixture split;
    split.replay_text(lines(0, k), {}, "part1.jsonl");
    split.replay_text(lines(k, kLines.size()), until(kUntil), "part2.jsonl");
    INFO("split after line " << k);
    CHECK(split.dump() == expected);
  }
  ReplayFixture parts;  // one line a replay, with the clock moved on between them
  for (std::size_t k = 0; k < kLines.size(); ++k) {
    parts.replay_text(lines(k, k + 1), {}, "part" + std::to_string(k) + ".jsonl");
  }
  parts.replay_text("", until(kUntil));
  CHECK(parts.dump() == expected);
}

// Google's per-GPU committed use discount (bundled: V100 us-central1 1-year CUD 1.562 USD per
// GPU-hour from 2022-03-14; on demand 2.48): one committed GPU, an n1-standard-8 with 2 V100 for
// 10:00–12:00. Each hour has 7200 GPU-seconds: 3600 covered (−2.48), 3600 on demand; the fee
// 1.562 an hour; the host (0.379998/h) is not covered, and its cycle's record, 0.759996, is
// rounded to 0.76 when it is released (+0.000004). Two hours: 2 × (2 × 2.48 − 2.48 + 1.562) + 0.76
// = 8.844 USD; the GPU meter's cycle nets to 0, nothing to round.
TEST_CASE("A Google per-GPU commitment covers one GPU's hour of a two-GPU host",
          "[replay][commitments]") {
  ReplayFixture fx;
  const auto r = fx.replay_text(
      R"({"id":"cud-1","time":"2022-04-01T10:00:00Z","type":"commit","account":"g","provider":"google","region":"us-central1","gpu":"v100","term":"1y","payment":"no_upfront","count":1})"
      "\n"
      R"({"id":"c1","time":"2022-04-01T10:00:00Z","type":"create","account":"g","instance":"vm","provider":"google","region":"us-central1","instance_type":"n1-standard-8","mode":"payg","gpus":2,"gpu":"V100"})"
      "\n"
      R"({"id":"d1","time":"2022-04-01T12:00:00Z","type":"destroy","account":"g","instance":"vm"})"
      "\n",
      until("2022-04-01T12:00:00Z"));
  CHECK(r.rejected == 0);
  CHECK(sum_of(fx, "quantity", "commitment_covered") == Decimal(7200));
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE kind = 'commitment_unused'") == 0);
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE kind = 'commitment_covered' AND "
                 "component = 'compute' AND unit = 'gpu_second'") == 2);
  Decimal billed;
  store::Statement q(fx.conn(), "SELECT total_billed FROM charge WHERE account = 'g'");
  while (q.executeStep()) billed += Decimal::parse(q.getColumn(0).getString());
  CHECK(billed == Decimal::parse("8.844"));
}

// The same commitment from a CSV log (docs/usage-log.md): a start an hour after the purchase, and
// an instance in its first hour: 1800 s covered, 1800 s unused; the hour before the term none.
TEST_CASE("A commit event in a CSV log, with a later start", "[replay][commitments]") {
  ReplayFixture fx;
  const auto r = fx.replay_text(
      "id,time,type,account,instance,provider,region,instance_type,mode,term,payment,class,"
      "count,start\n"
      "ri-1,2025-12-01T09:00:00Z,commit,acme,,aws,us-east-1,g4dn.xlarge,,1y,no_upfront,"
      "standard,1,2025-12-01T10:00:00Z\n"
      "c1,2025-12-01T09:30:00Z,create,acme,a,aws,us-east-1,g4dn.xlarge,payg,,,,,\n"
      "d1,2025-12-01T10:30:00Z,destroy,acme,a,,,,,,,,,\n",
      until("2025-12-01T11:00:00Z"), "log.csv");
  CHECK(r.rejected == 0);
  CHECK(sum_of(fx, "quantity", "commitment_covered") == Decimal(1800));
  CHECK(sum_of(fx, "quantity", "commitment_unused") == Decimal(1800));
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE kind = 'commitment_fee'") == 1);
  CHECK(fx.count("SELECT period_start FROM charge WHERE kind = 'commitment_purchase'") ==
        1764583200);  // 2025-12-01T10:00:00Z, the term's start
}

// A purchase in the middle of an hour starts its term at the next clock hour (UTC): bought at
// 09:20, the term runs from 10:00; the instance's 09:20–10:00 is on demand, 10:00–11:00 covered.
TEST_CASE("A commitment bought mid-hour starts at the next clock hour", "[replay][commitments]") {
  ReplayFixture fx;
  const auto r = fx.replay_text(
      R"({"id":"ri-1","time":"2025-12-01T09:20:00Z","type":"commit","account":"acme","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","term":"1y","payment":"all_upfront","class":"standard","count":1})"
      "\n"
      R"({"id":"c1","time":"2025-12-01T09:20:00Z","type":"create","account":"acme","instance":"a","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","mode":"payg"})"
      "\n",
      until("2025-12-01T11:00:00Z"));
  CHECK(r.rejected == 0);
  CHECK(fx.count("SELECT period_start FROM charge WHERE kind = 'commitment_purchase'") ==
        1764583200);  // 2025-12-01T10:00:00Z
  CHECK(fx.count("SELECT period_end FROM charge WHERE kind = 'commitment_purchase'") ==
        1764583200 + 8760 * 3600);
  CHECK(sum_of(fx, "quantity", "commitment_covered") == Decimal(3600));
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE kind = 'commitment_unused'") == 0);
}
