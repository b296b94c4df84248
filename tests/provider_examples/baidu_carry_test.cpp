// Baidu AI Cloud's sub-cent carry, end to end through the CLI: a pay-as-you-go charge cycle is
// charged rounded down to 0.01 and the part below is carried into the next cycle (policy
// usage_rounding: down_carry). tests/data/baidu-doc-examples.json holds a BCC priced 0.106 CNY an
// hour, so that each hourly charge cycle costs the example's 10.6 cents.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

const char* const kCarryTopup =
    R"({"id":"t1","time":"2017-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"10","currency":"CNY"}
)";
const char* const kCarryCreate =
    R"({"id":"c1","time":"2017-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"b","provider":"baidu","region":"bj","instance_type":"bcc.doc.carry","mode":"payg"}
)";
const char* const kCarryDestroy =
    R"({"id":"d1","time":"2017-03-01T13:00:00+08:00","type":"destroy","account":"acme","instance":"b"}
)";

// The billed amounts of the instance's usage lines, hour by hour.
std::vector<std::string> carry_billed_hours(ExampleRun& ex) {
  std::vector<std::string> out;
  for (const auto& row : ex.settlements("acme")) {
    const auto repeat = row.at("repeat").get<int>();
    for (int i = 0; i < repeat; ++i) out.push_back(dec(row.at("billed_amount")).to_string(2));
  }
  return out;
}

}  // namespace

// intl.cloud.baidu.com/doc/Finance/s/Cjwvysy06-en ("Bills and Arrears" FAQ, undated, read 2026):
// "the amount less than one cent will not be cleared and will be accumulated into the next
// charge cycle. E.g.: If the cost in the first charge cycle is 10.6 cents, the actual charge
// will be 10 cents, and the 0.6 cents will be accumulated into the next charge cycle. If the
// cost in the second charge cycle is also 10.6 cents, plus the 0.6 cents accumulated, then the
// cost will be 11.2 cents, the actual charge will be 11 cents, and the 0.2 cents will be
// accumulated into the next charge cycle." BCC is charged "on an hourly basis" (same page): two
// hours of 0.106 CNY are charged 0.10 + 0.11 = 0.21 (rounded half up each hour: 0.11 + 0.11 =
// 0.22). A third hour continues the document's carry: 10.6 + 0.2 = 10.8 → 10, carry 0.8.
TEST_CASE("Baidu example: 10.6 cents charged 10, carried 0.6; 10.6 + 0.6 = 11.2 charged 11",
          "[provider_examples][baidu][rounding]") {
  ExampleRun ex;
  ex.import("baidu-doc-examples.json");
  ex.replay(
      std::string(kCarryTopup) + kCarryCreate +
          R"({"id":"d1","time":"2017-03-01T12:00:00+08:00","type":"destroy","account":"acme","instance":"b"}
)",
      "2017-03-02T00:00:00+08:00");
  CHECK(carry_billed_hours(ex) == std::vector<std::string>{"0.10", "0.11"});
  CHECK(ex.billed("acme", "compute") == dec("0.21"));
  // Each line's rounding is what it carried in minus what it carries out; explain verifies it
  // and the line says the carry.
  const auto lines = ex.settlements("acme");
  REQUIRE(lines.size() == 2);
  CHECK(dec(lines[0].at("rounding")).to_string(3) == "-0.006");
  CHECK(dec(lines[1].at("rounding")).to_string(3) == "0.004");
  const auto x = ex.explain(lines[1].at("id").get<std::int64_t>());
  INFO(x.dump());
  CHECK(x["check"]["derivation"] == "verified");
  CHECK(x["check"]["consistent"] == true);
  CHECK(x["rule"]["rule"].get<std::string>().find("down_carry") != std::string::npos);
  const std::string text = ex.explain_text(lines[1].at("id").get<std::int64_t>());
  CHECK(text.find("0.006 CNY carried in = 0.112 CNY") != std::string::npos);
  CHECK(text.find("0.002 CNY carried to the next cycle") != std::string::npos);
}

// The carry is part of the replay's saved state: a log replayed in two parts (the second hour's
// carry comes from the first part) bills what the whole log does.
TEST_CASE("Baidu carry: a log replayed in two parts bills as the whole log",
          "[provider_examples][baidu][rounding]") {
  ExampleRun whole;
  whole.import("baidu-doc-examples.json");
  whole.replay(std::string(kCarryTopup) + kCarryCreate + kCarryDestroy,
               "2017-03-02T00:00:00+08:00");
  CHECK(carry_billed_hours(whole) == std::vector<std::string>{"0.10", "0.11", "0.10"});
  CHECK(whole.billed("acme", "compute") == dec("0.31"));  // 3 × 0.106 = 0.318, rounded down

  ExampleRun parts;
  parts.import("baidu-doc-examples.json");
  parts.replay(std::string(kCarryTopup) + kCarryCreate, "2017-03-01T11:30:00+08:00");
  parts.replay(kCarryDestroy, "2017-03-02T00:00:00+08:00");
  CHECK(carry_billed_hours(parts) == carry_billed_hours(whole));
  CHECK(parts.billed("acme", "compute") == dec("0.31"));
}

// The same FAQ, "How to deal with the arrears?": "When there are arrears, the system will
// immediately stop the service." BCC is charged on the hour (Beijing time): 0.15 CNY pays the
// first hour (0.10, 0.05 left); the second hour's 0.11 leaves −0.06 at 12:00, and the instance is
// stopped then — no grace — so nothing more is charged for it.
TEST_CASE(
    "Baidu example: arrears stop the service at once, at the charge that leaves the balance "
    "negative",
    "[provider_examples][baidu][arrears]") {
  ExampleRun ex;
  ex.import("baidu-doc-examples.json");
  ex.replay(
      R"({"id":"t1","time":"2017-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"0.15","currency":"CNY"}
)" + std::string(kCarryCreate),
      "2017-03-02T00:00:00+08:00");
  CHECK(carry_billed_hours(ex) == std::vector<std::string>{"0.10", "0.11"});
  const auto history = ex.history("b");
  REQUIRE(history.size() == 3);
  CHECK(history[1].at("reason").get<std::string>().find("grace 0 h") != std::string::npos);
  CHECK(history[2].at("state") == "arrears_stopped");
  CHECK(gpubill::testing::same_instant(history[2].at("at"), "2017-03-01T12:00:00+08:00"));
}
