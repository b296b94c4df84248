// gpubill bill | charges | explain | rejects: reading the bills a replay wrote.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "gpubill/store/db.hpp"
#include "output.hpp"

namespace gpubill::cli {

namespace {

std::string signed_text(Decimal d) {
  return d.sign() > 0 ? "+" + d.to_string() : d.to_string();
}

// ---- charges -----------------------------------------------------------------------------

struct ChargesArgs {
  std::string account, instance, format = "table";
  std::optional<std::string> from, to;
  bool hourly = false;
  bool forecast = false;  // --forecast: the FOCUS forecast part
};

// Every field of a line (csv, json): the columns and the cells of one line.
std::vector<Column> charge_columns() {
  return {int_column("id"),
          {"account"},
          {"instance"},
          {"provider"},
          {"region"},
          {"instance_type"},
          {"component"},
          {"kind"},
          {"mode"},
          {"period_start"},
          {"period_end"},
          int_column("repeat"),
          int_column("run_index"),
          {"quantity", true},
          {"unit"},
          {"unit_price", true},
          {"price_unit"},
          {"exact_amount", true},
          {"billed_amount", true},
          {"rounding", true},
          {"total_exact", true},
          {"total_billed", true},
          {"total_rounding", true},
          {"currency"},
          int_column("price_id"),
          int_column("policy_id"),
          int_column("discount_id"),
          {"event_seqs", false, 0, Kind::integer_list},
          {"note"}};
}

// A line's fields straight into the document (csv, json): an export writes millions of rows.
void write_charge(Document& doc, const ChargeLine& c) {
  doc.begin_row()
      .integer(c.id)
      .text(c.account)
      .text(c.instance)
      .text(c.provider)
      .text(c.region)
      .text(c.instance_type)
      .text(c.component)
      .text(c.kind)
      .text(c.mode)
      .instant(c.period_start)
      .instant(c.period_end)
      .integer(c.repeat)
      .integer(c.run_index)
      .decimal(c.quantity)
      .text(c.unit)
      .decimal(c.unit_price)
      .text(c.price_unit)
      .decimal(c.exact_amount)
      .decimal(c.billed_amount)
      .decimal(c.rounding)
      .decimal(c.total_exact)
      .decimal(c.total_billed)
      .decimal(c.total_rounding())
      .text(c.currency.code())
      .integer(c.price_id)
      .integer(c.policy_id)
      .integer(c.discount_id)
      .integer_list(c.event_seqs)
      .text(c.note);
  doc.end_row();
}

// The text table's columns: a few fields, named as in CSV and JSON, some with their unit.
std::vector<Column> charge_text_columns() {
  return {{"id", true},
          {"instance"},
          {"component"},
          {"kind"},
          {"period_start"},
          {"period_end"},
          {"repeat", true},
          {"quantity", true},
          {"unit_price", true},
          {"total_billed", true},
          {"total_rounding", true},
          {"currency"}};
}

void charge_text_cells(const ChargeLine& c, std::vector<std::string>& cells) {
  std::string id = std::to_string(c.id);
  if (c.run_length > 1 && (c.repeat != c.run_length)) {
    id += "#" + std::to_string(c.run_index);  // a part of a run
  }
  cells = {id,
           c.instance,
           c.component,
           c.kind,
           format_instant(c.period_start),
           format_instant(c.period_end),
           std::to_string(c.repeat),
           c.quantity.to_string() + " " + c.unit,
           c.unit_price.to_string() + "/" + c.price_unit,
           c.total_billed.to_string(),
           signed_text(c.total_rounding()),
           c.currency.to_string()};
}

int run_charges(const Globals& globals, const ChargesArgs& args) {
  auto db = globals.open_database(Access::read);
  ChargeFilter filter;
  if (!args.account.empty()) {
    check_account(db, args.account);
    filter.account = args.account;
  }
  if (!args.instance.empty()) filter.instance = args.instance;
  filter.from = instant_flag("--from", args.from);
  filter.to = instant_flag("--to", args.to);
  if (filter.from && filter.to && *filter.to < *filter.from) {
    throw InputError("command line", "", "--to", *args.to + " is before --from " + *args.from);
  }
  if (args.forecast && args.format != "focus") {
    throw InputError("command line", "", "--forecast", "needs --format focus");
  }
  if (args.format == "focus") {
    // Streamed: an export of a month of many instances is millions of hourly rows.
    write_focus_csv(std::cout, db, query_charges(db, filter),
                    args.forecast ? FocusPart::forecast : FocusPart::billed);
    return 0;
  }
  const Format format = parse_format(args.format);
  const bool text = format == Format::table;
  Document doc(std::cout, format, Document::Shape::listing);
  doc.begin_rows("rows", text ? charge_text_columns() : charge_columns());
  std::vector<std::string> cells;
  for_each_charge(db, filter, args.hourly ? ChargeDetail::hourly : ChargeDetail::lines,
                  [&](const ChargeLine& line) {
                    if (text) {
                      charge_text_cells(line, cells);
                      doc.row(cells);
                    } else {
                      write_charge(doc, line);
                    }
                  });
  doc.end_rows();
  doc.finish();
  return 0;
}

// ---- bill ----------------------------------------------------------------------------------

struct BillArgs {
  std::string account, month, zone;
  Format format = Format::table;
};

// Text shows the sign of a change ("+0.005"); CSV and JSON write plain decimals.
std::string change_cell(Decimal d, Format format) {
  return format == Format::table ? signed_text(d) : d.to_string();
}

void add_totals(std::vector<std::string>& row, const Totals& t, Format format) {
  row.push_back(std::to_string(t.settlements));
  row.push_back(t.exact.to_string());
  row.push_back(change_cell(t.rounding, format));
  row.push_back(t.billed.to_string());
}

int run_bill(const Globals& globals, const BillArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto [year, month] = flag_value("--month", [&] { return parse_month(args.month); });
  check_account(db, args.account);
  // The movements are read again, one at a time, for the last section (memory does not grow
  // with them), in the same snapshot as the totals.
  const ReadSnapshot snapshot(db);
  const auto s =
      args.zone.empty()
          ? monthly_statement(db, args.account, year, month, StatementMovements::summarised)
          : monthly_statement(db, args.account, year, month,
                              flag_value("--zone", [&] { return Calendar(args.zone); }),
                              StatementMovements::summarised);
  const Calendar calendar(s.time_zone);

  Table summary = record_table();
  summary.add_field("account", s.account);
  summary.add_field("month", args.month);
  summary.add_field("time_zone", s.time_zone);
  summary.add_field("period_start", format_instant(s.period_start));
  summary.add_field("period_end", format_instant(s.period_end));
  summary.add_field("period_start_local", calendar.format_local(s.period_start));
  summary.add_field("period_end_local", calendar.format_local(s.period_end));

  const auto with_amounts = [](std::vector<Column> first, bool currency_last) {
    for (Column c : {int_column("settlements"), Column{"exact", true}, Column{"rounding", true},
                     Column{"billed", true}}) {
      first.push_back(std::move(c));
    }
    if (currency_last) first.push_back({"currency"});
    return first;
  };
  std::vector<std::string> row;
  const auto amounts_row = [&](std::vector<std::string> first, const Totals& t,
                               const Currency* currency_last) -> const std::vector<std::string>& {
    row = std::move(first);
    add_totals(row, t, args.format);
    if (currency_last) row.push_back(currency_last->to_string());
    return row;
  };

  Document doc(std::cout, args.format, Document::Shape::sections);
  doc.table("statement", summary);
  // CSV writes every section, with a `section` column (Document).
  doc.begin_rows("charges_by_instance_and_component",
                 with_amounts({{"instance"}, {"component"}, {"provider"}, {"instance_type"}}, true),
                 /*in_csv=*/true);
  for (const auto& c : s.components) {
    doc.row(
        amounts_row({c.instance, c.component, c.provider, c.instance_type}, c.totals, &c.currency));
  }
  doc.end_rows();
  doc.begin_rows("charges_by_kind", with_amounts({{"kind"}}, true), false);
  for (const auto& k : s.kinds) doc.row(amounts_row({k.kind}, k.totals, &k.currency));
  doc.end_rows();
  doc.begin_rows("totals", with_amounts({{"currency"}}, false), false);
  for (const auto& t : s.totals) doc.row(amounts_row({t.currency.to_string()}, t.totals, nullptr));
  doc.end_rows();

  doc.begin_rows("balances",
                 {{"currency"},
                  {"opening", true},
                  {"topups", true},
                  {"refunds", true},
                  {"charges", true},
                  {"other", true},
                  {"closing", true},
                  int_column("movements"),
                  bool_column("reconciles")},
                 false);
  for (const auto& b : s.balances) {
    doc.row({b.currency.to_string(), b.opening.to_string(), b.topups.to_string(),
             b.refunds.to_string(), b.charges.to_string(), b.other.to_string(),
             b.closing.to_string(), std::to_string(b.movements), b.reconciles ? "yes" : "NO"});
  }
  doc.end_rows();

  doc.begin_rows("balance_movements",
                 {{"at"},
                  {"kind"},
                  {"amount", true},
                  {"balance_after", true},
                  {"currency"},
                  int_column("charge_id"),
                  int_column("event_seq")},
                 false);
  for_each_balance_movement(
      db, args.account, s.period_start, s.period_end,
      [&](const BalanceMovement& m) {
        doc.begin_row()
            .instant(m.at)
            .text(m.kind)
            .text(change_cell(m.amount, args.format))
            .decimal(m.balance_after)
            .text(m.currency.code())
            .integer(m.charge_id)
            .integer(m.event_seq);
        doc.end_row();
      },
      &s.balances);
  doc.end_rows();
  doc.finish();
  return 0;
}

// ---- explain -------------------------------------------------------------------------------

struct ExplainArgs {
  std::int64_t charge_id = 0;
  Format format = Format::table;
};

// An open end (no effective_to) is empty: null in JSON.
std::string optional_instant_text(const std::optional<Instant>& t) {
  return t ? format_instant(*t) : "";
}

// explain's catalog rows of a prepaid term discount and of a commitment.
Table discount_table(const DiscountRowInfo& d) {
  return record_table({{"id", std::to_string(d.id), Kind::integer},
                       {"provider", d.provider},
                       {"family", d.family.empty() ? "*" : d.family},
                       {"mode", d.mode},
                       {"min_months", std::to_string(d.min_months), Kind::integer},
                       {"max_months", std::to_string(d.max_months), Kind::integer},
                       {"factor", d.factor.to_string()},
                       {"effective_from", format_instant(d.effective_from)},
                       {"effective_to", optional_instant_text(d.effective_to)},
                       {"source", d.source},
                       {"as_of", d.as_of}});
}

Table commitment_table(const CommitmentRowInfo& k) {
  return record_table({{"id", std::to_string(k.id), Kind::integer},
                       {"provider", k.provider},
                       {"subject_kind", k.subject_kind},
                       {"subject", k.subject},
                       {"region", k.region.empty() ? "*" : k.region},
                       {"program", k.program},
                       {"class", k.offering_class},
                       {"term_months", std::to_string(k.term_months), Kind::integer},
                       {"payment", k.payment},
                       {"upfront", k.upfront.to_string()},
                       {"hourly", k.hourly.to_string()},
                       {"currency", k.currency.to_string()},
                       {"effective_from", format_instant(k.effective_from)},
                       {"effective_to", optional_instant_text(k.effective_to)},
                       {"source", k.source},
                       {"as_of", k.as_of}});
}

int run_explain(const Globals& globals, const ExplainArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto x = explain_charge(db, args.charge_id);
  const ChargeLine& c = x.line;
  std::vector<std::pair<std::string, Table>> sections;
  sections.emplace_back("charge", record_table({{"id", std::to_string(c.id), Kind::integer},
                                                {"account", c.account},
                                                {"instance", c.instance},
                                                {"provider", c.provider},
                                                {"region", c.region},
                                                {"instance_type", c.instance_type},
                                                {"component", c.component},
                                                {"kind", c.kind},
                                                {"mode", c.mode},
                                                {"period_start", format_instant(c.period_start)},
                                                {"period_end", format_instant(c.period_end)},
                                                {"repeat", std::to_string(c.repeat), Kind::integer},
                                                {"quantity", c.quantity.to_string()},
                                                {"unit", c.unit},
                                                {"unit_price", c.unit_price.to_string()},
                                                {"price_unit", c.price_unit},
                                                {"exact_amount", c.exact_amount.to_string()},
                                                {"billed_amount", c.billed_amount.to_string()},
                                                {"rounding", change_cell(c.rounding, args.format)},
                                                {"total_exact", c.total_exact.to_string()},
                                                {"total_billed", c.total_billed.to_string()},
                                                {"currency", c.currency.to_string()},
                                                {"note", c.note}}));
  if (x.price) {
    const auto& p = *x.price;
    sections.emplace_back("price row",
                          record_table({{"table", p.table},
                                        {"id", std::to_string(p.id), Kind::integer},
                                        {"provider", p.provider},
                                        {"subject", p.subject},
                                        {"region", p.region.empty() ? "*" : p.region},
                                        {"mode", p.mode},
                                        {"amount", p.amount.to_string()},
                                        {"currency", p.currency.to_string()},
                                        {"unit", p.unit},
                                        {"effective_from", format_instant(p.effective_from)},
                                        {"effective_to", optional_instant_text(p.effective_to)},
                                        {"source", p.source},
                                        {"as_of", p.as_of}}));
  }
  if (x.policy) {
    const auto& p = *x.policy;
    sections.emplace_back(
        "policy row",
        record_table(
            {{"id", std::to_string(p.id), Kind::integer},
             {"provider", p.provider},
             {"effective_from", format_instant(p.effective_from)},
             {"effective_to", optional_instant_text(p.effective_to)},
             {"metering_granularity_seconds", std::to_string(p.metering_granularity_seconds),
              Kind::integer},
             {"settlement_period", p.settlement_period},
             {"disk_settlement_period", p.disk_settlement_period.value_or(p.settlement_period)},
             {"bandwidth_settlement_period",
              p.bandwidth_settlement_period.value_or(p.settlement_period)},
             {"settlement_rounding", std::string(to_string(p.settlement_rounding))},
             {"settlement_decimals", std::to_string(p.settlement_decimals), Kind::integer},
             {"min_charge_seconds_per_run", std::to_string(p.min_charge_seconds_per_run),
              Kind::integer},
             {"min_charge_per_lifetime",
              p.min_charge_per_lifetime ? p.min_charge_per_lifetime->to_string() : ""},
             {"source", p.source},
             {"as_of", p.as_of}}));
  }
  if (x.discount) sections.emplace_back("discount row", discount_table(*x.discount));
  if (x.commitment) sections.emplace_back("commitment row", commitment_table(*x.commitment));
  Table events;
  events.columns = {int_column("seq"), {"time"}, {"type"}, {"id"}, {"source"}, {"payload"}};
  for (const auto& e : x.events) {
    events.add_row({std::to_string(e.seq), format_instant(e.time), e.type, e.id,
                    e.source_file + ":" + std::to_string(e.source_line), e.payload});
  }
  sections.emplace_back("events", std::move(events));
  if (!x.rule.empty()) {
    sections.emplace_back("rule", record_table({{"rule", x.rule}, {"source", x.rule_source}}));
  }
  Table arithmetic;
  arithmetic.columns = {{"step"}};
  for (const auto& step : x.arithmetic) arithmetic.add_row({step});
  sections.emplace_back("arithmetic", std::move(arithmetic));
  Table check = record_table();
  check.add_field("derivation", std::string(to_string(x.derivation)));
  check.add_field("consistent", x.consistent() ? "yes" : "NO", Kind::boolean);
  sections.emplace_back("check", std::move(check));
  // The derivation holds for the price row the line used; these rows are in force now.
  Table superseded;
  superseded.columns = {{"price_row"}};
  for (const auto& row : x.superseded) superseded.add_row({row});
  sections.emplace_back("superseded", std::move(superseded));
  Table mismatches;
  mismatches.columns = {{"mismatch"}};
  for (const auto& m : x.mismatches) mismatches.add_row({m});
  sections.emplace_back("mismatches", std::move(mismatches));
  write_sections(std::cout, sections, args.format, "charge");
  return x.consistent() ? kExitOk : kExitMismatch;
}

// ---- rejects -------------------------------------------------------------------------------

struct RejectsArgs {
  std::string account, kind;
  Format format = Format::table;
};

int run_rejects(const Globals& globals, const RejectsArgs& args) {
  auto db = globals.open_database(Access::read);
  RejectFilter filter;
  if (!args.account.empty()) {
    check_account(db, args.account);
    filter.account = args.account;
  }
  if (!args.kind.empty()) filter.kind = args.kind;
  const bool full = args.format != Format::table;
  std::vector<Column> columns = {int_column("id"), {"kind"}, {"source"}, {"account"},
                                 {"event_id"},     {"time"}, {"field"},  {"reason"}};
  if (full) columns.push_back({"raw"});
  Document doc(std::cout, args.format, Document::Shape::listing);
  doc.begin_rows("rows", std::move(columns));
  std::string source;
  for_each_reject(db, filter, [&](const RejectRow& r) {
    source.assign(r.source_file).append(":").append(std::to_string(r.source_line));
    auto& row = doc.begin_row()
                    .integer(r.id)
                    .text(r.kind)
                    .text(source)
                    .text(r.account)
                    .text(r.event_id)
                    .text(r.time ? format_instant(*r.time) : "")
                    .text(r.field)
                    .text(r.reason);
    if (full) row.text(r.raw);
    doc.end_row();
  });
  doc.end_rows();
  doc.finish();
  return 0;
}

}  // namespace

void add_bill_commands(CLI::App& app, Globals& globals, Action& action) {
  {
    auto* sub = app.add_subcommand(
        "bill",
        "A monthly statement: charges per instance and component, per kind and per currency, "
        "and the balance movements of the month");
    auto args = std::make_shared<BillArgs>();
    sub->add_option("--account", args->account, "The account")->required();
    sub->add_option("--month", args->month, "The month, YYYY-MM")->required();
    sub->add_option("--zone", args->zone,
                    "Time zone of the month's bounds (default: the billing time zone of the "
                    "account's providers, e.g. Asia/Shanghai)");
    add_format_option(*sub, args->format);
    sub->footer(
        "A settlement run crossing the month's end is split by hours between the months. With "
        "--format csv only the per-instance-and-component totals are written.");
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] { return run_bill(globals, *args); };
    });
  }
  {
    auto* sub = app.add_subcommand("charges", "List charge lines");
    auto args = std::make_shared<ChargesArgs>();
    sub->add_option("--account", args->account, "Only this account");
    sub->add_option("--instance", args->instance, "Only this instance");
    sub->add_option("--from", args->from,
                    "Only lines starting at or after this RFC 3339 instant or date (UTC)");
    sub->add_option("--to", args->to, "Only lines starting before this instant or date (UTC)");
    sub->add_flag("--forecast", args->forecast,
                  "With --format focus: only the amortised hours of purchases after the end of "
                  "the replay (the normal export stops there)");
    sub->add_flag("--hourly", args->hourly,
                  "One line per hourly settlement (a run of N identical hours is N lines)");
    sub->add_option("--format", args->format,
                    "Output format: table (default), csv, json, or focus (FinOps FOCUS 1.2 CSV, "
                    "always hourly)")
        ->check(CLI::IsMember({"table", "csv", "json", "focus"}));
    sub->footer(
        "A run of identical hourly settlements is one line unless --hourly; --from/--to cut runs "
        "at hour boundaries.");
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] { return run_charges(globals, *args); };
    });
  }
  {
    auto* sub = app.add_subcommand(
        "explain",
        "Justify a charge line: its price, policy and discount rows, the events that produced "
        "it, and its arithmetic re-derived with the billing rules");
    auto args = std::make_shared<ExplainArgs>();
    sub->add_option("CHARGE_ID", args->charge_id, "The charge id (see `gpubill charges`)")
        ->required();
    add_format_option(*sub, args->format);
    sub->footer("Exit status 3 when the stored line disagrees with its re-derivation.");
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] { return run_explain(globals, *args); };
    });
  }
  {
    auto* sub = app.add_subcommand(
        "rejects", "List input lines the rules rejected or that were quarantined as malformed");
    auto args = std::make_shared<RejectsArgs>();
    sub->add_option("--account", args->account, "Only this account");
    sub->add_option("--kind", args->kind, "Only this kind: rule, malformed, duplicate")
        ->check(CLI::IsMember({"rule", "malformed", "duplicate"}));
    add_format_option(*sub, args->format);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] { return run_rejects(globals, *args); };
    });
  }
}

}  // namespace gpubill::cli
