// The CLI's subcommands. Each cmd_*.cpp registers one group on the app; every decision is a
// library call, the CLI only parses arguments and prints.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/store/db.hpp"

namespace gpubill::cli {

// What a command does with the database.
enum class Access { read, write };

// Options every subcommand shares. `--db` is accepted before or after the subcommand.
struct Globals {
  std::optional<std::string> db_path;
  // --wide: text tables show every cell whole instead of fitting the terminal's width.
  bool wide = false;
  // Opens the database: --db, else GPUBILL_DB, else the default path. A command that only
  // reads opens it read-only and refuses a missing file that --db or GPUBILL_DB names (a typo
  // would otherwise start an empty database; `gpubill init` creates one); the default database
  // is created on first use by any command. A database whose schema or bundled catalog is older
  // than this gpubill's is opened for writing once to update it. Creating or updating a
  // database is said on stderr. An empty --db is an error.
  Database open_database(Access access) const;
  // Builds the database's offer summary (refresh_offer_summary, quote.hpp) when the catalog
  // changed since it was built, through a second connection for writing when the file can be
  // written and no other process is writing; otherwise leaves it stale, and quotes read the
  // catalog without it (never a stale summary). Throws StoreError only on a corrupt database.
  void keep_offer_summary_current(Database& db) const;
};

// The database's open options from the environment: GPUBILL_BUSY_TIMEOUT (whole seconds a
// write waits for another process's write; default 60). Throws Error on a malformed value.
OpenOptions open_options_from_environment();

// A subcommand's work, run after parsing; returns the exit status.
using Action = std::function<int()>;

// Each registers its subcommands; the chosen one stores its action in `action`.
void add_catalog_commands(CLI::App& app, Globals& globals, Action& action);
// catalog coverage (cmd_coverage.cpp), under the `catalog` subcommand.
void add_coverage_command(CLI::App& catalog, Globals& globals, Action& action);
// gpubill quote | advise (cmd_quote.cpp).
void add_quote_commands(CLI::App& app, Globals& globals, Action& action);
// lease-vs-buy (cmd_tco.cpp).
void add_tco_commands(CLI::App& app, Globals& globals, Action& action);
// bill, charges, explain, rejects (cmd_bill.cpp).
void add_bill_commands(CLI::App& app, Globals& globals, Action& action);

// catalog check (cmd_catalog_check.cpp), under the `catalog` subcommand.
void add_catalog_check_command(CLI::App& catalog, Globals& globals, Action& action);
// catalog fetch (cmd_catalog_fetch.cpp), under the `catalog` subcommand.
void add_catalog_fetch_command(CLI::App& catalog, Globals& globals, Action& action);
// catalog diff (cmd_catalog_diff.cpp), under the `catalog` subcommand.
void add_catalog_diff_command(CLI::App& catalog, Globals& globals, Action& action);
// report quote | lease-vs-buy | bill: the HTML reports (cmd_report.cpp).
void add_report_commands(CLI::App& app, Globals& globals, Action& action);

// replay, instances (cmd_replay.cpp).
void add_replay_commands(CLI::App& app, Globals& globals, Action& action);
// reconcile (cmd_reconcile.cpp).
void add_reconcile_command(CLI::App& app, Globals& globals, Action& action);

// A CLI11 check for a count flag (--top, --bars-per-mode, --cache-mib, …): a whole number from
// `min` to `max`. Anything else is a usage error (exit 2) naming the flag: "--top: must be ≥ 0
// (found -3)".
CLI::Validator count_flag(long long min, long long max);
// The largest --top: far more lines than any quote has (0 = all of them).
inline constexpr long long kMaxTop = 1'000'000;

// The instant a flag gives (RFC 3339, or YYYY-MM-DD for 00:00 UTC); nullopt when the flag was
// not given. Throws InputError("command line", "", flag, …) for an empty or malformed value, so
// that the message names the flag.
std::optional<Instant> instant_flag(const std::string& flag,
                                    const std::optional<std::string>& text);

// Runs `parse` on a flag's value: a ParseError or NotFound it throws (an unknown name, a
// malformed value) becomes InputError("command line", "", flag, …), so the message names the
// flag.
template <class Parse>
auto flag_value(const std::string& flag, Parse&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const ParseError& e) {
    throw InputError("command line", "", flag, e.what());
  } catch (const NotFound& e) {
    throw InputError("command line", "", flag, e.what());
  }
}

// The catalog filter flags of catalog offers, coverage and diff; an empty value means no filter.
// check_provider_flag throws InputError naming --provider for an unknown provider; gpu_flag
// returns the GPU ids a --gpu name means (gpus_matching) or throws InputError naming --gpu;
// mode_flag parses --mode or throws InputError naming it.
void check_provider_flag(const Catalog& catalog, const std::string& provider);
std::vector<std::string> gpu_flag(const Catalog& catalog, const std::string& name);
std::optional<BillingMode> mode_flag(const std::string& text);
// "2018-01" → (2018, 1): the --month of bill and report bill. Throws ParseError.
std::pair<int, unsigned> parse_month(const std::string& text);

// Checks that `account` (given by --account) is one a stored event or reject names; throws
// InputError naming --account and the closest known accounts otherwise.
void check_account(Database& db, const std::string& account);

// Exit statuses (the README's table).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;           // bad input or data; the message says which
inline constexpr int kExitUsage = 2;           // unknown command or flag, missing argument
inline constexpr int kExitMismatch = 3;        // explain could not re-derive a charge line
inline constexpr int kExitNothingMatched = 4;  // no offer fits, nothing to rent
inline constexpr int kExitInternal = 70;       // a bug: please report it

// Adds --db and --wide to a subcommand (so they are accepted after the subcommand too).
void add_db_option(CLI::App& sub, Globals& globals);

}  // namespace gpubill::cli
