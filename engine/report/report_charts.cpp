// The line chart of the reports (report_charts.hpp).
#include "report/report_charts.hpp"

#include <algorithm>

#include "report/report_svg.hpp"

namespace gpubill::report {

namespace {

struct Domain {
  Decimal lo, hi;
  void add(Decimal v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
};

struct EndLabel {
  double y;
  std::string text;
  std::size_t colour;
};

// Moves labels apart vertically so that each is at least `gap` px below the one above.
void spread(std::vector<EndLabel>& labels, double gap, double top, double bottom) {
  std::stable_sort(labels.begin(), labels.end(),
                   [](const EndLabel& a, const EndLabel& b) { return a.y < b.y; });
  for (std::size_t i = 1; i < labels.size(); ++i) {
    labels[i].y = std::max(labels[i].y, labels[i - 1].y + gap);
  }
  // Pushed below the plot: shift the stack back up.
  const double overflow = labels.empty() ? 0 : labels.back().y - bottom;
  if (overflow > 0) {
    for (auto& l : labels) l.y = std::max(top, l.y - overflow);
  }
}

}  // namespace

PlotArea line_chart_area(double width, double height) {
  return {86, 16, width - 86 - 260, height - 16 - 52};
}

std::string draw_line_chart(const LineChart& chart) {
  Domain xd{Decimal(0), Decimal(0)}, yd{Decimal(0), Decimal(0)};
  bool first = true;
  for (const auto& s : chart.series) {
    for (const auto& p : s.points) {
      if (first) xd = {p.x, p.x};
      first = false;
      xd.add(p.x);
      yd.add(p.y);
    }
  }
  for (const auto& m : chart.marks) yd.add(m.y);
  if (chart.x_min) xd.lo = *chart.x_min;
  if (chart.x_max) xd.hi = *chart.x_max;
  const auto xticks = ticks_within(xd.lo, xd.hi, 12);
  const auto yticks = nice_ticks(yd.lo, yd.hi, 8);

  // Room on the right for the lines' end labels.
  const PlotArea area = line_chart_area(chart.width, chart.height);
  const Scale x(xd.lo, xd.hi, area.left, area.right());
  const Scale y(yticks.front(), yticks.back(), area.bottom(), area.top);
  Svg svg(chart.width, chart.height, chart.label, "chart line-chart");
  x_axis(svg, x, xticks, area, chart.x_title);
  y_axis(svg, y, yticks, area, chart.y_title);

  std::vector<EndLabel> end_labels;
  for (const auto& s : chart.series) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& p : s.points) pts.emplace_back(x.px(p.x), y.px(p.y));
    const std::string cls = "series-line " + colour_class(s.colour) + " d" + std::to_string(s.dash);
    svg.polyline(pts, cls, s.attributes);
    if (!pts.empty()) end_labels.push_back({pts.back().second + 4, s.label, s.colour});
  }
  spread(end_labels, 14, area.top, area.bottom() + 10);
  for (const auto& l : end_labels) {
    svg.rect(area.right() + 6, l.y - 5, 12, 3, "series-area " + colour_class(l.colour));
    svg.text(area.right() + 22, l.y, l.text, "bar-label");
  }

  for (const auto& m : chart.marks) {
    const double px = x.px(m.x), py = y.px(m.y);
    if (m.rule) svg.line(px, py, px, area.bottom(), "mark-line");
    svg.circle(px, py, 5.5, "marker " + colour_class(m.colour), m.label, m.attributes);
    // Labels near the right edge go to the left of the point.
    const bool left = px > area.left + area.width * 0.8;
    svg.text(left ? px - 9 : px + 9, py - 8, m.label, "mark-label", left ? "end" : "start");
  }
  return svg.finish();
}

}  // namespace gpubill::report
