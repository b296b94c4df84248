// Charts the reports share, drawn with report_svg.hpp: a line chart with marked points.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpubill/base/decimal.hpp"
#include "report/report_svg.hpp"

namespace gpubill::report {

struct LinePoint {
  Decimal x, y;
};

struct LineSeries {
  std::string label;  // written at the line's right end and in its tooltip
  std::vector<LinePoint> points;
  std::size_t colour = 0;  // Okabe–Ito colour index
  int dash = 0;            // 0 solid, 1 dashed, 2 dotted, 3 dash-dot
  std::string attributes;  // extra attributes of the <polyline> (data-*), trusted markup
};

// A point worth reading off the chart (a break-even), drawn as a dot with a label and, when
// `rule`, a dashed vertical line through it down to the x axis.
struct ChartMark {
  Decimal x, y;
  std::string label;
  std::size_t colour = 0;
  bool rule = true;
  std::string attributes;  // extra attributes of the <circle>, trusted markup
};

struct LineChart {
  std::string label;  // accessible name
  double width = 1160, height = 440;
  std::string x_title, y_title;  // with units: "month", "cumulative cost (USD)"
  std::vector<LineSeries> series;
  std::vector<ChartMark> marks;
  // The x domain; unset = the points' range. The y domain is 0 … the largest y (or the
  // smallest y … 0 when negative values occur).
  std::optional<Decimal> x_min, x_max;
};

// The chart as an <svg class="chart">.
std::string draw_line_chart(const LineChart& chart);

// The plot area draw_line_chart uses in a chart of that size, so that a chart drawn under it
// (the bill's instance timeline) can share its x axis.
PlotArea line_chart_area(double width, double height);

}  // namespace gpubill::report
