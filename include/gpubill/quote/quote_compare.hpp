// Comparing a quote with an earlier one (`gpubill quote --compare-to`): lines are matched by
// offer identity (provider, instance type, region, mode) and compared in rank, unit price and
// total.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpubill/base/money.hpp"
#include "gpubill/quote/quote.hpp"

namespace gpubill {

// One quote line as a comparison needs it: what a JSON quote keeps of a QuoteLine.
struct QuoteSnapshotLine {
  std::string provider, region, instance_type;
  std::string mode;                 // "payg", …; empty when the offer has no price at all
  std::size_t rank = 0;             // 1-based
  std::optional<Money> unit_price;  // native currency; unset when unknown
  std::optional<Money> total;       // the quote's currency; unset when unknown
  // The total before conversion, in the price's own currency (compute, storage and network
  // when they share it), and the exchange rate that converted it: quote-currency units per
  // unit of that currency (1 when it is the quote's currency). Unset when unknown (a JSON
  // quote without "compute" or "fx", or parts in several currencies).
  std::optional<Money> native_total;
  std::optional<Decimal> fx_rate;
  bool same_offer(const QuoteSnapshotLine& o) const {
    return provider == o.provider && region == o.region && instance_type == o.instance_type &&
           mode == o.mode;
  }
};

struct QuoteSnapshot {
  Currency currency = Currency::parse("CNY");
  std::optional<Instant> at;  // the quote's price date, when known
  std::vector<QuoteSnapshotLine> lines;
};

// The lines of a quote result (all of them: quote with top = 0 to compare beyond the shown top).
QuoteSnapshot snapshot_of(const QuoteResult& quote);

// Reads a quote that `gpubill quote --format json` wrote: its currency, "at" and each line's
// provider, region, instance_type, mode, rank, unit_price and total ({amount, currency} or
// null); other fields are ignored. Also accepts the quote inside a {"schema_version": N, …}
// envelope. Throws InputError naming the file, the JSON pointer and the field when the file
// cannot be read, is not JSON, or is not a gpubill quote.
QuoteSnapshot read_quote_snapshot(const std::string& path);

// What happened to a line between two quotes:
//   price+fx its unit price moved and so did the exchange rate converting it: both moved the
//            total (LineComparison::total_delta_price and total_delta_fx say by how much)
//   price    its unit price moved (in the price's own currency)
//   fx       its unit price is the same and its total moved by the exchange rate (the rate
//            moved; or, for a quote that does not record rates, the price is in another
//            currency than the quote's)
//   changed  its total moved for another reason (a billing rule), or its price became known or
//            unknown
//   moved    price and total are the same; only its rank moved (other lines moved around it)
//   same     nothing moved
enum class LineChangeKind { added, removed, changed, same, price, fx, moved, price_fx };
// "new", "removed", "changed", "same", "price", "fx", "moved", "price+fx".
std::string_view to_string(LineChangeKind kind) noexcept;

struct LineComparison {
  LineChangeKind kind = LineChangeKind::same;
  // The earlier line (null for a new one) and the current one (null for a removed one),
  // pointing into the snapshots compared.
  const QuoteSnapshotLine* before = nullptr;
  const QuoteSnapshotLine* after = nullptr;
  // Both lines: earlier rank − current rank (positive = moved up the ranking).
  std::optional<long> rank_move;
  // Both priced in one currency: after − before, exact, and percent_change (percent.hpp).
  std::optional<Decimal> price_delta, price_percent;
  std::optional<Decimal> total_delta, total_percent;
  // total_delta split in two when both lines record their native total and rate, in one
  // native currency (quote-currency amounts, exact):
  //   total_delta_fx    = native_after × (rate_after − rate_before): what the exchange rate
  //                       moved (the current amount at the current rate against the earlier one)
  //   total_delta_price = total_delta − total_delta_fx = native_after × rate_before −
  //                       total_before: what the price moved, at the earlier rate (and any
  //                       other change of the amount)
  std::optional<Decimal> total_delta_price, total_delta_fx;
};

struct QuoteComparison {
  // The current lines in rank order (each with its earlier line, if any), then the earlier
  // lines no current line matches, in their earlier rank order.
  std::vector<LineComparison> lines;
  std::size_t count(LineChangeKind kind) const;
};

// Matches the lines of `after` with those of `before` by offer identity (the first unmatched
// line of the same offer, when a quote has several), each pair classified as LineChangeKind
// says.
// Current lines ranked beyond `top` (0 = no limit) are listed only when `before` has them, so
// that a quote shown to its top N is compared with another shown to its top N.
QuoteComparison compare_quotes(const QuoteSnapshot& before, const QuoteSnapshot& after,
                               std::size_t top = 0);

}  // namespace gpubill
