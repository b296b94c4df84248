// gpubill report quote | lease-vs-buy | bill: the HTML reports (include/gpubill/report/report.hpp),
// with the flags of the commands whose numbers they draw.
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "gpubill/report/report.hpp"
#include "quote_args.hpp"
#include "report_file.hpp"
#include "tco_args.hpp"

namespace gpubill::cli {

namespace {

// Writes the page to `output.path` (report_file.hpp). The page is built in memory first, so
// that a failed report leaves no half-written file.
struct Output {
  std::string path;
  bool force = false;
};

template <class Write>
void write_page(const Output& output, const Database& db, Write&& write) {
  std::ostringstream page;
  write(page);
  write_report_file(output.path, page.str(), db.path(), output.force);
}

void add_output_option(CLI::App& sub, Output& output) {
  sub.add_option("-o,--output", output.path, "The HTML file to write (- for standard output)")
      ->required();
  sub.add_flag("--force", output.force,
               "Replace an existing file that is not a report gpubill wrote (never the database)");
}

struct BillReportArgs {
  std::string account, month, zone;
  Output output;
};

int run_bill_report(const Globals& globals, const BillReportArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto [year, month] = flag_value("--month", [&] { return parse_month(args.month); });
  check_account(db, args.account);
  std::optional<Calendar> calendar;
  if (!args.zone.empty()) calendar = flag_value("--zone", [&] { return Calendar(args.zone); });
  const BillReportData data = load_bill_report(db, args.account, year, month, calendar);
  write_page(args.output, db, [&](std::ostream& out) { write_bill_report(out, data); });
  return kExitOk;
}

}  // namespace

void add_report_commands(CLI::App& app, Globals& globals, Action& action) {
  auto* report = app.add_subcommand(
      "report", "Write a self-contained HTML report with charts (no scripts; opens offline)");
  report->require_subcommand(1);
  {
    auto* sub = report->add_subcommand(
        "quote", "Ranked offers, prepaid against pay-as-you-go, and every line of a quote");
    auto args = std::make_shared<WorkloadArgs>();
    auto top = std::make_shared<std::size_t>(0);
    auto bars = std::make_shared<std::size_t>(10);
    auto output = std::make_shared<Output>();
    add_workload_options(*sub, *args);
    sub->add_option("--top", *top, "Report the best N priced lines (default 0 = all)")
        ->check(count_flag(0, kMaxTop));
    auto include_stale = std::make_shared<bool>(false);
    sub->add_flag("--include-stale", *include_stale,
                  "Rank stale prices (source over 24 months older than the quote date) with the "
                  "current ones, as quote --include-stale");
    sub->add_option("--bars-per-mode", *bars,
                    "Draw the best N lines of each billing mode as bars (default 10; 0 = all)")
        ->check(count_flag(0, kMaxTop));
    add_output_option(*sub, *output);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args, top, bars, output, include_stale] {
      action = [&globals, args, top, bars, output, include_stale] {
        auto db = globals.open_database(Access::read);
        globals.keep_offer_summary_current(db);
        QuoteOptions options;
        options.top = *top;
        options.stale_apart = !*include_stale;  // ranked as `gpubill quote` ranks
        const auto priced = price_workload(db, build_workload(*args), options);
        write_page(*output, db, [&](std::ostream& out) {
          write_quote_report(out, priced->result, describe(priced->workload), *bars);
        });
        return priced->result.offers_fitting == 0 ? kExitNothingMatched : kExitOk;
      };
    });
  }
  {
    auto* sub = report->add_subcommand(
        "lease-vs-buy", "Cumulative cost by month and cost against utilisation, buy against rent");
    auto args = std::make_shared<TcoArgs>();
    auto output = std::make_shared<Output>();
    add_tco_options(*sub, *args);
    add_output_option(*sub, *output);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args, output] {
      action = [&globals, args, output] {
        auto db = globals.open_database(Access::read);
        const auto catalog = Catalog::load(db);
        const LeaseVsBuyResult r = lease_vs_buy_of(catalog, *args);
        write_page(*output, db, [&](std::ostream& out) { write_lease_vs_buy_report(out, r); });
        return r.options.empty() ? kExitNothingMatched : kExitOk;
      };
    });
  }
  {
    auto* sub = report->add_subcommand(
        "bill", "A monthly statement with cost per day, balance and instance timeline");
    auto args = std::make_shared<BillReportArgs>();
    sub->add_option("--account", args->account, "The account")->required();
    sub->add_option("--month", args->month, "The month, YYYY-MM")->required();
    sub->add_option("--zone", args->zone,
                    "Time zone of the month's bounds (default: the account's billing time zone)");
    add_output_option(*sub, args->output);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] { return run_bill_report(globals, *args); };
    });
  }
}

}  // namespace gpubill::cli
