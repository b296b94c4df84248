// The usage-log readers: JSON Lines through simdjson (engine/replay/event_json.cpp) and the one CSV
// reader shared by logs and SkyPilot files (engine/base/csv_reader.cpp).
#include <catch2/catch.hpp>

#include "base/csv_reader.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/replay/events.hpp"

using gpubill::CsvRecord;
using gpubill::CsvScanner;
using gpubill::InputError;
using gpubill::parse_csv;
using gpubill::parse_event_json;

namespace {

const std::string kTopup =
    R"({"id":"t1","time":"2021-03-01T10:00:00+08:00","type":"topup","account":"acme",)"
    R"("amount":"100.00","currency":"CNY"})";

std::string create_with(const std::string& extra) {
  return R"({"id":"c1","time":"2021-03-01T10:00:00+08:00","type":"create","account":"acme",)"
         R"("instance":"i1","provider":"tencent","region":"ap-guangzhou",)"
         R"("instance_type":"GN8.LARGE56","mode":"payg")" +
         extra + "}";
}

// "field: reason" of the error a line gets.
std::string error_of(const std::string& line) {
  try {
    parse_event_json(line, "x.jsonl", 7);
  } catch (const InputError& e) {
    CHECK(e.file() == "x.jsonl");
    CHECK(e.place() == "line 7");
    return e.field() + ": " + e.reason();
  }
  FAIL("accepted: " << line);
  return "";
}

std::vector<std::vector<std::string>> fields_of(const std::vector<CsvRecord>& records) {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : records) out.push_back(r.fields);
  return out;
}

}  // namespace

TEST_CASE("JSON Lines: valid lines, escapes and numbers read exactly", "[events][json]") {
  const auto t = parse_event_json(kTopup, "x.jsonl", 1);
  CHECK(t.amount->to_string() == "100");
  const auto c = parse_event_json(
      create_with(
          R"(,"gpus":2,"gpu":"V100","bandwidth_mbps":0,)"
          R"("data_disks":[{"kind":"cloud_ssd","size_gb":100},{"size_gb":5,"kind":"hdd"}])"),
      "x.jsonl", 1);
  CHECK(*c.gpus == 2);
  CHECK(c.data_disks.size() == 2);
  CHECK(c.data_disks[1].kind == "hdd");
  // A numeric id keeps its text; escapes are decoded (\u00e9 is é, a surrogate pair is one
  // code point).
  const auto n = parse_event_json(
      R"({"id":9223372036854775807,"time":"2021-03-01T10:00:00+08:00","type":"stop",)"
      R"("account":"caf\u00e9","instance":"\ud83d\ude00 \"q\""})",
      "x.jsonl", 1);
  CHECK(n.id == "9223372036854775807");
  CHECK(n.account == "caf\xC3\xA9");
  CHECK(n.instance == "\xF0\x9F\x98\x80 \"q\"");
  // White space around and inside is fine.
  CHECK_NOTHROW(parse_event_json("  " + kTopup + " \t ", "x.jsonl", 1));
}

TEST_CASE("JSON Lines: syntax errors say what and where", "[events][json]") {
  CHECK(error_of(kTopup + " x") ==
        ": not valid JSON: the object does not end where the line ends "
        "(a missing '}' or text after it)");
  CHECK(error_of(kTopup + "}") == ": not valid JSON: unexpected text after the object at column " +
                                      std::to_string(kTopup.size() + 1));
  CHECK(error_of(kTopup.substr(0, kTopup.size() - 1)) ==
        ": not valid JSON: the object does not end where the line ends (a missing '}' or text "
        "after it)");
  CHECK(error_of("[1]") == ": not valid JSON: a JSON object per line is expected, not an array");
  CHECK(error_of("create") ==
        ": not valid JSON: a JSON object per line is expected (the line does not start with '{')");
  CHECK(error_of("\xFF\xFE{") ==
        ": the file is UTF-16 (it starts with a UTF-16 byte order mark): save it as UTF-8");
  CHECK(error_of(R"({"id":"a)") == ": not valid JSON: a string is not closed");
  CHECK(error_of("{\"id\":\"a\tb\"}") ==
        ": not valid JSON: a control character inside a string (write it as an escape, e.g. \\n) "
        "at column 9");
}

TEST_CASE("JSON Lines: values of the wrong kind or spelling name their field", "[events][json]") {
  CHECK(error_of(create_with(R"(,"gpus":01)")) == "gpus: not valid JSON: '01' is not a number");
  CHECK(error_of(create_with(R"(,"gpus":1.5)")) == "gpus: '1.5' is not a whole number");
  CHECK(error_of(create_with(R"(,"gpus":1e3)")) == "gpus: '1e3' is not a whole number");
  CHECK(error_of(create_with(R"(,"gpus":99999999999999999999)")) ==
        "gpus: '99999999999999999999' is not a whole number");
  CHECK(error_of(create_with(R"(,"gpus":"2")")) == "gpus: must be a whole number, not a string");
  CHECK(error_of(create_with(R"(,"mode":"payg")")) == "mode: given twice");
  CHECK(error_of(create_with(R"(,"system_disk":{"kind":"a","kind":"b","size_gb":1})")) ==
        "system_disk.kind: given twice");
  CHECK(error_of(create_with(R"(,"system_disk":{"kind":"a"})")) ==
        "system_disk.size_gb: missing field");
  CHECK(error_of(create_with(R"(,"data_disks":[{"kind":"a","size_gb":1},7])")) ==
        "data_disks[1]: must be an object {\"kind\": …, \"size_gb\": …}, not a number");
  CHECK(error_of(R"({"id":"a","type":"set_auto_renew","auto_renew":tru})") ==
        "auto_renew: not valid JSON: 'tru' is not true or false");
  CHECK(error_of(R"({"id":"a","account":"\udc00"})")
            .rfind("account: not valid JSON: a bad escape in a string", 0) == 0);
  CHECK(error_of(R"({"id":"a","account":"\q"})")
            .rfind("account: not valid JSON: a bad escape in a string", 0) == 0);
  // A line over 1 MB is read by a parser of its own (freed after it).
  CHECK(error_of(R"({"id":"a","account":")" + std::string(2'000'000, 'x') + "\"}") ==
        "account: is 2000000 bytes long; at most 256 are allowed");
  CHECK_NOTHROW(parse_event_json(kTopup, "x.jsonl", 1));  // the shared parser still works
  // simdjson refuses the line; the reader finds the byte and its field.
  CHECK(error_of(create_with(R"(,"gpu":"V1)" + std::string("\xC0\xAF") + "\"")) ==
        "gpu: is not valid UTF-8 (byte 3)");
  CHECK(error_of("{\"id\xFF\":1}") == ": is not valid UTF-8 (byte 5 of the line)");
}

TEST_CASE("CSV: quoting, line ends and blank lines", "[csv]") {
  const auto records = parse_csv(
      "\xEF\xBB\xBF"
      "a,\"b,1\",c\r\n\r\n\"x\"\"y\",\"multi\nline\",\n\nlast",
      "f.csv");
  REQUIRE(records.size() == 3);
  CHECK(fields_of(records) == std::vector<std::vector<std::string>>{
                                  {"a", "b,1", "c"}, {"x\"y", "multi\nline", ""}, {"last"}});
  CHECK(records[0].line == 1);
  CHECK(records[1].line == 3);
  CHECK(records[2].line == 6);
}

TEST_CASE("CSV: malformed records name their line and field", "[csv]") {
  const auto error_in = [](const std::string& text, CsvScanner::LineBreaks breaks) {
    CsvScanner scanner(text, "f.csv", 10, breaks);
    CsvRecord record;
    try {
      while (scanner.next(record)) {
      }
    } catch (const InputError& e) {
      return e.place() + ": " + e.reason();
    }
    return std::string("accepted");
  };
  const auto allowed = CsvScanner::LineBreaks::allowed_in_quotes;
  const auto refused = CsvScanner::LineBreaks::refused;
  CHECK(error_in("a,b\nc,d\"e", allowed) ==
        "line 11: a double quote inside an unquoted field (field 2)");
  CHECK(error_in("a,\"b\"c", allowed) ==
        "line 10: unexpected text after a closing quote (field 2)");
  CHECK(error_in("a\n\"b\nc", allowed) == "line 11: a quoted field is not closed");
  CHECK(error_in("a\rb", allowed) == "line 10: a carriage return without a line feed");
  CHECK(error_in("\"b", refused) ==
        "line 10: a quoted field is not closed on its line (usage logs do not allow line breaks "
        "inside fields)");
  CHECK(error_in("x,\"a\nb\"", allowed) == "accepted");
}

namespace {

std::string commit_with(const std::string& fields) {
  return R"({"id":"ri-1","time":"2025-12-01T10:00:00Z","type":"commit","account":"acme",)"
         R"("provider":"aws","region":"us-east-1")" +
         fields + "}";
}

}  // namespace

TEST_CASE("JSON Lines: a commit event, its canonical JSON and its errors", "[events][json]") {
  const auto ev = parse_event_json(
      commit_with(R"(,"instance_type":"m4.xlarge","term":"3y","payment":"all_upfront",)"
                  R"("class":"standard","count":2,"start":"2025-12-02T00:00:00Z")"),
      "x.jsonl", 1);
  CHECK(ev.type == gpubill::EventType::commit);
  CHECK(ev.term_months == 36);
  CHECK(ev.payment == gpubill::CommitmentPayment::all_upfront);
  CHECK(ev.offering_class == "standard");
  CHECK(ev.count == 2);
  CHECK(gpubill::to_json(ev) ==
        R"({"id":"ri-1","time":"2025-12-01T10:00:00Z","type":"commit","account":"acme",)"
        R"("provider":"aws","region":"us-east-1","instance_type":"m4.xlarge","term":"3y",)"
        R"("payment":"all_upfront","class":"standard","count":2,"start":"2025-12-02T00:00:00Z"})");
  CHECK(parse_event_json(gpubill::to_json(ev), "x.jsonl", 1).start == ev.start);
  const std::string ok = R"(,"instance_type":"m4.xlarge","payment":"no_upfront","count":1)";
  CHECK(error_of(commit_with(ok)) == "term: missing field (required for a commit event)");
  CHECK(error_of(commit_with(ok + R"(,"term":"2y")")) ==
        "term: unknown term '2y' (expected 1y or 3y)");
  CHECK(error_of(commit_with(ok + R"(,"term":"1y","class":"gold")")) ==
        "class: unknown offering class 'gold' (expected standard or convertible)");
  CHECK(error_of(commit_with(ok + R"(,"term":"1y","start":"2025-12-01T10:30:00Z")"))
            .rfind("start: a commitment's term starts on a clock hour", 0) == 0);
  CHECK(error_of(commit_with(ok + R"(,"term":"1y","start":"2025-12-01T09:00:00Z")"))
            .rfind("start: the term starts before the commitment is bought", 0) == 0);
  CHECK(error_of(commit_with(ok + R"(,"term":"1y","gpu":"V100")")) ==
        "gpu: give the commitment's scope once: instance_type or gpu, not both");
  CHECK(error_of(commit_with(R"(,"term":"1y","payment":"no_upfront","count":1)")) ==
        "instance_type: missing field (a commit names instance_type, or gpu for a per-GPU "
        "commitment)");
  CHECK(error_of(commit_with(ok + R"(,"term":"1y","count":0)")) == "count: given twice");
  CHECK(error_of(commit_with(
            R"(,"instance_type":"m4.xlarge","payment":"no_upfront","term":"1y","count":0)")) ==
        "count: 0 is out of range (1 to 100000)");
  CHECK(error_of(commit_with(ok + R"(,"term":"1y","instance":"i1")")) ==
        "instance: does not apply to a commit event");
  CHECK(error_of(create_with(R"(,"term":"1y")")) == "term: does not apply to a create event");
}
