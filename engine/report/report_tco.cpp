// The lease-vs-buy report (include/gpubill/report/report.hpp): cumulative cost by month and horizon
// total against utilisation, buying against the compared rental modes.
#include <ostream>

#include "gpubill/report/report.hpp"
#include "report/report_charts.hpp"
#include "report/report_html.hpp"

namespace gpubill {

namespace {

using report::escape;
using report::fixed;

// Chart colours: buying keeps the first, each rental mode its own.
constexpr std::size_t kBuyColour = 0, kPaygColour = 1, kPrepaidColour = 2;

std::string mode_name(BillingMode m) {
  if (m == BillingMode::reserved_1y) return "1-year commitment";
  if (m == BillingMode::reserved_3y) return "3-year commitment";
  return m == BillingMode::payg ? "pay-as-you-go" : "prepaid";
}

std::size_t mode_colour(BillingMode m) {
  return m == BillingMode::payg ? kPaygColour : kPrepaidColour;
}

std::string option_name(const RentOption& o) {
  return mode_name(o.mode) + " " + o.provider + " " + o.instance_type +
         (o.instances > 1 ? " × " + std::to_string(o.instances) : "");
}

std::string money_text(const Money& m) {
  return fixed(m.amount(), 2, RoundingMode::half_even) + " " + m.currency().to_string();
}

std::vector<report::LinePoint> monthly_points(const std::vector<Money>& cumulative) {
  std::vector<report::LinePoint> pts;
  for (std::size_t m = 0; m < cumulative.size(); ++m) {
    pts.push_back({Decimal(static_cast<std::int64_t>(m)), cumulative[m].amount()});
  }
  return pts;
}

// A rental mode's line: its mode's colour, dashed (payg) or dotted (prepaid).
report::LineSeries rent_series(const RentOption& o, std::vector<report::LinePoint> points) {
  const std::string mode(to_string(o.mode));
  return {"rent " + mode, std::move(points), mode_colour(o.mode),
          o.mode == BillingMode::payg ? 1 : 2, "data-series=\"rent_" + mode + "\""};
}

std::string cumulative_chart(const LeaseVsBuyResult& r) {
  const std::string cur = r.inputs.currency.to_string();
  report::LineChart chart;
  chart.label = "Cumulative cost by month, buying against renting";
  chart.x_title = "month (0 = purchase day)";
  chart.y_title = "cumulative cost (" + cur + ")";
  std::vector<Money> buy;
  for (const auto& m : r.buy.months) buy.push_back(m.cumulative);
  chart.series.push_back({"buy", monthly_points(buy), kBuyColour, 0, "data-series=\"buy\""});
  for (const auto& c : r.comparisons) {
    const RentOption& o = r.options[c.option];
    const std::string mode(to_string(o.mode));
    chart.series.push_back(rent_series(o, monthly_points(o.cumulative)));
    if (c.break_even_month) {
      const auto m = static_cast<std::size_t>(*c.break_even_month);
      chart.marks.push_back({Decimal(*c.break_even_month), buy[m].amount(),
                             "buying beats " + mode + " from month " + std::to_string(m),
                             mode_colour(o.mode), true,
                             "data-break-even-month=\"" + std::to_string(m) + "\""});
    }
  }
  return report::draw_line_chart(chart);
}

std::string utilisation_chart(const LeaseVsBuyResult& r) {
  const std::string cur = r.inputs.currency.to_string();
  report::LineChart chart;
  chart.label = "Total cost over the horizon against utilisation";
  chart.x_title = "utilisation (% of the month's 730 h the GPUs are busy)";
  chart.y_title = "total over " + std::to_string(r.inputs.horizon_months) + " months (" + cur + ")";
  chart.x_min = Decimal(0);
  chart.x_max = Decimal(100);
  const auto line = [](const LinearCost& c) {
    return std::vector<report::LinePoint>{{Decimal(0), c.at(Decimal(0)).amount()},
                                          {Decimal(100), c.at(Decimal(1)).amount()}};
  };
  chart.series.push_back({"buy", line(r.buy.total_line), kBuyColour, 0, "data-series=\"buy\""});
  for (const auto& c : r.comparisons) {
    const RentOption& o = r.options[c.option];
    const std::string mode(to_string(o.mode));
    chart.series.push_back(rent_series(o, line(o.total_line)));
    const auto& b = c.break_even_utilisation;
    if (b.value && *b.value >= Decimal(0) && *b.value <= Decimal(1)) {
      const Decimal percent = *b.value * Decimal(100);
      chart.marks.push_back({percent, r.buy.total_line.at(*b.value).amount(),
                             mode + " break-even " + fixed(percent, 1) + " %", mode_colour(o.mode),
                             true, "data-break-even-utilisation=\"" + b.value->to_string() + "\""});
    }
  }
  const Decimal u = r.inputs.utilisation;
  chart.marks.push_back({u * Decimal(100), r.buy.total_line.at(u).amount(),
                         "configured " + fixed(u * Decimal(100), 1) + " %", kBuyColour, true,
                         "data-configured-utilisation=\"" + u.to_string() + "\""});
  return report::draw_line_chart(chart);
}

void summary(std::ostream& out, const LeaseVsBuyResult& r) {
  const auto& in = r.inputs;
  out << "<dl class=\"facts\"><dt>bought</dt><dd>" << in.boards << " × " << escape(in.gpu.id)
      << " (" << in.gpu_count << " rentable GPUs)</dd><dt>hardware price</dt><dd>"
      << escape(money_text(in.hardware_price)) << " — " << escape(in.hardware_price_basis)
      << (in.price_source.empty() ? "" : "; " + escape(in.price_source))
      << "</dd><dt>utilisation</dt><dd>" << fixed(in.utilisation * Decimal(100), 2)
      << " %</dd><dt>horizon</dt><dd>" << in.horizon_months
      << " months</dd><dt>buying, total</dt><dd>" << escape(money_text(r.buy.total))
      << " (present value " << escape(money_text(r.buy.total_pv)) << ")</dd>";
  for (const auto& c : r.comparisons) {
    const RentOption& o = r.options[c.option];
    out << "<dt>" << mode_name(o.mode) << "</dt><dd>" << escape(option_name(o)) << ": "
        << escape(money_text(o.total)) << "; "
        << (c.saving.amount().sign() > 0 ? "buying saves " + money_text(c.saving)
                                         : "renting saves " + money_text(-c.saving))
        << "; break-even "
        << (c.break_even_month ? "month " + std::to_string(*c.break_even_month)
                               : "none within the horizon")
        << "; " << escape(c.break_even_utilisation.describe()) << "</dd>";
  }
  out << "<dt>prices of</dt><dd>" << escape(format_day(in.date)) << ", in "
      << in.currency.to_string() << "</dd></dl>\n";
  if (!r.notes.empty()) {
    out << "<ul class=\"notes\">";
    for (const auto& n : r.notes) out << "<li>" << escape(n) << "</li>";
    out << "</ul>\n";
  }
}

void months_table(std::ostream& out, const LeaseVsBuyResult& r) {
  const RentOption* payg = r.best_payg ? &r.options[*r.best_payg] : nullptr;
  const RentOption* prepaid = r.best_prepaid ? &r.options[*r.best_prepaid] : nullptr;
  const auto cell = [](const Money& m, const char* col) {
    return report::number_cell(m.amount(), fixed(m.amount(), 2, RoundingMode::half_even), col);
  };
  out << "<table class=\"months\"><thead><tr><th class=\"num\">month</th><th class=\"num\">buy"
         "</th><th class=\"num\">rent payg</th><th class=\"num\">rent prepaid</th><th "
         "class=\"num\">buy PV</th><th class=\"num\">rent payg PV</th><th class=\"num\">rent "
         "prepaid PV</th></tr></thead><tbody>\n";
  for (const auto& m : r.buy.months) {
    const auto i = static_cast<std::size_t>(m.month);
    out << "<tr data-month=\"" << m.month << "\">"
        << report::number_cell(Decimal(m.month), std::to_string(m.month), "month")
        << cell(m.cumulative, "buy")
        << (payg ? cell(payg->cumulative[i], "rent_payg") : "<td></td>")
        << (prepaid ? cell(prepaid->cumulative[i], "rent_prepaid") : "<td></td>")
        << cell(m.cumulative_pv, "buy_pv")
        << (payg ? cell(payg->cumulative_pv[i], "rent_payg_pv") : "<td></td>")
        << (prepaid ? cell(prepaid->cumulative_pv[i], "rent_prepaid_pv") : "<td></td>")
        << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

void options_table(std::ostream& out, const LeaseVsBuyResult& r) {
  out << "<table class=\"options\"><thead><tr><th>mode</th><th>provider</th><th>region</th>"
         "<th>instance type</th><th class=\"num\">instances</th><th>plan</th><th "
         "class=\"num\">per month</th><th class=\"num\">per GPU-hour</th><th "
         "class=\"num\">total</th></tr></thead><tbody>\n";
  for (const auto& o : r.options) {
    out << "<tr>" << report::text_cell(to_string(o.mode)) << report::text_cell(o.provider)
        << report::text_cell(o.region.empty() ? "*" : o.region)
        << report::text_cell(o.instance_type)
        << report::number_cell(Decimal(o.instances), std::to_string(o.instances))
        << report::text_cell(o.plan)
        << report::number_cell(o.per_month.amount(), fixed(o.per_month.amount(), 2))
        << report::number_cell(o.price_per_gpu_hour.amount(),
                               fixed(o.price_per_gpu_hour.amount(), 4))
        << report::number_cell(o.total.amount(), fixed(o.total.amount(), 2)) << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

}  // namespace

void write_lease_vs_buy_report(std::ostream& out, const LeaseVsBuyResult& r) {
  const std::string cur = r.inputs.currency.to_string();
  report::begin_page(out,
                     "Lease or buy: " + std::to_string(r.inputs.boards) + " × " + r.inputs.gpu.id);
  summary(out, r);
  const auto legend = [&] {
    out << "<div class=\"legend\">" << report::legend_item(kBuyColour, "buy", true);
    for (const auto& c : r.comparisons) {
      const RentOption& o = r.options[c.option];
      // Series i of the legend is colour i with dash i: payg 1 (dashed), prepaid 2 (dotted).
      out << report::legend_item(mode_colour(o.mode), "rent " + option_name(o), true);
    }
    out << "</div>\n";
  };
  out << "<h2>Cumulative cost by month</h2>\n";
  legend();
  out << cumulative_chart(r) << "\n<h2>Total against utilisation</h2>\n"
      << "<p class=\"lead\">Power is the only cost of owning that grows with use; "
         "pay-as-you-go rent grows with every busy hour, prepaid rent does not.</p>\n";
  legend();
  out << utilisation_chart(r) << "\n<h2>Cumulative cost by month, in " << cur << "</h2>\n";
  months_table(out, r);
  out << "<h2>Rent options, in " << cur << "</h2>\n";
  options_table(out, r);
  report::end_page(out,
                   "gpubill report lease-vs-buy; the numbers of gpubill lease-vs-buy with "
                   "the same configuration (docs/lease-vs-buy.md).");
}

}  // namespace gpubill
