// The charts of the HTML reports: linear scales from exact values to pixels, round tick steps,
// and an SVG writer for axes, bars, lines and labels. Inline SVG only: no scripts, no fonts,
// nothing from the network (include/gpubill/report/report.hpp).
//
// Money and quantities stay Decimal up to the drawing: Scale::px is the one place a value
// becomes a double, and only as a pixel coordinate; no amount printed in a report comes from a
// double.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpubill/base/decimal.hpp"

namespace gpubill::report {

// Maps [lo, hi] linearly onto [px_lo, px_hi] (px_hi < px_lo for a y axis drawn upwards). An
// empty domain (lo == hi) maps everything to px_lo.
class Scale {
 public:
  Scale(Decimal lo, Decimal hi, double px_lo, double px_hi);
  double px(Decimal value) const;
  Decimal lo() const noexcept { return lo_; }
  Decimal hi() const noexcept { return hi_; }

 private:
  Decimal lo_, hi_;
  double px_lo_, px_hi_;
};

// Ticks at multiples of a round step (1, 2 or 5 × 10^k) from at or below `lo` to at or above
// `hi`, about `target` intervals; lo == hi gives 0 … 1 for zero, else a unit range around it.
std::vector<Decimal> nice_ticks(Decimal lo, Decimal hi, int target = 5);

// The ticks of nice_ticks that lie within [lo, hi]: for an axis whose domain is fixed.
std::vector<Decimal> ticks_within(Decimal lo, Decimal hi, int target = 5);

// A tick label: the value with thin-space thousands separators, "12 500", "0.25".
std::string tick_text(Decimal value);

// The plot area of a chart, in pixels, inside the SVG's margins.
struct PlotArea {
  double left = 0, top = 0, width = 0, height = 0;
  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

// Writes one <svg> element. Text and attribute values are escaped here; `cls` and `extra`
// attributes are trusted markup from the report code (never user text).
class Svg {
 public:
  // `label` is the accessible name (role="img", aria-label and <title>).
  Svg(double width, double height, std::string_view label, std::string_view cls);

  void rect(double x, double y, double w, double h, std::string_view cls,
            std::string_view tooltip = {}, std::string_view extra = {});
  void line(double x1, double y1, double x2, double y2, std::string_view cls);
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view cls,
                std::string_view extra = {});
  void circle(double cx, double cy, double r, std::string_view cls, std::string_view tooltip = {},
              std::string_view extra = {});
  // anchor: start, middle or end.
  void text(double x, double y, std::string_view text, std::string_view cls,
            std::string_view anchor = "start");
  // A text rotated -90° about (x, y): a y axis title.
  void vertical_text(double x, double y, std::string_view text, std::string_view cls);
  void open_group(std::string_view cls, std::string_view extra = {});
  void close_group();
  // The finished element.
  std::string finish();

 private:
  std::string out_;
};

// An x axis along the bottom of `area`: ticks, labels, a title ("hours of use per month (h)"),
// and vertical grid lines when `grid`.
void x_axis(Svg& svg, const Scale& x, const std::vector<Decimal>& ticks, const PlotArea& area,
            std::string_view title, bool grid = true);
// A y axis along the left of `area`, the same way, the title written upwards.
void y_axis(Svg& svg, const Scale& y, const std::vector<Decimal>& ticks, const PlotArea& area,
            std::string_view title, bool grid = true);

// Series styles readable without colour: series i has Okabe–Ito colour i % 8 (class "c<i>":
// stroke for lines, a fill with its own texture pattern for areas) and dash pattern i % 4.
std::string series_class(std::size_t i);
// Only the colour of series i: "c<i % 8>".
std::string colour_class(std::size_t i);
// The <defs> of the fill patterns ("pat0" … "pat7"), written once per page in a hidden SVG.
std::string pattern_defs();
// A legend entry: a swatch of series i's style and the escaped label, as HTML.
std::string legend_item(std::size_t i, std::string_view label, bool line);

// A coordinate with one decimal, as SVG attributes take it.
std::string coord(double v);

}  // namespace gpubill::report
