// Text read from files: names and ids must be valid UTF-8 without control characters and of a
// bounded length (text_check.hpp), and CSV exports must not hand a spreadsheet a formula.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "base/text_check.hpp"
#include "cli_run.hpp"
#include "gpubill/base/csv.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/replay/events.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

TEST_CASE("text_check accepts UTF-8 names and names each problem", "[input][text]") {
  using text_check::problem;
  CHECK_FALSE(problem("gn8-a", 256));
  CHECK_FALSE(problem("华为云 p2v.2xlarge.8 é", 256));
  CHECK_FALSE(problem("\xF0\x9F\x9A\x80", 256));  // U+1F680, four bytes
  CHECK(problem("gn8\xFF", 256) == "is not valid UTF-8 (byte 4)");
  CHECK(problem("\xC0\x80", 256) == "is not valid UTF-8 (byte 1)");          // overlong NUL
  CHECK(problem("a\xED\xA0\x80", 256) == "is not valid UTF-8 (byte 2)");     // surrogate
  CHECK(problem("\xF4\x90\x80\x80", 256) == "is not valid UTF-8 (byte 1)");  // above U+10FFFF
  CHECK(problem("\xE4\xB8", 256) == "is not valid UTF-8 (byte 1)");          // cut short
  CHECK(problem(std::string("a\0b", 3), 256) == "contains the control character U+0000 (byte 2)");
  CHECK(problem("a\nb", 256) == "contains the control character U+000A (byte 2)");
  CHECK(problem("\x7F", 256) == "contains the control character U+007F (byte 1)");
  CHECK(problem("x\xC2\x85", 256) == "contains the control character U+0085 (byte 2)");
  CHECK(problem(std::string(257, 'a'), 256) == "is 257 bytes long; at most 256 are allowed");
  CHECK_FALSE(problem(std::string(256, 'a'), 256));
}

namespace {

std::string create_line(const std::string& instance, const std::string& account = "acme") {
  return R"({"id":"c1","time":"2021-03-01T10:00:00+08:00","type":"create","account":")" + account +
         R"(","instance":")" + instance +
         R"(","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"})" +
         "\n";
}

std::string malformed_field(const std::string& line) {
  ReplayFixture f;
  try {
    f.replay_text(line);
  } catch (const InputError& e) {
    CHECK(e.place() == "line 1");
    return e.field() + ": " + e.reason();
  }
  FAIL("the line was accepted");
  return "";
}

}  // namespace

TEST_CASE("usage log names are checked", "[input][text][replay]") {
  CHECK(malformed_field(create_line("gn8-a\xFF")) == "instance: is not valid UTF-8 (byte 6)");
  CHECK(malformed_field(create_line("gn8-a", "ac\\u0000me")) ==
        "account: contains the control character U+0000 (byte 3)");
  CHECK(malformed_field(create_line("gn8\\na")) ==
        "instance: contains the control character U+000A (byte 4)");
  CHECK(malformed_field(create_line("gn8-a", std::string(300, 'x'))) ==
        "account: is 300 bytes long; at most 256 are allowed");
}

TEST_CASE("a quarantined line with a bad byte does not break the JSON exports",
          "[input][text][cli]") {
  TempDir dir;
  const std::string db = " --db " + dir.file("t.db");
  gpubill::testing::ensure_database(dir.file("t.db"));
  const std::string log = dir.write("bad.jsonl", create_line("gn8-a\xFF") + create_line("ok"));
  auto r = run_cli("replay --skip-invalid " + log + db + " --format json");
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.output)["malformed_skipped"] == 1);
  for (const char* command : {"rejects", "instances", "charges"}) {
    r = run_cli(std::string(command) + " --format json" + db);
    INFO(command << ": " << r.output);
    CHECK(r.status == 0);
    CHECK_NOTHROW(nlohmann::json::parse(r.output));
  }
}

TEST_CASE("catalog text fields refuse control characters", "[input][text][catalog]") {
  const std::string text =
      R"({"providers":[{"id":"acme\nx","name":"Acme","currency":"USD","billing_time_zone":"UTC"}]})";
  try {
    (void)parse_catalog_json(text, "c.json");
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(e.field() == "id");
    CHECK(e.reason() == "contains the control character U+000A (byte 5)");
  }
}

TEST_CASE("CSV cells never start a spreadsheet formula", "[output][csv]") {
  CHECK(csv_cell("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
  CHECK(csv_cell("+cmd") == "'+cmd");
  CHECK(csv_cell("-2+3") == "'-2+3");
  CHECK(csv_cell("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_cell("\tx") == "'\tx");
  CHECK(csv_cell("-12.50") == "-12.50");  // numbers stay numbers
  CHECK(csv_cell("+3") == "+3");
  CHECK(csv_cell("gn8-a") == "gn8-a");
  CHECK(csv_cell("a,b") == "\"a,b\"");
  CHECK(csv_cell("") == "");
}

TEST_CASE("an instance named like a formula is neutralised in CSV and FOCUS exports",
          "[output][csv][cli]") {
  TempDir dir;
  const std::string db = " --db " + dir.file("t.db");
  const std::string log = dir.write("f.jsonl", create_line("=1+1") + create_line("@x", "@acct"));
  REQUIRE(run_cli("replay " + log + db + " --until 2021-03-01T04:00:00Z").status == 0);
  auto r = run_cli("charges --format csv" + db);
  REQUIRE(r.status == 0);
  CHECK(r.output.find(",'=1+1,") != std::string::npos);
  CHECK(r.output.find(",=1+1,") == std::string::npos);
  r = run_cli("charges --format focus" + db);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("'@acct") != std::string::npos);
  CHECK(r.output.find(",@acct") == std::string::npos);
}

TEST_CASE("error messages quoting input escape control characters and bad bytes",
          "[input][text][cli]") {
  CHECK(printable("unknown GPU 'V100\x1b[2J'") == "unknown GPU 'V100\\x1B[2J'");
  CHECK(printable("a\rb\x7f\xff\xc2\x85 é\tx\n") == "a\\x0Db\\x7F\\xFF\\xC2\\x85 é\tx\n");
  // A terminal escape in a flag reached the terminal through the error message.
  const auto r = run_cli("quote --gpu \"$(printf 'V100\\033[2J')\" --hours 5 --db :memory:");
  CHECK(r.status == 1);
  CHECK(r.output.find('\x1b') == std::string::npos);
  CHECK(r.output.find("V100\\x1B[2J") != std::string::npos);
}
