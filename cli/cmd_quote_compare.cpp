#include <nlohmann/json.hpp>

#include <ostream>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/percent.hpp"
#include "quote_compare_output.hpp"

namespace gpubill::cli {

namespace {

const QuoteSnapshotLine& key_of(const LineComparison& c) {
  return c.after ? *c.after : *c.before;
}

std::string rank_of(const QuoteSnapshotLine* l) {
  return l ? std::to_string(l->rank) : "";
}

std::string exact(const std::optional<Money>& m) {
  return m ? m->amount().to_string() : "";
}

std::string decimal_or_empty(const std::optional<Decimal>& d) {
  return d ? d->to_string() : "";
}

// A change in percent: "+20.00" for people (signed), "20.00" for machines.
std::string pct(const std::optional<Decimal>& d) {
  return d ? percent_text(*d) : "";
}
std::string plain_pct(const std::optional<Decimal>& d) {
  return d ? d->round(kPercentDecimals, kPercentRounding).to_string(kPercentDecimals) : "";
}

std::string signed_move(const std::optional<long>& move) {
  if (!move || *move == 0) return "";
  return (*move > 0 ? "+" : "") + std::to_string(*move);
}

std::optional<Money> price_of(const QuoteSnapshotLine* l) {
  return l ? l->unit_price : std::nullopt;
}
std::optional<Money> total_of(const QuoteSnapshotLine* l) {
  return l ? l->total : std::nullopt;
}

// "18.02 CNY", or "18.02 → 17.50 CNY"; "unknown" for a line without a price.
std::string price_change_text(const LineComparison& c) {
  const auto one = [](const QuoteSnapshotLine* l) {
    return l->unit_price ? l->unit_price->to_string() : std::string("unknown");
  };
  if (!c.before) return one(c.after);
  if (!c.after || c.before->unit_price == c.after->unit_price) return one(c.before);
  if (c.price_delta) {
    return c.before->unit_price->amount().to_string() + " \u2192 " + one(c.after);
  }
  return one(c.before) + " \u2192 " + one(c.after);
}

// "3 → 1", or the one rank a new, removed or unmoved line has.
std::string rank_change_text(const LineComparison& c) {
  if (!c.before) return rank_of(c.after);
  if (!c.after || c.before->rank == c.after->rank) return rank_of(c.before);
  return rank_of(c.before) + " \u2192 " + rank_of(c.after);
}

// A part of a total's move, as its total is shown; empty when the move is not split.
std::string part_cell(const std::optional<Decimal>& part, const QuoteSnapshotLine& line) {
  if (!part || !line.total) return "";
  return money_cell(std::optional<Money>(Money(*part, line.total->currency())));
}

std::string rate_of(const QuoteSnapshotLine* l) {
  return l && l->fx_rate ? l->fx_rate->to_string() : "";
}

// Totals in the quote's currency, named below the table.
Table text_table(const QuoteComparison& cmp) {
  Table t{{{"change"},
           {"rank"},
           {"move", true},
           {"provider"},
           {"region"},
           {"instance_type"},
           {"mode"},
           {"unit_price"},
           {"price_pct", true},
           {"was", true},
           {"total", true},
           {"delta", true},
           {"by_price", true},
           {"by_fx", true},
           {"total_pct", true}},
          {}};
  for (const auto& c : cmp.lines) {
    const auto& k = key_of(c);
    const auto delta = c.total_delta
                           ? std::optional<Money>(Money(*c.total_delta, k.total->currency()))
                           : std::nullopt;
    t.add_row({std::string(to_string(c.kind)), rank_change_text(c), signed_move(c.rank_move),
               k.provider, k.region, k.instance_type, k.mode.empty() ? "-" : k.mode,
               price_change_text(c), pct(c.price_percent), money_cell(total_of(c.before)),
               money_cell(total_of(c.after)), money_cell(delta), part_cell(c.total_delta_price, k),
               part_cell(c.total_delta_fx, k), pct(c.total_percent)});
  }
  return t;
}

// Exact amounts and one value a cell, for machines.
Table data_table(const QuoteComparison& cmp, const Currency& currency) {
  Table t{{{"change"},
           {"provider"},
           {"region"},
           {"instance_type"},
           {"mode"},
           int_column("rank_before"),
           int_column("rank_after"),
           int_column("rank_move"),
           {"price_before"},
           {"price_after"},
           {"price_currency"},
           {"price_delta"},
           {"price_pct"},
           {"total_before"},
           {"total_after"},
           {"total_currency"},
           {"total_delta"},
           {"total_pct"},
           {"total_pct_exact"},
           {"total_delta_price"},
           {"total_delta_fx"},
           {"fx_rate_before"},
           {"fx_rate_after"}},
          {}};
  for (const auto& c : cmp.lines) {
    const auto& k = key_of(c);
    const auto price = price_of(c.after) ? price_of(c.after) : price_of(c.before);
    t.add_row({std::string(to_string(c.kind)),
               k.provider,
               k.region,
               k.instance_type,
               k.mode,
               rank_of(c.before),
               rank_of(c.after),
               c.rank_move ? std::to_string(*c.rank_move) : "",
               exact(price_of(c.before)),
               exact(price_of(c.after)),
               price ? price->currency().to_string() : "",
               decimal_or_empty(c.price_delta),
               plain_pct(c.price_percent),
               exact(total_of(c.before)),
               exact(total_of(c.after)),
               currency.to_string(),
               decimal_or_empty(c.total_delta),
               plain_pct(c.total_percent),
               decimal_or_empty(c.total_percent),
               decimal_or_empty(c.total_delta_price),
               decimal_or_empty(c.total_delta_fx),
               rate_of(c.before),
               rate_of(c.after)});
  }
  return t;
}

std::string at_text(const std::optional<Instant>& t) {
  return t ? format_instant(*t) : "unknown";
}

}  // namespace

void write_quote_comparison(std::ostream& out, const QuoteResult& now, const QuoteSnapshot& before,
                            const std::string& before_path, std::size_t top, Format format) {
  if (before.currency != now.currency) {
    throw InputError(before_path, "", "currency",
                     "the earlier quote is in " + before.currency.to_string() + ", this one in " +
                         now.currency.to_string() + ": quote with --currency " +
                         before.currency.to_string() + " to compare totals");
  }
  const QuoteSnapshot after = snapshot_of(now);
  const QuoteComparison cmp = compare_quotes(before, after, top);
  const std::size_t added = cmp.count(LineChangeKind::added),
                    removed = cmp.count(LineChangeKind::removed),
                    price = cmp.count(LineChangeKind::price), fx = cmp.count(LineChangeKind::fx),
                    price_fx = cmp.count(LineChangeKind::price_fx),
                    changed = cmp.count(LineChangeKind::changed),
                    moved = cmp.count(LineChangeKind::moved),
                    same = cmp.count(LineChangeKind::same);
  if (format == Format::json) {
    nlohmann::ordered_json j = {{"compared_to", before_path},
                                {"before_at", before.at ? nlohmann::ordered_json(at_text(before.at))
                                                        : nlohmann::ordered_json()},
                                {"at", format_instant(now.at)},
                                {"currency", now.currency.to_string()},
                                {"new", added},
                                {"removed", removed},
                                {"price", price},
                                {"fx", fx},
                                {"price_fx", price_fx},
                                {"changed", changed},
                                {"moved", moved},
                                {"same", same},
                                {"lines", json_rows(data_table(cmp, now.currency))}};
    out << json_text(with_schema_version(j)) << "\n";
    return;
  }
  if (format == Format::csv) {
    write_table(out, data_table(cmp, now.currency), format);
    return;
  }
  out << "Compared with " << before_path << " (prices at " << at_text(before.at) << "; now "
      << format_instant(now.at) << "): " << added << " new, " << removed << " removed, " << price
      << " with a new price, " << fx << " moved by the exchange rate only, " << price_fx
      << " by both a new price and the exchange rate, " << changed << " changed otherwise, "
      << moved << " only moved in rank, " << same << " the same.\n\n";
  write_table(out, text_table(cmp), format);
  out << "\nLines are matched by provider, region, instance type and mode. change: price (the "
         "unit price moved), fx (same price in another currency, the exchange rate moved the "
         "total), price+fx (both moved: by_price is the move at the earlier rate, by_fx what the "
         "rate moved, current amount × (rate now − rate before); they add up to delta), changed "
         "(the total moved otherwise, or a price became known), moved (only the "
         "rank), same. move: places up (+) or down (−) the ranking; delta = total − was; "
         "percentages of the earlier value, rounded half up to "
      << kPercentDecimals << " decimals. Totals are in " << now.currency.to_string() << ".\n";
}

}  // namespace gpubill::cli
