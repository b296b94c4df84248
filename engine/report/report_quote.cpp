// The quote report (include/gpubill/report/report.hpp): ranked bars by billing mode, monthly cost
// against hours of use with prepaid's break-even, and the table of lines.
#include <algorithm>
#include <array>
#include <map>
#include <ostream>

#include "gpubill/report/report.hpp"
#include "report/report_charts.hpp"
#include "report/report_html.hpp"
#include "report/report_svg.hpp"

namespace gpubill {

namespace {

using report::escape;
using report::fixed;

constexpr std::array<BillingMode, 5> kModes = {BillingMode::payg, BillingMode::prepaid,
                                               BillingMode::spot, BillingMode::reserved_1y,
                                               BillingMode::reserved_3y};

std::size_t mode_index(BillingMode m) {
  return static_cast<std::size_t>(std::find(kModes.begin(), kModes.end(), m) - kModes.begin());
}

std::string line_name(const QuoteLine& l) {
  return l.provider + " " + l.instance_type + (l.region == "*" ? "" : " · " + l.region);
}

// Horizontal bars, one per priced line, in groups by billing mode, each group cheapest first
// and cut to its best `per_mode` lines.
std::string ranked_bars(const QuoteResult& q, std::size_t per_mode) {
  std::vector<std::vector<const QuoteLine*>> groups(kModes.size());
  Decimal top;
  for (const auto& l : q.lines) {
    if (!l.priced || !l.mode || !l.total) continue;
    auto& group = groups[mode_index(*l.mode)];
    if (per_mode && group.size() >= per_mode) continue;
    group.push_back(&l);
    top = std::max(top, l.total->amount());
  }
  if (top.is_zero()) return "<p>No priced line to draw.</p>";
  constexpr double kRow = 22, kHead = 28, kLabel = 400, kWidth = 1160;
  double height = 24 + 48;
  for (const auto& g : groups) height += g.empty() ? 0 : kHead + kRow * g.size();
  const auto ticks = report::nice_ticks(Decimal(0), top, 8);
  const report::PlotArea area{kLabel, 24, kWidth - kLabel - 110, height - 24 - 48};
  const report::Scale x(Decimal(0), ticks.back(), area.left, area.right());
  const std::string cur = q.currency.to_string();
  report::Svg svg(kWidth, height, "Offers ranked by total cost, by billing mode",
                  "chart ranked-bars");
  report::x_axis(svg, x, ticks, area, "total cost of the workload (" + cur + ")");
  double y = area.top;
  for (std::size_t m = 0; m < groups.size(); ++m) {
    if (groups[m].empty()) continue;
    const std::string mode(to_string(kModes[m]));
    svg.text(8, y + 18, mode + " (" + std::to_string(groups[m].size()) + ")", "group-title");
    y += kHead;
    for (const QuoteLine* l : groups[m]) {
      const Decimal total = l->total->amount();
      const std::string shown = fixed(total, 2);
      svg.text(area.left - 8, y + 15, "#" + std::to_string(l->rank) + "  " + line_name(*l),
               "bar-label", "end");
      svg.rect(area.left, y + 3, x.px(total) - area.left, kRow - 6,
               "bar series-area " + report::colour_class(m),
               "#" + std::to_string(l->rank) + " " + l->id + ": " + shown + " " + cur,
               "data-rank=\"" + std::to_string(l->rank) + "\" data-mode=\"" + mode +
                   "\" data-total=\"" + total.to_string() + "\"");
      svg.text(x.px(total) + 6, y + 15, shown, "value-label");
      y += kRow;
    }
  }
  return svg.finish();
}

// For each provider, its best (first-ranked) prepaid line with a break-even: the flat monthly
// cost of prepaying and the pay-as-you-go cost of the same offer for h hours a month.
std::string break_even_chart(const QuoteResult& q, std::size_t& shown) {
  std::map<std::string, const QuoteLine*> best;
  for (const auto& l : q.lines) {
    if (l.priced && l.break_even_hours_per_month && !best.count(l.provider)) best[l.provider] = &l;
  }
  shown = best.size();
  if (best.empty()) return {};
  report::LineChart chart;
  chart.label = "Monthly cost against hours of use per month, prepaid against pay-as-you-go";
  const std::string cur = q.currency.to_string();
  chart.x_title = "hours of use per month (h)";
  chart.y_title = "cost per month (" + cur + ")";
  chart.x_min = Decimal(0);
  chart.x_max = Decimal(720);
  std::vector<const QuoteLine*> lines;
  for (const auto& [provider, l] : best) lines.push_back(l);
  std::sort(lines.begin(), lines.end(),
            [](const QuoteLine* a, const QuoteLine* b) { return a->rank < b->rank; });
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const QuoteLine& l = *lines[i];
    const Decimal monthly = l.break_even_monthly->amount();
    const Decimal hourly = l.break_even_hourly->amount();
    const std::string offer = l.provider + " " + l.instance_type;
    chart.series.push_back({offer + " prepaid",
                            {{Decimal(0), monthly}, {Decimal(720), monthly}},
                            i,
                            0,
                            "data-offer=\"" + escape(l.offer_id) +
                                "\" data-mode=\"prepaid\" data-per-month=\"" + monthly.to_string() +
                                "\" data-currency=\"" + cur + "\""});
    chart.series.push_back({offer + " payg",
                            {{Decimal(0), Decimal(0)}, {Decimal(720), hourly * 720}},
                            i,
                            1,
                            "data-offer=\"" + escape(l.offer_id) +
                                "\" data-mode=\"payg\" data-per-hour=\"" + hourly.to_string() +
                                "\" data-currency=\"" + cur + "\""});
    const Decimal h = *l.break_even_hours_per_month;
    if (h <= Decimal(720)) {
      chart.marks.push_back({h, monthly, h.to_string() + " h", i, true,
                             "data-break-even-hours=\"" + h.to_string() + "\""});
    }
  }
  return report::draw_line_chart(chart);
}

void lines_table(std::ostream& out, const QuoteResult& q) {
  const std::string cur = q.currency.to_string();
  out << "<table class=\"lines\"><thead><tr><th class=\"num\">rank</th><th>provider</th>"
         "<th>region</th><th>instance type</th><th>GPUs</th><th>mode</th><th class=\"num\">total "
      << cur << "</th><th class=\"num\">per GPU-hour</th><th class=\"num\">break-even h/month</th>"
      << "<th>as of</th><th>source</th><th>notes</th></tr></thead><tbody>\n";
  for (const auto& l : q.lines) {
    out << "<tr id=\"line-" << l.rank << "\" data-id=\"" << escape(l.id) << "\">"
        << report::number_cell(Decimal(static_cast<std::int64_t>(l.rank)), std::to_string(l.rank),
                               "rank")
        << report::text_cell(l.provider) << report::text_cell(l.region)
        << report::text_cell(l.instance_type)
        << report::text_cell(l.gpu_count.to_string() + "×" + (l.gpu ? l.gpu->id : "?"))
        << report::text_cell(l.mode ? std::string(to_string(*l.mode)) : "-");
    if (l.total) {
      out << report::number_cell(l.total->amount(), fixed(l.total->amount(), 2), "total_exact");
    } else {
      out << "<td class=\"num\">unknown</td>";
    }
    out << (l.per_gpu_hour ? report::number_cell(l.per_gpu_hour->amount(),
                                                 fixed(l.per_gpu_hour->amount(), 4), "per_gpu_hour")
                           : "<td></td>")
        << (l.break_even_hours_per_month
                ? report::number_cell(*l.break_even_hours_per_month,
                                      l.break_even_hours_per_month->to_string(1),
                                      "break_even_h_per_month")
                : "<td></td>")
        << report::text_cell(l.as_of)
        << report::text_cell(l.price_row ? std::string(to_string(l.source_tag)) : "");
    std::string notes = l.unknown_reason;
    if (l.priced) {
      notes.clear();
      for (const auto& n : l.notes) notes += (notes.empty() ? "" : "; ") + n;
    }
    out << report::text_cell(notes) << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

}  // namespace

void write_quote_report(std::ostream& out, const QuoteResult& q, std::string_view workload,
                        std::size_t bars_per_mode) {
  const std::string cur = q.currency.to_string();
  report::begin_page(out, "Quote: " + std::string(workload));
  out << "<p class=\"lead\">Prices of " << escape(format_instant(q.at)) << ", totals in " << cur
      << ". " << q.lines_priced << " priced lines and " << q.lines_unknown
      << " with unknown prices, from " << q.offers_fitting << " fitting offers of "
      << q.offers_total << "; " << q.lines.size()
      << " shown. An unknown price is never counted as 0.</p>\n";
  if (!q.assumptions.empty()) {
    out << "<ul class=\"notes\">";
    for (const auto& a : q.assumptions) out << "<li>" << escape(a) << "</li>";
    out << "</ul>\n";
  }
  out << "<h2>Offers ranked by total</h2>\n";
  if (bars_per_mode) {
    out << "<p class=\"lead\">The best " << bars_per_mode
        << " lines of each billing mode; the table below has every line.</p>\n";
  }
  out << "<div class=\"legend\">";
  for (std::size_t m = 0; m < kModes.size(); ++m) {
    const auto in_mode = [&](const QuoteLine& l) { return l.priced && l.mode == kModes[m]; };
    if (std::any_of(q.lines.begin(), q.lines.end(), in_mode)) {
      out << report::legend_item(m, std::string(to_string(kModes[m])), false);
    }
  }
  out << "</div>\n" << ranked_bars(q, bars_per_mode) << "\n";
  std::size_t providers = 0;
  const std::string break_even = break_even_chart(q, providers);
  out << "<h2>Prepaid against pay-as-you-go</h2>\n";
  if (break_even.empty()) {
    out << "<p>No line shown has both a prepaid and a pay-as-you-go price.</p>\n";
  } else {
    out << "<p class=\"lead\">The best prepaid offer of each of " << providers
        << " providers: its monthly cost (solid, flat) against pay-as-you-go on the same offer "
           "(dashed, one settled hour × hours per month). Above the marked hours prepaying is "
           "cheaper.</p>\n"
        << break_even << "\n";
  }
  out << "<h2>Every line</h2>\n<p class=\"lead\">as of: date of the oldest price row used; "
         "source: the least trusted source tag of those rows (P provider document, S secondary, "
         "U uncertain, ? untagged, TEST test-fixture data).</p>\n";
  lines_table(out, q);
  report::end_page(out,
                   "gpubill report quote; the same lines as gpubill quote with the same flags.");
}

}  // namespace gpubill
