// `gpubill catalog fetch` end to end: the recordings of fixtures/fetch/ imported into a copy of
// the bundled catalog's database, the quote after it, refetching, an interrupted import, and the
// real libcurl path against a local HTTP server serving the Azure recording's two pages.
#include <SQLiteCpp/SQLiteCpp.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "cli_run.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/fetch/fetch.hpp"
#include "gpubill/store/db.hpp"
#include "json_schema.hpp"

using namespace gpubill;
using gpubill::testing::run_cli;
using gpubill::testing::run_shell;

namespace {

const std::string kRecordings = std::string(GPUBILL_SOURCE_DIR) + "/fixtures/fetch/";

// Every price row of the database, as text, in id order: to compare a database before and after.
std::string price_table(const std::string& db_path) {
  SQLite::Database db(db_path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db,
                      "SELECT group_concat(id || ',' || subject || ',' || region || ',' || mode || "
                      "',' || amount || ',' || effective_from || ',' || source, char(10)) "
                      "FROM (SELECT * FROM price ORDER BY id)");
  REQUIRE(q.executeStep());
  return q.getColumn(0).getString();
}

std::string line_with(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) return "";
  const auto start = text.rfind('\n', at);
  const auto end = text.find('\n', at);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end == std::string::npos ? std::string::npos : end - start - 1);
}

}  // namespace

TEST_CASE("catalog fetch: a recorded AWS offer file, then the quote uses its prices",
          "[fetch][cli]") {
  const testing::TempDir dir;
  const std::string db = testing::db_flag(dir);
  const auto r = run_cli("catalog fetch --provider aws --gpu-only --recorded '" + kRecordings +
                         "aws/us-east-1'" + db + " --verbose");
  CHECK(r.status == 0);
  CHECK(r.output ==
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/us-east-1/"
        "index.json: 1 page as of 2026-07-21T04:17:51Z, 12 rows read; imported 5 prices\n"
        "note: offer file published 2026-07-20T00:00:00Z\n"
        "note: 1 row for 1 instance type or GPU the catalog does not know, not imported "
        "(--verbose names them)\n"
        "unknown: dl1.24xlarge (1 row)\n");
  // 1 × p3.2xlarge for 720 h in us-east-1: 3.06 USD × 720 h = 2203.20 USD, priced by the fetched
  // row (as of 2026-07-21, [P]).
  const auto quote = run_cli(
      "quote --gpu V100 --count 1 --hours 720 --at 2026-12-03 --top 0 "
      "--currency USD --format csv" +
      db);
  REQUIRE(quote.status == 0);
  const std::string line =
      line_with(quote.output, "aws,us-east-1,p3.2xlarge,1×V100-SXM2-16GB,payg,");
  CHECK(line.find(",2203.20,USD,") != std::string::npos);
  CHECK(line.find(",2026-07-21,P,") != std::string::npos);
  const auto show = run_cli("catalog show p3.2xlarge --format csv" + db);
  CHECK(show.output.find("prices,,,p3.2xlarge,us-east-1,payg,3.06,USD,hour,2026-07-21T04:17:51Z,,"
                         "2026-07-21,\"https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/"
                         "AmazonEC2/current/us-east-1/index.json, recorded 2026-07-21T04:17:51Z — "
                         "recorded response ") != std::string::npos);

  SECTION("fetching the same recording again changes nothing") {
    const std::string before = price_table(dir.file("q.db"));
    const auto again = run_cli("catalog fetch --provider aws --gpu-only --recorded '" +
                               kRecordings + "aws/us-east-1'" + db);
    CHECK(again.status == 0);
    CHECK(price_table(dir.file("q.db")) == before);
  }
}

TEST_CASE("catalog fetch --format json and csv: one record, valid against its schema",
          "[fetch][cli][schema]") {
  const testing::TempDir dir;
  const std::string db = testing::db_flag(dir);
  const auto r = run_cli("catalog fetch --provider aws --gpu-only --recorded '" + kRecordings +
                         "aws/us-east-1' --format json" + db);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output);
  testing::check_schema("catalog-fetch.schema.json", j);
  CHECK(j["fetched_at"] == "2026-07-21T04:17:51Z");
  CHECK(j["pages"] == 1);
  CHECK(j["rows_read"] == 12);
  CHECK(j["prices_imported"] == 5);
  CHECK(j["unknown_rows"] == 1);
  CHECK(j["unknown"] == "dl1.24xlarge (1)");
  const auto csv = run_cli("catalog fetch --provider aws --gpu-only --recorded '" + kRecordings +
                           "aws/us-east-1' --format csv" + db);
  REQUIRE(csv.status == 0);
  CHECK(csv.output.rfind("field,value\n", 0) == 0);
  CHECK(csv.output.find("\nprices_imported,5\n") != std::string::npos);  // rewritten, unchanged
}

TEST_CASE("catalog fetch: Azure's and Google's recordings, all pages", "[fetch][cli]") {
  const testing::TempDir dir;
  const std::string db = testing::db_flag(dir);
  const auto azure =
      run_cli("catalog fetch --provider azure --recorded '" + kRecordings + "azure/eastus'" + db);
  CHECK(azure.status == 0);
  CHECK(azure.output.find(": 2 pages as of 2026-06-18T03:43:41Z, 10 rows read; imported 5 "
                          "prices\n") != std::string::npos);
  const auto google =
      run_cli("catalog fetch --provider google --recorded '" + kRecordings + "google'" + db);
  CHECK(google.status == 0);
  CHECK(google.output ==
        "https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus: 2 pages as of "
        "2025-08-30T12:00:00Z, 10 rows read; imported 9 prices\n"
        "note: 1 row for 1 instance type or GPU the catalog does not know, not imported "
        "(--verbose names them)\n");
  const auto offers = run_cli(
      "catalog offers --provider azure --gpu V100 --region eastus "
      "--mode spot --format csv" +
      db);
  CHECK(offers.output.find("Standard_NC6s_v3") != std::string::npos);
  CHECK(offers.output.find("0.3978") != std::string::npos);
}

TEST_CASE("catalog fetch: errors name the file, the place and the field", "[fetch][cli]") {
  const testing::TempDir dir;
  const std::string db = testing::db_flag(dir);
  const std::string before = price_table(dir.file("q.db"));
  // A recording whose second page renamed Items: nothing of the first page is written either.
  std::filesystem::create_directories(dir.path() / "azure");
  for (const char* f : {"recording.json", "page-1.json", "page-2.json"}) {
    std::filesystem::copy_file(kRecordings + "azure/eastus/" + f, dir.path() / "azure" / f);
  }
  dir.write("azure/page-2.json",
            "{\"BillingCurrency\": \"USD\", \"items\": [], "
            "\"NextPageLink\": null, \"Count\": 0}");
  const auto r =
      run_cli("catalog fetch --provider azure --recorded '" + dir.file("azure") + "'" + db);
  CHECK(r.status == 1);
  CHECK(r.output == "gpubill: " + dir.file("azure") +
                        "/page-2.json: field 'Items': missing (the response changed shape?)\n");
  CHECK(price_table(dir.file("q.db")) == before);

  const auto key = run_shell("env -u GOOGLE_API_KEY '" + std::string(GPUBILL_CLI_PATH) +
                             "' catalog fetch --provider google" + db + " 2>&1");
  CHECK(key.status == 1);
  CHECK(key.output.rfind("gpubill: command line: field 'GOOGLE_API_KEY': Google's Cloud Billing "
                         "Catalog API needs an API key: set GOOGLE_API_KEY",
                         0) == 0);
}

TEST_CASE("catalog fetch: an import interrupted while writing leaves the catalog unchanged",
          "[fetch]") {
  const testing::TempDir dir;
  testing::ensure_database(dir.file("q.db"));
  const std::string before = price_table(dir.file("q.db"));
  {
    auto db = Database::open(dir.file("q.db"));
    auto transport = make_recorded_transport(kRecordings + "google");
    FetchRequest request;
    request.provider = PriceListProvider::google;
    int reports = 0;
    request.import.progress = [&](const Progress& p) {
      if (p.stage == "import" && p.done > 0 && ++reports == 1) throw std::runtime_error("stop");
    };
    CHECK_THROWS_WITH(fetch_price_list(db, *transport, request), "stop");
  }
  CHECK(price_table(dir.file("q.db")) == before);
  // Run again, it imports from the start.
  auto db = Database::open(dir.file("q.db"));
  auto transport = make_recorded_transport(kRecordings + "google");
  FetchRequest request;
  request.provider = PriceListProvider::google;
  CHECK(fetch_price_list(db, *transport, request).import.prices == 9);
}

namespace {

// A TCP port free on 127.0.0.1 now (the kernel's choice).
int free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t n = sizeof a;
  REQUIRE(::getsockname(s, reinterpret_cast<sockaddr*>(&a), &n) == 0);
  ::close(s);
  return ntohs(a.sin_port);
}

bool accepts(int port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

}  // namespace

TEST_CASE("catalog fetch over HTTP with libcurl: Azure's pages followed by NextPageLink",
          "[fetch][cli]") {
  if (run_shell("command -v python3 >/dev/null").status != 0) {
    if (std::getenv("CI")) FAIL("python3 is missing in CI");
    WARN("skipped: python3 is missing (it serves the recording)");
    return;
  }
  const testing::TempDir dir;
  const std::string db = testing::db_flag(dir);
  const int port = free_port();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  // The recording's two pages, the first linking to the second on this server.
  std::filesystem::create_directories(dir.path() / "www");
  std::ifstream in(kRecordings + "azure/eastus/page-1.json");
  std::string first((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto link = first.find("https://prices.azure.com:443/");
  REQUIRE(link != std::string::npos);
  first.replace(link, first.find('"', link) - link, base + "/page-2.json");
  dir.write("www/page-1.json", first);
  std::filesystem::copy_file(kRecordings + "azure/eastus/page-2.json",
                             dir.path() / "www/page-2.json");
  const pid_t server = ::fork();
  REQUIRE(server >= 0);
  if (server == 0) {
    const int quiet = ::open("/dev/null", O_WRONLY);  // its request log
    ::dup2(quiet, 1);
    ::dup2(quiet, 2);
    ::execlp("python3", "python3", "-m", "http.server", std::to_string(port).c_str(), "--bind",
             "127.0.0.1", "--directory", dir.file("www").c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  for (int i = 0; i < 100 && !accepts(port); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto r = run_cli(
      "catalog fetch --provider azure --endpoint " + base + "/page-1.json" + db + " --verbose",
      testing::Stderr::discarded);
  ::kill(server, SIGTERM);
  ::waitpid(server, nullptr, 0);
  CHECK(r.status == 0);
  CHECK(r.output.rfind(base + "/page-1.json: 2 pages as of ", 0) == 0);
  CHECK(r.output.find(", 10 rows read; imported 5 prices\n") != std::string::npos);
  CHECK(r.output.find("unknown: Standard_D2s_v3 (1 row)\n") != std::string::npos);
  // Each row names the page it came from.
  const auto v3 = run_cli("catalog show Standard_NC6s_v3 --format csv" + db);
  CHECK(v3.output.find(",\"" + base + "/page-1.json, fetched ") != std::string::npos);
  const auto t4 = run_cli("catalog show Standard_NC4as_T4_v3 --format csv" + db);
  CHECK(t4.output.find(",\"" + base + "/page-2.json, fetched ") != std::string::npos);
}
