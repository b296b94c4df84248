// The bill report (include/gpubill/report/report.hpp): the statement, cost per day, the balance
// over the month above the instances' timeline, and every charge line with its explanation.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <ostream>

#include "gpubill/report/report.hpp"
#include "report/report_charts.hpp"
#include "report/report_html.hpp"
#include "report/report_svg.hpp"

namespace gpubill {

namespace {

using report::escape;

constexpr double kWidth = 1160;

std::string signed_text(Decimal d) {
  return d.sign() > 0 ? "+" + d.to_string() : d.to_string();
}

// The month's local days: day k is [bounds[k], bounds[k + 1]).
std::vector<Instant> day_bounds(const MonthlyStatement& s, const Calendar& calendar) {
  std::vector<Instant> bounds = {s.period_start};
  while (bounds.back() < s.period_end) {
    bounds.push_back(std::min(calendar.midnight_after(bounds.back(), 1), s.period_end));
  }
  return bounds;
}

// The x of the month's charts: 1 + days since the month began (day 1 starts at 1).
Decimal day_x(const MonthlyStatement& s, Instant t) {
  const auto seconds = (t - s.period_start).count();
  return Decimal(1) + Decimal::divide(Decimal(seconds), 86400, 6, RoundingMode::half_even);
}

// Components in reading order; an unknown one goes last, in order of appearance.
std::size_t component_index(std::vector<std::string>& order, const std::string& component) {
  auto it = std::find(order.begin(), order.end(), component);
  if (it != order.end()) return static_cast<std::size_t>(it - order.begin());
  order.push_back(component);
  return order.size() - 1;
}

void statement_tables(std::ostream& out, const MonthlyStatement& s) {
  out << "<h3>By instance and component</h3>\n<table class=\"components\"><thead><tr>"
         "<th>instance</th><th>component</th><th>provider</th><th>instance type</th><th "
         "class=\"num\">settlements</th><th class=\"num\">exact</th><th "
         "class=\"num\">rounding</th><th class=\"num\">billed</th><th>currency</th></tr></thead>"
         "<tbody>\n";
  for (const auto& c : s.components) {
    const Totals& t = c.totals;
    out << "<tr>" << report::text_cell(c.instance) << report::text_cell(c.component)
        << report::text_cell(c.provider) << report::text_cell(c.instance_type)
        << report::number_cell(Decimal(t.settlements), std::to_string(t.settlements), "settlements")
        << report::number_cell(t.exact, t.exact.to_string(), "exact")
        << report::number_cell(t.rounding, signed_text(t.rounding), "rounding")
        << report::number_cell(t.billed, t.billed.to_string(), "billed")
        << report::text_cell(c.currency.to_string()) << "</tr>\n";
  }
  out << "</tbody></table>\n<h3>By kind</h3>\n<table class=\"kinds\"><thead><tr><th>kind</th>"
         "<th class=\"num\">settlements</th><th class=\"num\">billed</th><th>currency</th></tr>"
         "</thead><tbody>\n";
  for (const auto& k : s.kinds) {
    out << "<tr>" << report::text_cell(k.kind)
        << report::number_cell(Decimal(k.totals.settlements), std::to_string(k.totals.settlements))
        << report::number_cell(k.totals.billed, k.totals.billed.to_string())
        << report::text_cell(k.currency.to_string()) << "</tr>\n";
  }
  out << "</tbody></table>\n<h3>Balance</h3>\n<table class=\"balances\"><thead><tr>"
         "<th>currency</th><th class=\"num\">opening</th><th class=\"num\">top-ups</th><th "
         "class=\"num\">refunds</th><th class=\"num\">charges</th><th class=\"num\">other</th><th "
         "class=\"num\">closing</th><th>reconciles</th></tr></thead><tbody>\n";
  for (const auto& b : s.balances) {
    out << "<tr>" << report::text_cell(b.currency.to_string());
    for (const Decimal d : {b.opening, b.topups, b.refunds, b.charges, b.other, b.closing}) {
      out << report::number_cell(d, d.to_string());
    }
    out << report::text_cell(b.reconciles ? "yes" : "NO") << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

// The month's cost per day in one currency as the FOCUS export's EffectiveCost has it: what
// each line billed on the day, except that a purchase covering a period ahead (a prepaid
// order, renewal, upgrade, refund) counts its amortised share of each day (amortised_share)
// instead of its cash on the day it was paid; the rounding of such a purchase stays on its day;
// a commitment's rows count their amortised cost (ChargeLine::effective_amount).
std::vector<Decimal> amortised_per_day(const BillReportData& d, const Currency& currency,
                                       const std::vector<Instant>& days) {
  const std::size_t n = days.size() - 1;
  std::vector<Decimal> out(n);
  const auto day_of = [&](Instant t) {
    return static_cast<std::size_t>(std::upper_bound(days.begin(), days.end(), t) - days.begin()) -
           1;
  };
  for (const auto& line : d.lines) {
    if (line.currency != currency) continue;
    if (amortised_share(line, days.front(), days.back())) {
      if (const std::size_t k = day_of(line.period_start); k < n) out[k] += line.total_rounding();
      continue;
    }
    for (std::size_t k = day_of(line.period_start); k < n && days[k] < line.period_end; ++k) {
      auto part = slice_line(line, days[k], days[k + 1]);
      if (!part) continue;
      // A commitment's rows carry their amortised cost per settlement (effective_amount: the
      // upfront and fees spread over its hours; its purchase and fee rows 0), as FOCUS has it.
      out[k] += line.effective_amount ? *line.effective_amount * part->repeat : part->total_billed;
    }
  }
  for (const auto& purchase : d.purchases) {
    if (purchase.currency != currency) continue;
    for (std::size_t k = 0; k < n; ++k) {
      out[k] += amortised_share(purchase, days[k], days[k + 1]).value_or(Decimal{});
    }
  }
  return out;
}

// The amortised cost per day as a dashed line over the day bars, a dot per day holding its
// exact amount (data-amortised).
void draw_amortised(report::Svg& svg, const report::Scale& x, const report::Scale& y,
                    const std::vector<Decimal>& amortised, const Currency& currency) {
  std::vector<std::pair<double, double>> points;
  for (std::size_t k = 0; k < amortised.size(); ++k) {
    points.emplace_back(x.px(Decimal(static_cast<std::int64_t>(k + 1))), y.px(amortised[k]));
  }
  svg.polyline(points, "series-line " + report::colour_class(0) + " d1",
               "data-series=\"amortised\"");
  for (std::size_t k = 0; k < amortised.size(); ++k) {
    svg.circle(points[k].first, points[k].second, 3, "marker " + report::colour_class(0),
               "day " + std::to_string(k + 1) + " amortised: " + amortised[k].to_string() + " " +
                   currency.to_string(),
               "data-day=\"" + std::to_string(k + 1) + "\" data-amortised=\"" +
                   amortised[k].to_string() + "\"");
  }
}

// Cost per day in one currency, stacked: a segment per (component, instance) and day, and its
// legend. Up to 8 series each has its colour; more are coloured by component.
std::string daily_chart(const BillReportData& d, const Currency& currency,
                        const std::vector<Instant>& days) {
  std::vector<std::string> components = {"compute", "system_disk", "data_disk", "bandwidth"};
  const MonthlyStatement& s = d.statement;
  const std::size_t n = days.size() - 1;
  // (component index, instance) → billed per day.
  std::map<std::pair<std::size_t, std::string>, std::vector<Decimal>> cells;
  for (const auto& line : d.lines) {
    if (line.currency != currency) continue;
    auto& row = cells[{component_index(components, line.component), line.instance}];
    row.resize(n);
    auto k = static_cast<std::size_t>(
                 std::upper_bound(days.begin(), days.end(), line.period_start) - days.begin()) -
             1;
    for (; k < n && days[k] < line.period_end; ++k) {
      if (auto part = slice_line(line, days[k], days[k + 1])) row[k] += part->total_billed;
    }
  }
  std::vector<Decimal> totals(n);
  for (const auto& [key, row] : cells) {
    for (std::size_t k = 0; k < n; ++k) totals[k] += row[k];
  }
  const std::vector<Decimal> amortised = amortised_per_day(d, currency, days);
  Decimal top = totals.empty() ? Decimal(0) : *std::max_element(totals.begin(), totals.end());
  for (const Decimal a : amortised) top = std::max(top, a);
  const auto yticks = report::nice_ticks(Decimal(0), top, 8);
  const double height = 380;
  const report::PlotArea area = report::line_chart_area(kWidth, height);
  // Day k's bar is centred on k: the domain runs from half a day before day 1.
  const Decimal half = Decimal::parse("0.5");
  const report::Scale x(half, Decimal(static_cast<std::int64_t>(n)) + half, area.left,
                        area.right());
  const report::Scale y(Decimal(0), yticks.back(), area.bottom(), area.top);
  report::Svg svg(kWidth, height, "Cost per day, " + currency.to_string(), "chart daily-cost");
  std::vector<Decimal> xticks;
  for (std::size_t k = 1; k <= n; k += (n > 16 ? 2 : 1)) {
    xticks.push_back(Decimal(static_cast<std::int64_t>(k)));
  }
  report::x_axis(svg, x, xticks, area, "day of the month (" + s.time_zone + ")", false);
  report::y_axis(svg, y, yticks, area, "billed per day (" + currency.to_string() + ")");
  const double slot = area.width / static_cast<double>(n);
  const bool by_series = cells.size() <= 8;
  std::string legend = "<div class=\"legend\">";
  std::size_t series = 0;
  std::vector<bool> component_used(components.size());
  for (const auto& [key, row] : cells) {
    if (by_series)
      legend += report::legend_item(series++, key.second + " · " + components[key.first], false);
    component_used[key.first] = true;
  }
  for (std::size_t i = 0; i < components.size() && !by_series; ++i) {
    if (component_used[i]) legend += report::legend_item(i, components[i], false);
  }
  legend += "</div>\n";
  std::vector<Decimal> base(n);
  series = 0;
  for (const auto& [key, row] : cells) {
    const std::string cls = "series-area " + report::colour_class(by_series ? series++ : key.first);
    for (std::size_t k = 0; k < n; ++k) {
      if (row[k].is_zero()) continue;
      const double y0 = y.px(base[k]), y1 = y.px(base[k] + row[k]);
      base[k] += row[k];
      svg.rect(x.px(Decimal(static_cast<std::int64_t>(k + 1))) - slot * 0.38, y1, slot * 0.76,
               y0 - y1, cls,
               key.second + " " + components[key.first] + ", day " + std::to_string(k + 1) + ": " +
                   row[k].to_string() + " " + currency.to_string(),
               "data-day=\"" + std::to_string(k + 1) + "\" data-instance=\"" + escape(key.second) +
                   "\" data-component=\"" + escape(components[key.first]) + "\" data-billed=\"" +
                   row[k].to_string() + "\"");
    }
  }
  draw_amortised(svg, x, y, amortised, currency);
  legend += "<div class=\"legend\">" +
            report::legend_item(
                0, "amortised: prepaid orders and commitments spread per day (FOCUS EffectiveCost)",
                true) +
            "</div>\n";
  return legend + svg.finish();
}

// The balance as a step line: flat between steps, a jump at each hourly settlement and each
// other movement, as balance_by_settlement has them; every step's exact balance is in
// data-balance-points ("instant=balance", space-separated).
std::string balance_chart(const BillReportData& d, const BalanceSummary& b, std::int64_t days) {
  const MonthlyStatement& s = d.statement;
  report::LineSeries line{"balance " + b.currency.to_string(), {}, 0, 0, {}};
  std::string exact;
  std::optional<Decimal> balance;
  for (const auto& p : d.balance_points) {
    if (p.currency != b.currency) continue;
    const Decimal x = day_x(s, p.at);
    if (balance) line.points.push_back({x, *balance});
    balance = p.balance;
    line.points.push_back({x, *balance});
    exact += (exact.empty() ? "" : " ") + format_instant(p.at) + "=" + p.balance.to_string();
  }
  if (!balance) balance = b.opening;
  if (line.points.empty()) line.points.push_back({Decimal(1), *balance});
  line.points.push_back({Decimal(days + 1), *balance});
  line.attributes = "data-series=\"balance\" data-currency=\"" + b.currency.to_string() +
                    "\" data-balance-points=\"" + exact + "\"";
  report::LineChart chart;
  chart.label = "Balance after each settlement, " + b.currency.to_string();
  chart.height = 300;
  chart.x_title = "day of the month (" + s.time_zone + ")";
  chart.y_title = "balance (" + b.currency.to_string() + ")";
  chart.x_min = Decimal(1);
  chart.x_max = Decimal(days + 1);
  chart.series.push_back(std::move(line));
  return report::draw_line_chart(chart);
}

struct StateStyle {
  const char* state;
  const char* label;
  std::size_t colour;
};
constexpr StateStyle kStates[] = {{"running", "running", 2},
                                  {"stopped", "stopped", 4},
                                  {"arrears_stopped", "arrears stop", 5},
                                  {"recycle_bin", "recycle bin", 3},
                                  {"destroyed", "destroyed", 6}};

const StateStyle& style_of(const std::string& state) {
  for (const auto& st : kStates) {
    if (state == st.state) return st;
  }
  return kStates[1];
}

// One row per instance, a band per state it was in during the month, on the x axis of the
// balance chart above it.
std::string instance_timeline(const BillReportData& d, std::int64_t days) {
  const MonthlyStatement& s = d.statement;
  std::map<std::string, std::vector<const InstanceStateRow*>> by_instance;
  for (const auto& r : d.states) by_instance[r.instance].push_back(&r);
  constexpr double kRow = 22;
  const report::PlotArea wide = report::line_chart_area(kWidth, 300);
  const double height = 16 + kRow * static_cast<double>(by_instance.size()) + 44;
  const report::PlotArea area{wide.left, 16, wide.width, height - 16 - 44};
  const report::Scale x(Decimal(1), Decimal(days + 1), area.left, area.right());
  report::Svg svg(kWidth, height, "Instance states over the month", "chart timeline");
  // The balance chart's ticks, above it.
  const auto ticks = report::ticks_within(Decimal(1), Decimal(days + 1), 12);
  report::x_axis(svg, x, ticks, area, "day of the month (" + s.time_zone + ")");
  double y = area.top;
  for (const auto& [instance, rows] : by_instance) {
    svg.text(area.right() + 8, y + 15, instance, "bar-label");
    for (std::size_t i = 0, next = 0; i < rows.size(); i = next) {
      // A band lasts until the state changes (rows for arrears warnings keep "running").
      for (next = i + 1; next < rows.size() && rows[next]->state == rows[i]->state;) ++next;
      const Instant from = std::max(rows[i]->at, s.period_start);
      const Instant to = next < rows.size() ? std::min(rows[next]->at, s.period_end) : s.period_end;
      if (to <= from || rows[i]->state == "destroyed") continue;
      const StateStyle& st = style_of(rows[i]->state);
      const double x0 = x.px(day_x(s, from)), x1 = x.px(day_x(s, to));
      svg.rect(x0, y + 3, x1 - x0, kRow - 6, "band series-area " + report::colour_class(st.colour),
               instance + ": " + st.label + " from " + format_instant(from) + " to " +
                   format_instant(to) + " (" + rows[i]->reason + ")",
               "data-state=\"" + std::string(st.state) + "\"");
      if (x1 - x0 > 70) svg.text(x0 + 4, y + 15, st.label, "band-label");
    }
    y += kRow;
  }
  return svg.finish();
}

void lines_table(std::ostream& out, const BillReportData& d, const Calendar& calendar) {
  out << "<table class=\"charge-lines\"><thead><tr><th class=\"num\">charge</th><th>instance</th>"
         "<th>component</th><th>kind</th><th>mode</th><th>start</th><th>end</th><th "
         "class=\"num\">settlements</th><th class=\"num\">unit price</th><th "
         "class=\"num\">billed</th><th class=\"num\">rounding</th><th>currency</th></tr></thead>"
         "<tbody>\n";
  for (const auto& c : d.lines) {
    const std::string id = std::to_string(c.id);
    out << "<tr data-charge=\"" << id << "\"><td class=\"num\"><a href=\"#charge-" << id << "\">"
        << id << (c.repeat != c.run_length ? "#" + std::to_string(c.run_index) : "") << "</a></td>"
        << report::text_cell(c.instance) << report::text_cell(c.component)
        << report::text_cell(c.kind) << report::text_cell(c.mode)
        << report::text_cell(calendar.format_local(c.period_start))
        << report::text_cell(calendar.format_local(c.period_end))
        << report::number_cell(Decimal(c.repeat), std::to_string(c.repeat))
        << report::text_cell(c.unit_price.to_string() + "/" + c.price_unit)
        << report::number_cell(c.total_billed, c.total_billed.to_string(), "total_billed")
        << report::number_cell(c.total_rounding(), signed_text(c.total_rounding()))
        << report::text_cell(c.currency.to_string()) << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

void explanation(std::ostream& out, const ChargeExplanation& x) {
  const ChargeLine& c = x.line;
  out << "<section class=\"explain\" id=\"charge-" << c.id << "\"><h3>Charge " << c.id << ": "
      << escape(c.instance) << " " << escape(c.component) << " " << escape(c.kind) << ", "
      << escape(c.total_billed.to_string()) << " " << c.currency.to_string() << "</h3>\n<p>"
      << escape(std::string(to_string(x.derivation)))
      << (x.consistent() ? ", consistent" : ", <strong>NOT consistent</strong>");
  if (x.price) {
    out << ". Price row " << x.price->table << " " << x.price->id << ": "
        << escape(x.price->amount.to_string() + " " + x.price->currency.to_string() + "/" +
                  x.price->unit)
        << ", as of " << escape(x.price->as_of) << ", " << escape(x.price->source);
  }
  if (x.policy) out << ". Policy " << x.policy->id << ", " << escape(x.policy->source);
  if (x.discount) {
    out << ". Discount " << x.discount->id << ": × " << escape(x.discount->factor.to_string());
  }
  out << ".</p>\n";
  if (!x.events.empty()) {
    out << "<p>Events:";
    for (const auto& e : x.events) {
      out << " " << e.seq << " " << escape(e.type) << " " << escape(format_instant(e.time)) << " ("
          << escape(e.source_file) << ":" << e.source_line << ");";
    }
    out << "</p>\n";
  }
  out << "<pre>";
  for (const auto& step : x.arithmetic) out << escape(step) << "\n";
  for (const auto& m : x.mismatches) out << "mismatch: " << escape(m) << "\n";
  for (const auto& m : x.superseded) out << "superseded: " << escape(m) << "\n";
  out << "</pre><a href=\"#lines\">back to the lines</a></section>\n";
}

}  // namespace

void write_bill_report(std::ostream& out, const BillReportData& d) {
  const MonthlyStatement& s = d.statement;
  const Calendar calendar(s.time_zone);
  char month[8];
  std::snprintf(month, sizeof month, "%04d-%02u", s.year, s.month);
  report::begin_page(out, "Bill: " + s.account + ", " + month);
  out << "<dl class=\"facts\"><dt>period</dt><dd>" << escape(calendar.format_local(s.period_start))
      << " … " << escape(calendar.format_local(s.period_end)) << " (" << escape(s.time_zone)
      << ")</dd>";
  for (const auto& t : s.totals) {
    out << "<dt>billed</dt><dd data-currency=\"" << t.currency.to_string() << "\" data-value=\""
        << t.totals.billed.to_string() << "\">" << escape(t.totals.billed.to_string()) << " "
        << t.currency.to_string() << " (" << t.totals.settlements << " settlements)</dd>";
  }
  out << "<dt>charge lines</dt><dd>" << d.lines.size() << "</dd></dl>\n<h2>Statement</h2>\n";
  statement_tables(out, s);

  const auto days = day_bounds(s, calendar);
  const auto n = static_cast<std::int64_t>(days.size() - 1);
  for (const auto& t : s.totals) {
    out << "<h2>Cost per day, " << t.currency.to_string() << "</h2>\n"
        << "<p class=\"lead\">Each day's bar stacks one segment per instance and component, "
           "as paid (a prepaid order on the day it was paid; hover for its amount); the dashed "
           "line is the same days amortised, each prepaid order spread over the hours it "
           "covers.</p>\n"
        << daily_chart(d, t.currency, days) << "\n";
  }
  out << "<h2>Balance and instance states</h2>\n";
  out << "<p class=\"lead\">The balance after each hourly settlement and each top-up, order "
         "or refund (the statement's balance table debits a run of hours at its end).</p>\n";
  for (const auto& b : s.balances) out << balance_chart(d, b, n) << "\n";
  out << "<div class=\"legend\">";
  for (const auto& st : kStates) {
    if (std::string(st.state) != "destroyed")
      out << report::legend_item(st.colour, st.label, false);
  }
  out << "</div>\n" << instance_timeline(d, n) << "\n";
  out << "<h2 id=\"lines\">Charge lines</h2>\n<p class=\"lead\">A run of identical hourly "
         "settlements is one line; each links to its explanation below.</p>\n";
  lines_table(out, d, calendar);
  out << "<h2>Explanations</h2>\n";
  for (const auto& x : d.explanations) explanation(out, x);
  report::end_page(out,
                   "gpubill report bill; the statement of gpubill bill for the same account "
                   "and month, each line as gpubill explain shows it.");
}

}  // namespace gpubill
