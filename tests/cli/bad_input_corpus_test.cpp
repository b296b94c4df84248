// The bad-input corpus (tests/data/bad-inputs/cases.jsonl): each case runs the gpubill CLI on
// malformed or hostile input against a database holding the bundled catalog and a replayed
// log, and checks the exit status, the exact error message, and that the database did not
// change. Case format: tests/data/bad-inputs/README.md.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "gpubill/store/db.hpp"
#include "temp_dir.hpp"

using gpubill::testing::TempDir;
using json = nlohmann::json;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  std::string bytes(std::filesystem::file_size(path, ec), '\0');
  if (ec) return {};
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  return bytes;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// Messages about "now" name the wall clock: compared without it.
std::string without_now(const std::string& s) {
  static const std::regex now(R"(later than \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(now plus)");
  return std::regex_replace(s, now, "later than {now} (now plus");
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

// A failed command must leave the database as it was: byte for byte (a commit would change the
// file, or leave frames in its write-ahead log), which is stricter than comparing its rows and
// costs a read of the file instead of a query of every table.
bool unchanged(const std::string& db_path, const std::string& template_bytes) {
  std::error_code ec;
  const auto wal = db_path + "-wal";
  if (std::filesystem::exists(wal, ec) && std::filesystem::file_size(wal, ec) > 0) return false;
  return read_all(db_path) == template_bytes;
}

// A database with the bundled catalog and the tencent-gn8 sample replayed, made once.
const std::string& template_db() {
  static TempDir dir;
  static const std::string path = [] {
    const std::string p = dir.file("template.db");
    const std::string command =
        shell_quote(GPUBILL_CLI_PATH) + " --db " + shell_quote(p) + " replay " +
        shell_quote(std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs/tencent-gn8.jsonl") +
        " --until 2019-04-01T00:00:00+08:00 >/dev/null 2>&1";
    REQUIRE(std::system(command.c_str()) == 0);
    SQLite::Database db(p, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return p;
  }();
  return path;
}

struct Outcome {
  int status = -1;
  std::string err;
};

// `out`: where standard output goes ("" = /dev/null; "full" = /dev/full; "closed" = nowhere).
Outcome run(const std::string& command, const std::string& err_file, const std::string& out) {
  const std::string redirect = out == "full"     ? " >/dev/full"
                               : out == "closed" ? " >&-"
                                                 : " >/dev/null";
  const int raw = std::system((command + redirect + " 2>" + shell_quote(err_file)).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_all(err_file)};
}

// The corpus runs in four parts (every fourth case), so that CTest spreads its hundreds of CLI
// runs over every core instead of leaving one test to finish alone.
constexpr std::size_t kCorpusParts = 4;

// The corpus, parsed once per test process.
const std::vector<json>& corpus() {
  static const std::vector<json> cases = [] {
    std::ifstream in(std::string(GPUBILL_SOURCE_DIR) + "/tests/data/bad-inputs/cases.jsonl");
    REQUIRE(in);
    std::vector<json> all;
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) all.push_back(json::parse(line));
    }
    return all;
  }();
  return cases;
}

void run_case(const json& c, const std::string& template_bytes) {
  TempDir dir;
  const std::string d = dir.path().string();
  const json none = json::object();
  const json& files = c.contains("files") ? c["files"] : none;
  const json& hex_files = c.contains("files_hex") ? c["files_hex"] : none;
  const json& env = c.contains("env") ? c["env"] : none;
  for (auto it = files.begin(); it != files.end(); ++it) {
    dir.write(it.key(), it.value().get<std::string>());
  }
  for (auto it = hex_files.begin(); it != hex_files.end(); ++it) {
    dir.write(it.key(), from_hex(it.value().get<std::string>()));
  }
  const bool no_db = c.value("no_db", false);
  const std::string db = dir.file("t.db");
  if (!no_db) std::filesystem::copy_file(template_db(), db);

  std::string command;
  for (auto it = env.begin(); it != env.end(); ++it) {
    command +=
        it.key() + "=" + shell_quote(replace_all(it.value().get<std::string>(), "{dir}", d)) + " ";
  }
  command += shell_quote(GPUBILL_CLI_PATH);
  for (const auto& a : c.at("args")) {
    command += " " + shell_quote(replace_all(a.get<std::string>(), "{dir}", d));
  }
  if (!no_db) command += " --db " + shell_quote(db);
  const Outcome got = run(command, dir.file("stderr.txt"), c.value("stdout", ""));
  INFO("case " << c.at("name").get<std::string>() << ": " << command);
  CHECK(c.at("exit").get<int>() != 0);
  CHECK(c.at("exit").get<int>() != 70);
  CHECK(got.status == c.at("exit").get<int>());
  // {schema}: this gpubill's schema version (it grows with each migration).
  CHECK(without_now(replace_all(got.err, d, "{dir}")) ==
        without_now(replace_all(c.at("stderr").get<std::string>(), "{schema}",
                                std::to_string(gpubill::latest_schema_version()))));
  if (!no_db) CHECK(unchanged(db, template_bytes));
}

// Runs every kCorpusParts-th case from `part`. A plain loop, not one Catch2 section per case: a
// section re-enters the test case for each case (re-reading the corpus and the template each
// time); each failure names its case instead.
void run_corpus_part(std::size_t part) {
  const std::string template_bytes = read_all(template_db());
  const auto& cases = corpus();
  for (std::size_t i = part; i < cases.size(); i += kCorpusParts)
    run_case(cases[i], template_bytes);
  CHECK(cases.size() >= 500);
}

}  // namespace

TEST_CASE("the bad-input corpus, part 1 of 4: exact errors and an unchanged database",
          "[input][corpus][cli]") {
  run_corpus_part(0);
}

TEST_CASE("the bad-input corpus, part 2 of 4: exact errors and an unchanged database",
          "[input][corpus][cli]") {
  run_corpus_part(1);
}

TEST_CASE("the bad-input corpus, part 3 of 4: exact errors and an unchanged database",
          "[input][corpus][cli]") {
  run_corpus_part(2);
}

TEST_CASE("the bad-input corpus, part 4 of 4: exact errors and an unchanged database",
          "[input][corpus][cli]") {
  run_corpus_part(3);
}
