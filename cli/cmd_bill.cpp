// gpubill bill | charges | explain | rejects: reading the bills a replay wrote.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "gpubill/errors.hpp"
#include "gpubill/focus.hpp"
#include "gpubill/ledger.hpp"
#include "output.hpp"

namespace gpubill::cli {

namespace {

std::string opt_id(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : "";
}

std::string seqs_text(const std::vector<std::int64_t>& seqs) {
  std::string out;
  for (auto s : seqs) out += (out.empty() ? "" : ",") + std::to_string(s);
  return out;
}

std::string signed_text(Decimal d) {
  return d.sign() > 0 ? "+" + d.to_string() : d.to_string();
}

// ---- charges -----------------------------------------------------------------------------

struct ChargesArgs {
  std::string account, instance, format = "table";
  std::optional<std::string> from, to;
  bool hourly = false;
};

Table charges_table(const std::vector<ChargeLine>& lines, bool full) {
  Table t;
  if (full) {
    t.columns = {{"id", true},
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
                 {"repeat", true},
                 {"run_index", true},
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
                 {"price_id", true},
                 {"policy_id", true},
                 {"discount_id", true},
                 {"event_seqs"},
                 {"note"}};
    for (const auto& c : lines) {
      t.add_row({std::to_string(c.id),
                 c.account,
                 c.instance,
                 c.provider,
                 c.region,
                 c.instance_type,
                 c.component,
                 c.kind,
                 c.mode,
                 format_instant(c.period_start),
                 format_instant(c.period_end),
                 std::to_string(c.repeat),
                 std::to_string(c.run_index),
                 c.quantity.to_string(),
                 c.unit,
                 c.unit_price.to_string(),
                 c.price_unit,
                 c.exact_amount.to_string(),
                 c.billed_amount.to_string(),
                 c.rounding.to_string(),
                 c.total_exact.to_string(),
                 c.total_billed.to_string(),
                 c.total_rounding().to_string(),
                 c.currency.to_string(),
                 opt_id(c.price_id),
                 opt_id(c.policy_id),
                 opt_id(c.discount_id),
                 seqs_text(c.event_seqs),
                 c.note});
    }
    return t;
  }
  t.columns = {{"id", true},         {"instance"},     {"component"},      {"kind"},
               {"start (UTC)"},      {"end (UTC)"},    {"hours", true},    {"quantity", true},
               {"unit_price", true}, {"billed", true}, {"rounding", true}, {"currency"}};
  for (const auto& c : lines) {
    std::string id = std::to_string(c.id);
    if (c.run_length > 1 && (c.repeat != c.run_length)) {
      id += "#" + std::to_string(c.run_index);  // a part of a run
    }
    t.add_row({id, c.instance, c.component, c.kind, format_instant(c.period_start),
               format_instant(c.period_end), std::to_string(c.repeat),
               c.quantity.to_string() + " " + c.unit, c.unit_price.to_string() + "/" + c.price_unit,
               c.total_billed.to_string(), signed_text(c.total_rounding()),
               c.currency.to_string()});
  }
  return t;
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
  auto lines = query_charges(db, filter);
  if (args.format == "focus") {
    // Streamed: an export of a month of many instances is millions of hourly rows.
    write_focus_csv(std::cout, db, lines);
    return 0;
  }
  if (args.hourly) lines = expand_hourly(lines);
  const Format format = parse_format(args.format);
  write_table(std::cout, charges_table(lines, format != Format::table), format);
  return 0;
}

// ---- bill ----------------------------------------------------------------------------------

struct BillArgs {
  std::string account, month, zone;
  Format format = Format::table;
};

void add_totals(std::vector<std::string>& row, const Totals& t) {
  row.push_back(std::to_string(t.settlements));
  row.push_back(t.exact.to_string());
  row.push_back(signed_text(t.rounding));
  row.push_back(t.billed.to_string());
}

int run_bill(const Globals& globals, const BillArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto [year, month] = flag_value("--month", [&] { return parse_month(args.month); });
  check_account(db, args.account);
  const auto s = args.zone.empty()
                     ? monthly_statement(db, args.account, year, month)
                     : monthly_statement(db, args.account, year, month,
                                         flag_value("--zone", [&] { return Calendar(args.zone); }));
  const Calendar calendar(s.time_zone);

  Table summary;
  summary.key_value = true;
  summary.columns = {{"field"}, {"value"}};
  summary.add_row({"account", s.account});
  summary.add_row({"month", args.month});
  summary.add_row({"time_zone", s.time_zone});
  summary.add_row({"period_start", format_instant(s.period_start) + " (" +
                                       calendar.format_local(s.period_start) + ")"});
  summary.add_row({"period_end", format_instant(s.period_end) + " (" +
                                     calendar.format_local(s.period_end) + ")"});
  for (const auto& t : s.totals) {
    summary.add_row({"billed_" + t.currency.to_string(), t.totals.billed.to_string()});
  }

  const std::vector<Column> amounts = {
      {"settlements", true}, {"exact", true}, {"rounding", true}, {"billed", true}};
  Table components;
  components.columns = {{"instance"}, {"component"}, {"provider"}, {"instance_type"}};
  components.columns.insert(components.columns.end(), amounts.begin(), amounts.end());
  components.columns.push_back({"currency"});
  for (const auto& c : s.components) {
    std::vector<std::string> row = {c.instance, c.component, c.provider, c.instance_type};
    add_totals(row, c.totals);
    row.push_back(c.currency.to_string());
    components.add_row(std::move(row));
  }

  Table kinds;
  kinds.columns = {{"kind"}};
  kinds.columns.insert(kinds.columns.end(), amounts.begin(), amounts.end());
  kinds.columns.push_back({"currency"});
  for (const auto& k : s.kinds) {
    std::vector<std::string> row = {k.kind};
    add_totals(row, k.totals);
    row.push_back(k.currency.to_string());
    kinds.add_row(std::move(row));
  }

  Table totals;
  totals.columns = {{"currency"}};
  totals.columns.insert(totals.columns.end(), amounts.begin(), amounts.end());
  for (const auto& t : s.totals) {
    std::vector<std::string> row = {t.currency.to_string()};
    add_totals(row, t.totals);
    totals.add_row(std::move(row));
  }

  Table balances;
  balances.columns = {{"currency"},      {"opening", true},   {"topups", true},
                      {"refunds", true}, {"charges", true},   {"other", true},
                      {"closing", true}, {"movements", true}, {"reconciles"}};
  for (const auto& b : s.balances) {
    balances.add_row({b.currency.to_string(), b.opening.to_string(), b.topups.to_string(),
                      b.refunds.to_string(), b.charges.to_string(), b.other.to_string(),
                      b.closing.to_string(), std::to_string(b.movements),
                      b.reconciles ? "yes" : "NO"});
  }

  Table movements;
  movements.columns = {{"at (UTC)"}, {"kind"},         {"amount", true}, {"balance_after", true},
                       {"currency"}, {"charge", true}, {"event", true}};
  for (const auto& m : s.movements) {
    movements.add_row({format_instant(m.at), m.kind, signed_text(m.amount),
                       m.balance_after.to_string(), m.currency.to_string(), opt_id(m.charge_id),
                       opt_id(m.event_seq)});
  }

  write_sections(std::cout,
                 {{"statement", summary},
                  {"charges by instance and component", components},
                  {"charges by kind", kinds},
                  {"totals", totals},
                  {"balances", balances},
                  {"balance movements", movements}},
                 args.format, "charges by instance and component");
  return 0;
}

// ---- explain -------------------------------------------------------------------------------

struct ExplainArgs {
  std::int64_t charge_id = 0;
  Format format = Format::table;
};

Table key_values(std::vector<std::pair<std::string, std::string>> rows) {
  Table t;
  t.key_value = true;
  t.columns = {{"field"}, {"value"}};
  for (auto& [k, v] : rows) t.add_row({std::move(k), std::move(v)});
  return t;
}

std::string period_text(Instant from, const std::optional<Instant>& to) {
  return format_instant(from) + " … " + (to ? format_instant(*to) : "open");
}

int run_explain(const Globals& globals, const ExplainArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto x = explain_charge(db, args.charge_id);
  const ChargeLine& c = x.line;
  std::vector<std::pair<std::string, Table>> sections;
  sections.emplace_back(
      "charge",
      key_values({{"id", std::to_string(c.id)},
                  {"account", c.account},
                  {"instance", c.instance},
                  {"provider", c.provider},
                  {"region", c.region},
                  {"instance_type", c.instance_type},
                  {"component", c.component},
                  {"kind", c.kind},
                  {"mode", c.mode},
                  {"period", format_instant(c.period_start) + " … " + format_instant(c.period_end)},
                  {"repeat", std::to_string(c.repeat)},
                  {"quantity", c.quantity.to_string() + " " + c.unit},
                  {"unit_price",
                   c.unit_price.to_string() + " " + c.currency.to_string() + "/" + c.price_unit},
                  {"exact_amount", c.exact_amount.to_string()},
                  {"billed_amount", c.billed_amount.to_string()},
                  {"rounding", signed_text(c.rounding)},
                  {"total_exact", c.total_exact.to_string()},
                  {"total_billed", c.total_billed.to_string()},
                  {"currency", c.currency.to_string()},
                  {"note", c.note}}));
  if (x.price) {
    const auto& p = *x.price;
    sections.emplace_back(
        "price row",
        key_values({{"table", p.table},
                    {"id", std::to_string(p.id)},
                    {"provider", p.provider},
                    {"subject", p.subject},
                    {"region", p.region.empty() ? "*" : p.region},
                    {"mode", p.mode},
                    {"amount", p.amount.to_string() + " " + p.currency.to_string() + "/" + p.unit},
                    {"effective", period_text(p.effective_from, p.effective_to)},
                    {"source", p.source},
                    {"as_of", p.as_of}}));
  }
  if (x.policy) {
    const auto& p = *x.policy;
    sections.emplace_back(
        "policy row",
        key_values(
            {{"id", std::to_string(p.id)},
             {"provider", p.provider},
             {"effective", period_text(p.effective_from, p.effective_to)},
             {"metering_granularity_seconds", std::to_string(p.metering_granularity_seconds)},
             {"settlement_period", p.settlement_period},
             {"disk_settlement_period", p.disk_settlement_period.value_or(p.settlement_period)},
             {"bandwidth_settlement_period",
              p.bandwidth_settlement_period.value_or(p.settlement_period)},
             {"settlement_rounding", std::string(to_string(p.settlement_rounding))},
             {"settlement_decimals", std::to_string(p.settlement_decimals)},
             {"min_charge_seconds_per_run", std::to_string(p.min_charge_seconds_per_run)},
             {"min_charge_per_lifetime",
              p.min_charge_per_lifetime ? p.min_charge_per_lifetime->to_string() : ""},
             {"source", p.source},
             {"as_of", p.as_of}}));
  }
  if (x.discount) {
    const auto& d = *x.discount;
    sections.emplace_back(
        "discount row",
        key_values({{"id", std::to_string(d.id)},
                    {"provider", d.provider},
                    {"family", d.family.empty() ? "*" : d.family},
                    {"mode", d.mode},
                    {"months", std::to_string(d.min_months) + "–" + std::to_string(d.max_months)},
                    {"factor", d.factor.to_string()},
                    {"effective", period_text(d.effective_from, d.effective_to)},
                    {"source", d.source},
                    {"as_of", d.as_of}}));
  }
  Table events;
  events.columns = {{"seq", true}, {"time (UTC)"}, {"type"}, {"id"}, {"source"}, {"payload"}};
  for (const auto& e : x.events) {
    events.add_row({std::to_string(e.seq), format_instant(e.time), e.type, e.id,
                    e.source_file + ":" + std::to_string(e.source_line), e.payload});
  }
  sections.emplace_back("events", std::move(events));
  Table arithmetic;
  arithmetic.columns = {{"step"}};
  for (const auto& step : x.arithmetic) arithmetic.add_row({step});
  sections.emplace_back("arithmetic", std::move(arithmetic));
  std::vector<std::pair<std::string, std::string>> check = {
      {"derivation", std::string(to_string(x.derivation)) +
                         (x.superseded.empty() ? "" : " (with the price row it used)")},
      {"consistent", x.consistent() ? "yes" : "NO"}};
  for (std::size_t i = 0; i < x.superseded.size(); ++i) {
    check.emplace_back("superseded " + std::to_string(i + 1), x.superseded[i]);
  }
  for (std::size_t i = 0; i < x.mismatches.size(); ++i) {
    check.emplace_back("mismatch " + std::to_string(i + 1), x.mismatches[i]);
  }
  sections.emplace_back("check", key_values(std::move(check)));
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
  const auto rows = query_rejects(db, filter);
  const bool full = args.format != Format::table;
  Table t;
  t.columns = {{"id", true}, {"kind"},       {"source"}, {"account"},
               {"event_id"}, {"time (UTC)"}, {"field"},  {"reason"}};
  if (full) t.columns.push_back({"raw"});
  for (const auto& r : rows) {
    std::vector<std::string> row = {std::to_string(r.id),
                                    r.kind,
                                    r.source_file + ":" + std::to_string(r.source_line),
                                    r.account,
                                    r.event_id,
                                    r.time ? format_instant(*r.time) : "",
                                    r.field,
                                    r.reason};
    if (full) row.push_back(r.raw);
    t.add_row(std::move(row));
  }
  write_table(std::cout, t, args.format);
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
