// gpubill catalog diff: the prices added, removed and changed between two dates.
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "gpubill/catalog/catalog_diff.hpp"
#include "output.hpp"

namespace gpubill::cli {

namespace {

struct DiffArgs {
  std::string provider, gpu, mode, region;
  std::optional<std::string> from, to;
  Format format = Format::table;
};

// "CNY", or "CNY→USD" when the two rows differ.
std::string both(const std::string& before, const std::string& after) {
  return before == after ? after : before + "\u2192" + after;
}

std::string cell(const PriceRow* r, const auto& text_of) {
  return r ? std::string(text_of(*r)) : std::string();
}

// The change in percent: "+10.00" for people, a plain decimal ("10.00") for machines.
std::string percent_cell(const Decimal& percent, Format format) {
  if (format == Format::table) return percent_text(percent);
  return percent.round(kPercentDecimals, kPercentRounding).to_string(kPercentDecimals);
}

std::vector<std::string> diff_row(const PriceChange& c, Format format) {
  const PriceRow& key = c.row();
  const auto amount = [](const PriceRow& r) { return r.amount.amount().to_string(); };
  const auto currency = [](const PriceRow& r) { return r.amount.currency().to_string(); };
  const auto unit = [](const PriceRow& r) { return std::string(to_string(r.unit)); };
  const auto id = [](const PriceRow& r) { return std::to_string(r.id); };
  const auto as_of = [](const PriceRow& r) { return r.as_of; };
  const auto of_both = [&](const auto& text_of) {
    return c.before && c.after ? both(text_of(*c.before), text_of(*c.after)) : text_of(key);
  };
  return {key.provider,
          std::string(to_string(key.subject_kind)),
          key.subject,
          key.region.empty() ? "*" : key.region,
          std::string(to_string(key.mode)),
          std::string(to_string(c.kind)),
          cell(c.before, amount),
          cell(c.after, amount),
          of_both(currency),
          of_both(unit),
          c.delta ? c.delta->to_string() : "",
          c.percent ? percent_cell(*c.percent, format) : "",
          c.percent ? c.percent->to_string() : "",
          cell(c.before, id),
          cell(c.after, id),
          cell(c.before, as_of),
          cell(c.after, as_of)};
}

Table diff_table(const CatalogDiff& diff, Format format) {
  Table t{{{"provider"},
           {"subject_kind"},
           {"subject"},
           {"region"},
           {"mode"},
           {"change"},
           {"from_price", true},
           {"to_price", true},
           {"currency"},
           {"unit"},
           {"delta", true},
           {"change_pct", true},
           {"change_pct_exact"},
           int_column("from_row_id"),
           int_column("to_row_id"),
           {"from_as_of"},
           {"to_as_of"}},
          {}};
  for (const auto& c : diff.changes) t.add_row(diff_row(c, format));
  if (format == Format::table) {
    // The exact percentage and the rows' ids and dates are for machines.
    constexpr std::size_t kTextColumns = 12;
    t.columns.resize(kTextColumns);
    for (auto& row : t.rows) row.resize(kTextColumns);
  }
  return t;
}

std::size_t count(const CatalogDiff& diff, PriceChangeKind kind) {
  std::size_t n = 0;
  for (const auto& c : diff.changes) n += c.kind == kind ? 1 : 0;
  return n;
}

int run_diff(const Globals& globals, const DiffArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto catalog = Catalog::load(db);
  PriceDiffFilter filter;
  check_provider_flag(catalog, args.provider);
  filter.provider = args.provider;
  filter.gpus = gpu_flag(catalog, args.gpu);
  filter.mode = mode_flag(args.mode);
  filter.region = args.region;
  const Instant from = *instant_flag("--from", args.from);
  const auto to_flag = instant_flag("--to", args.to);
  const Instant to = to_flag ? *to_flag : catalog.latest_price_date().value_or(from);
  const CatalogDiff diff = diff_catalog(catalog, from, to, filter);
  const bool nothing = diff.changes.empty() && diff.unchanged == 0;
  const Table t = diff_table(diff, args.format);
  const std::size_t added = count(diff, PriceChangeKind::added),
                    removed = count(diff, PriceChangeKind::removed),
                    changed = count(diff, PriceChangeKind::changed);
  if (args.format == Format::json) {
    nlohmann::ordered_json j = {{"from", format_instant(diff.from)},
                                {"to", format_instant(diff.to)},
                                {"added", added},
                                {"removed", removed},
                                {"changed", changed},
                                {"unchanged", diff.unchanged},
                                {"changes", json_rows(t)}};
    std::cout << json_text(with_schema_version(j)) << "\n";
  } else if (args.format == Format::csv) {
    write_table(std::cout, t, args.format);
  } else if (nothing) {
    std::cout << "No price matches the filters at " << format_instant(diff.from) << " or at "
              << format_instant(diff.to) << ".\n";
  } else {
    std::cout << "Prices in force at " << format_instant(diff.from) << " \u2192 "
              << format_instant(diff.to) << (args.to ? "" : " (default: the latest price date)")
              << ": " << added << " added, " << removed << " removed, " << changed << " changed, "
              << diff.unchanged << " unchanged.\n\n";
    write_table(std::cout, t, args.format);
    std::cout << "\nregion * = a price for every region; delta = to_price \u2212 from_price; "
                 "change_pct = 100 \u00d7 delta \u00f7 from_price, rounded half up to "
              << kPercentDecimals
              << " decimals (blank when the currency or unit changed, or from_price is 0).\n";
  }
  return nothing ? kExitNothingMatched : kExitOk;
}

}  // namespace

void add_catalog_diff_command(CLI::App& catalog, Globals& globals, Action& action) {
  auto* sub = catalog.add_subcommand(
      "diff",
      "List the prices added, removed and changed between the catalog in force at two dates, "
      "with the change in percent");
  auto args = std::make_shared<DiffArgs>();
  sub->add_option("--from", args->from, "The earlier date or RFC 3339 instant")->required();
  sub->add_option("--to", args->to,
                  "The later date or instant (default: the latest effective_from in the catalog)");
  sub->add_option("--provider", args->provider, "Only this provider");
  sub->add_option("--gpu", args->gpu,
                  "Only prices of instance types with this GPU, or per-GPU prices of it (id, "
                  "alias, or a family such as V100)");
  sub->add_option("--mode", args->mode,
                  "Only this billing mode: payg, prepaid, spot, reserved_1y, reserved_3y");
  sub->add_option("--region", args->region,
                  "Only prices for this region (rows for every region included)");
  add_format_option(*sub, args->format);
  sub->footer("Exit status 4 when no price matches the filters at either date.");
  add_db_option(*sub, globals);
  sub->callback([&globals, &action, args] {
    action = [&globals, args] { return run_diff(globals, *args); };
  });
}

}  // namespace gpubill::cli
