// gpubill reconcile: a provider's billing export held against the account's charges.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/reconcile/reconcile.hpp"
#include "gpubill/store/db.hpp"
#include "output.hpp"

namespace gpubill::cli {

namespace {

struct ReconcileArgs {
  std::string account, invoice, invoice_format, month, tolerance = "0.01";
  Format format = Format::table;
};

std::string optional_text(const std::optional<Decimal>& d) {
  return d ? d->to_string() : "";
}

Table summary_table(const ReconcileReport& r) {
  Table t = record_table();
  t.add_field("account", r.account);
  t.add_field("invoice", r.invoice_file);
  t.add_field("invoice_format", std::string(to_string(r.format)));
  t.add_field("granularity", std::string(to_string(r.granularity)));
  t.add_field("time_zone", r.time_zone);
  t.add_field("from", r.from ? format_instant(*r.from) : "");
  t.add_field("to", r.to ? format_instant(*r.to) : "");
  t.add_field("tolerance", r.tolerance.to_string());
  t.add_field("invoice_lines", std::to_string(r.invoice_lines), Kind::integer);
  t.add_field("ignored_lines", std::to_string(r.ignored_lines), Kind::integer);
  t.add_field("gpubill_lines", std::to_string(r.gpubill_lines), Kind::integer);
  t.add_field("keys", std::to_string(r.keys), Kind::integer);
  t.add_field("matched", std::to_string(r.matched), Kind::integer);
  t.add_field("missing", std::to_string(r.missing), Kind::integer);
  t.add_field("extra", std::to_string(r.extra), Kind::integer);
  t.add_field("amount_differences", std::to_string(r.amount), Kind::integer);
  t.add_field("gpubill_total", r.gpubill_total);
  t.add_field("invoice_total", r.invoice_total);
  t.add_field("result", r.matches() ? "match" : "differs");
  return t;
}

std::vector<Column> difference_columns(bool text) {
  std::vector<Column> c = {id_column("kind"),
                           id_column("resource"),
                           {"meter"},
                           {"category"},
                           {"period_start"},
                           {"period_end"},
                           {"gpubill_amount", true},
                           {"invoice_amount", true},
                           {"difference", true},
                           {"currency"},
                           {"rule"},
                           int_column("price_id"),
                           {"unit_price", true},
                           {"price_unit"},
                           {"invoice_rate", true},
                           int_column("invoice_line"),
                           {"charge_ids", false, 0, Kind::integer_list},
                           {"explanation"}};
  if (text) {
    c[3] = droppable(c[3], 3);
    c[5] = droppable(c[5], 2);
    c[13] = droppable(c[13], 1);
    c[16] = droppable(c[16], 4);
    c[17] = notes_column("explanation");
  }
  return c;
}

int run_reconcile(const Globals& globals, const ReconcileArgs& args) {
  auto db = globals.open_database(Access::read);
  check_account(db, args.account);
  ReconcileOptions options;
  options.account = args.account;
  options.invoice_path = args.invoice;
  if (!args.invoice_format.empty()) {
    options.format =
        flag_value("--invoice-format", [&] { return parse_invoice_format(args.invoice_format); });
  }
  if (!args.month.empty()) {
    options.month = flag_value("--month", [&] { return parse_month(args.month); });
  }
  options.tolerance = flag_value("--tolerance", [&] { return Decimal::parse(args.tolerance); });
  if (options.tolerance.sign() < 0) {
    throw InputError("command line", "", "--tolerance",
                     "must be ≥ 0 (found " + args.tolerance + ")");
  }
  const ReconcileReport r = reconcile(db, options);
  const bool text = args.format == Format::table;
  Document doc(std::cout, args.format, Document::Shape::sections);
  doc.table("summary", summary_table(r), /*in_csv=*/true);
  doc.begin_rows("differences", difference_columns(text), /*in_csv=*/true);
  for (const auto& d : r.differences) {
    doc.begin_row()
        .text(to_string(d.kind))
        .text(d.resource)
        .text(d.meter)
        .text(d.category)
        .instant(d.period_start)
        .instant(d.period_end)
        .text(optional_text(d.gpubill_amount))
        .text(optional_text(d.invoice_amount))
        .decimal(d.difference)
        .text(d.currency)
        .text(to_string(d.rule))
        .integer(d.price_id)
        .text(optional_text(d.unit_price))
        .text(d.price_unit)
        .text(optional_text(d.invoice_rate))
        .integer(d.invoice_line
                     ? std::optional<std::int64_t>(static_cast<std::int64_t>(d.invoice_line))
                     : std::nullopt)
        .integer_list(d.charge_ids)
        .text(d.explanation);
    doc.end_row();
  }
  doc.end_rows();
  doc.finish();
  return r.matches() ? kExitOk : kExitNothingMatched;
}

}  // namespace

void add_reconcile_command(CLI::App& app, Globals& globals, Action& action) {
  auto* sub = app.add_subcommand(
      "reconcile",
      "Hold a provider's billing export (FOCUS, AWS CUR, Google BigQuery JSON Lines, Alibaba, "
      "Tencent) against the account's charges: missing and extra lines, amount differences and "
      "the rule that explains each");
  auto args = std::make_shared<ReconcileArgs>();
  sub->add_option("--account", args->account, "The account")->required();
  sub->add_option("--invoice", args->invoice, "The provider's export (CSV, or JSON Lines)")
      ->required();
  sub->add_option("--invoice-format", args->invoice_format,
                  "focus, aws-cur, google-bq, alibaba or tencent (default: from the header)")
      ->check(CLI::IsMember({"focus", "aws-cur", "google-bq", "alibaba", "tencent"}));
  sub->add_option("--month", args->month,
                  "Only this month, YYYY-MM, in the account's billing time zone (default: every "
                  "month the export has a line in)");
  sub->add_option("--tolerance", args->tolerance,
                  "Largest difference per line counted as a match, in the currency (default 0.01)");
  add_format_option(*sub, args->format);
  sub->footer(
      "Exit status 0 when every line matches within the tolerance, 4 when something differs, 1 "
      "for a malformed export (its file, line and column are named).");
  add_db_option(*sub, globals);
  sub->callback([&globals, &action, args] {
    action = [&globals, args] { return run_reconcile(globals, *args); };
  });
}

}  // namespace gpubill::cli
