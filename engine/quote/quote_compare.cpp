#include "gpubill/quote/quote_compare.hpp"

#include <algorithm>

#include "gpubill/base/percent.hpp"

namespace gpubill {

namespace {

struct Delta {
  std::optional<Decimal> delta, percent;
};

Delta delta_of(const std::optional<Money>& before, const std::optional<Money>& after) {
  if (!before || !after || before->currency() != after->currency()) return {};
  return {after->amount() - before->amount(), percent_change(before->amount(), after->amount())};
}

// Whether the exchange rate converting a line moved; nullopt when a side does not record it.
std::optional<bool> rate_moved(const QuoteSnapshotLine& before, const QuoteSnapshotLine& after) {
  if (!before.fx_rate || !after.fx_rate || !before.native_total || !after.native_total ||
      before.native_total->currency() != after.native_total->currency()) {
    return std::nullopt;
  }
  return *before.fx_rate != *after.fx_rate;
}

LineChangeKind kind_of(const QuoteSnapshotLine& before, const QuoteSnapshotLine& after) {
  const bool known = before.unit_price && after.unit_price && before.total && after.total;
  if (!known) {
    const bool same = !before.unit_price && !after.unit_price && !before.total && !after.total;
    if (!same) return LineChangeKind::changed;
    return before.rank == after.rank ? LineChangeKind::same : LineChangeKind::moved;
  }
  const std::optional<bool> fx = rate_moved(before, after);
  if (*before.unit_price != *after.unit_price) {
    return fx.value_or(false) ? LineChangeKind::price_fx : LineChangeKind::price;
  }
  if (*before.total != *after.total) {
    const bool foreign = after.unit_price->currency() != after.total->currency();
    return fx.value_or(foreign) ? LineChangeKind::fx : LineChangeKind::changed;
  }
  return before.rank == after.rank ? LineChangeKind::same : LineChangeKind::moved;
}

// total_delta split into what the price and what the exchange rate moved (LineComparison).
void split_total_delta(const QuoteSnapshotLine& before, const QuoteSnapshotLine& after,
                       LineComparison& c) {
  if (!c.total_delta || !rate_moved(before, after).value_or(false)) return;
  c.total_delta_fx = after.native_total->amount() * (*after.fx_rate - *before.fx_rate);
  c.total_delta_price = *c.total_delta - *c.total_delta_fx;
}

LineComparison compared(const QuoteSnapshotLine& before, const QuoteSnapshotLine& after) {
  LineComparison c;
  c.before = &before;
  c.after = &after;
  c.rank_move = static_cast<long>(before.rank) - static_cast<long>(after.rank);
  const Delta price = delta_of(before.unit_price, after.unit_price);
  const Delta total = delta_of(before.total, after.total);
  c.price_delta = price.delta;
  c.price_percent = price.percent;
  c.total_delta = total.delta;
  c.total_percent = total.percent;
  c.kind = kind_of(before, after);
  split_total_delta(before, after, c);
  return c;
}

}  // namespace

QuoteSnapshot snapshot_of(const QuoteResult& quote) {
  QuoteSnapshot s;
  s.currency = quote.currency;
  s.at = quote.at;
  for (const auto& l : quote.lines) {
    QuoteSnapshotLine line{l.provider,
                           l.region,
                           l.instance_type,
                           l.mode ? std::string(to_string(*l.mode)) : std::string(),
                           l.rank,
                           l.priced ? l.unit_price : std::nullopt,
                           l.priced ? l.total : std::nullopt,
                           std::nullopt,
                           std::nullopt};
    if (l.priced && l.compute) {
      std::optional<Money> native = l.compute;
      for (const LinePart* part : {&l.storage, &l.network}) {
        if (!part->native || !native) continue;
        if (part->native->currency() != native->currency())
          native.reset();
        else
          native = *native + *part->native;
      }
      line.native_total = native;
      if (native) line.fx_rate = l.fx ? l.fx->rate : Decimal(1);
    }
    s.lines.push_back(std::move(line));
  }
  return s;
}

std::string_view to_string(LineChangeKind kind) noexcept {
  switch (kind) {
    case LineChangeKind::added:
      return "new";
    case LineChangeKind::removed:
      return "removed";
    case LineChangeKind::changed:
      return "changed";
    case LineChangeKind::price:
      return "price";
    case LineChangeKind::fx:
      return "fx";
    case LineChangeKind::moved:
      return "moved";
    case LineChangeKind::price_fx:
      return "price+fx";
    case LineChangeKind::same:
      break;
  }
  return "same";
}

std::size_t QuoteComparison::count(LineChangeKind kind) const {
  return static_cast<std::size_t>(std::count_if(
      lines.begin(), lines.end(), [&](const LineComparison& c) { return c.kind == kind; }));
}

QuoteComparison compare_quotes(const QuoteSnapshot& before, const QuoteSnapshot& after,
                               std::size_t top) {
  std::vector<bool> matched(before.lines.size(), false);
  QuoteComparison out;
  for (const auto& now : after.lines) {
    const QuoteSnapshotLine* was = nullptr;
    for (std::size_t i = 0; i < before.lines.size() && !was; ++i) {
      if (!matched[i] && before.lines[i].same_offer(now)) {
        matched[i] = true;
        was = &before.lines[i];
      }
    }
    if (was) {
      out.lines.push_back(compared(*was, now));
    } else if (top == 0 || now.rank <= top) {
      LineComparison c;
      c.kind = LineChangeKind::added;
      c.after = &now;
      out.lines.push_back(c);
    }
  }
  std::vector<const QuoteSnapshotLine*> gone;
  for (std::size_t i = 0; i < before.lines.size(); ++i) {
    if (!matched[i]) gone.push_back(&before.lines[i]);
  }
  std::stable_sort(gone.begin(), gone.end(),
                   [](const auto* a, const auto* b) { return a->rank < b->rank; });
  for (const auto* was : gone) {
    LineComparison c;
    c.kind = LineChangeKind::removed;
    c.before = was;
    out.lines.push_back(c);
  }
  return out;
}

}  // namespace gpubill
