// The FOCUS export read from PostgreSQL against the same export from SQLite (issue 25: at least
// 300k rows/s at most 100 MB). The replay does not run on PostgreSQL yet, so a database replayed
// on SQLite is copied there first (tests/support/sqlite_to_pg.hpp); the CLI does not open a
// PostgreSQL URL yet, so the export runs here, as `gpubill charges --format focus` runs it
// (write_focus_csv of every charge line). Driven by bench/pg_focus_export.py.
//
//   gpubill_pg_focus_bench copy SQLITE_FILE SERVER_URL DBNAME
//       (re)creates DBNAME on the server, migrates it and copies every table into it
//   gpubill_pg_focus_bench focus TARGET [OUT]
//       writes the FOCUS CSV of TARGET (an SQLite file or a PostgreSQL URL) to OUT, or counts
//       its rows and drops it, and prints "rows R wall_s W cpu_s C max_rss_kib M" (R = -1 with
//       OUT)
//   gpubill_pg_focus_bench charges TARGET [whole]
//       reads every charge row as the ledger does (for_each_charge: streamed), or with `whole`
//       through one statement read whole, and prints the same figures
#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <streambuf>
#include <string>

#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "gpubill/store/db.hpp"
#include "sqlite_to_pg.hpp"

using namespace gpubill;

namespace {

// Counts the CSV's records (newlines outside quotes) of what is written through it, and drops it.
class CountingBuf final : public std::streambuf {
 public:
  std::int64_t records = 0;

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) {
      if (s[i] == '"') quoted_ = !quoted_;
      if (s[i] == '\n' && !quoted_) ++records;
    }
    return n;
  }
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) {
      const char ch = traits_type::to_char_type(c);
      xsputn(&ch, 1);
    }
    return c;
  }

 private:
  bool quoted_ = false;
};

std::ostream& counter_stream(CountingBuf& counter) {
  static std::ostream out(nullptr);
  out.rdbuf(&counter);
  return out;
}

double cpu_seconds(const rusage& u) {
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

OpenOptions options() {
  OpenOptions o;
  o.allow_postgres = true;
  return o;
}

int copy(const std::string& sqlite_file, const std::string& server, const std::string& name) {
  {
    auto admin = store::Connection::open(server);
    admin->exec_native("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    admin->exec_native("CREATE DATABASE " + name);
  }
  const std::string url =
      server + (server.find('?') == std::string::npos ? "?" : "&") + "dbname=" + name;
  Database from = Database::open(sqlite_file);
  Database to = Database::open(url, options());
  const auto start = std::chrono::steady_clock::now();
  const auto rows = testing::copy_database(from, to);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::cout << "copied " << rows << " rows in " << took.count() << " s\n" << url << "\n";
  return 0;
}

int focus(const std::string& target, const char* out_file) {
  Database db = Database::open(target, options());
  CountingBuf counter;
  std::ofstream file;
  if (out_file) file.open(out_file, std::ios::binary);
  std::ostream& out = out_file ? static_cast<std::ostream&>(file) : counter_stream(counter);
  const auto start = std::chrono::steady_clock::now();
  write_focus_csv(out, db, query_charges(db), FocusPart::billed);
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  if (out_file && !file.flush()) throw std::runtime_error(std::string("cannot write ") + out_file);
  std::cout << "rows " << (out_file ? -1 : counter.records - 1) << " wall_s " << wall.count()
            << " cpu_s " << cpu_seconds(u) << " max_rss_kib " << u.ru_maxrss << "\n";
  return 0;
}

// The charge rows as the ledger reads them (for_each_charge, streamed), or, with `whole`, the same
// rows through one Statement read whole (no stream()): what the client holds either way.
int charges(const std::string& target, bool whole) {
  Database db = Database::open(target, options());
  const auto start = std::chrono::steady_clock::now();
  std::int64_t rows = 0;
  if (whole) {
    store::Statement q(connection(db),
                       "SELECT * FROM charge ORDER BY period_start, account, instance, component, "
                       "kind, id");
    std::size_t bytes = 0;
    while (q.executeStep()) {
      for (int i = 0; i < q.getColumnCount(); ++i) bytes += q.getColumn(i).getStringView().size();
      ++rows;
    }
    if (bytes == 0 && rows > 0) throw std::runtime_error("no bytes read");
  } else {
    for_each_charge(db, {}, ChargeDetail::lines, [&](const ChargeLine&) { ++rows; });
  }
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::cout << "rows " << rows << " wall_s " << wall.count() << " cpu_s " << cpu_seconds(u)
            << " max_rss_kib " << u.ru_maxrss << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "copy" && argc == 5) return copy(argv[2], argv[3], argv[4]);
    if (cmd == "charges" && argc == 3) return charges(argv[2], false);
    if (cmd == "charges" && argc == 4 && std::string(argv[3]) == "whole") {
      return charges(argv[2], true);
    }
    if (cmd == "focus" && (argc == 3 || argc == 4))
      return focus(argv[2], argc == 4 ? argv[3] : nullptr);
    std::cerr << "usage: gpubill_pg_focus_bench copy SQLITE_FILE SERVER_URL DBNAME\n"
                 "       gpubill_pg_focus_bench focus SQLITE_FILE|POSTGRESQL_URL [OUT]\n"
                 "       gpubill_pg_focus_bench charges SQLITE_FILE|POSTGRESQL_URL [whole]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "gpubill_pg_focus_bench: " << e.what() << "\n";
    return 1;
  }
}
