// Scales, ticks and the SVG writer of the reports' charts (report_svg.hpp).
#include "report/report_svg.hpp"

#include <array>
#include <cstdio>

#include "report/report_html.hpp"

namespace gpubill::report {

namespace {

// The Okabe–Ito palette, distinguishable with the common colour-vision deficiencies; yellow is
// late as it is faint on white.
constexpr std::array<const char*, 8> kColours = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                                 "#56B4E9", "#D55E00", "#000000", "#F0E442"};

// The one conversion of an exact value to a double: for a pixel coordinate only.
double to_pixel_space(Decimal v) {
  return static_cast<double>(v.units()) / static_cast<double>(Decimal::kOne);
}

Decimal pow10(int k) {
  Decimal d(1);
  for (int i = 0; i < k; ++i) d = d * 10;
  for (int i = 0; i > k; --i) d = Decimal::divide(d, 10, Decimal::kScale, RoundingMode::half_even);
  return d;
}

// Largest multiple of `step` at or below `v` (floor), and smallest at or above (ceiling).
Decimal floor_to(Decimal v, Decimal step) {
  const auto q = divide_rounded(v.units(), step.units(), RoundingMode::down);
  Decimal f = step * static_cast<std::int64_t>(q);
  if (f > v) f -= step;
  return f;
}
Decimal ceil_to(Decimal v, Decimal step) {
  Decimal f = floor_to(v, step);
  return f < v ? f + step : f;
}

}  // namespace

Scale::Scale(Decimal lo, Decimal hi, double px_lo, double px_hi)
    : lo_(lo), hi_(hi), px_lo_(px_lo), px_hi_(px_hi) {}

double Scale::px(Decimal value) const {
  if (hi_ == lo_) return px_lo_;
  const double share = to_pixel_space(value - lo_) / to_pixel_space(hi_ - lo_);
  return px_lo_ + share * (px_hi_ - px_lo_);
}

std::vector<Decimal> nice_ticks(Decimal lo, Decimal hi, int target) {
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) {
    // Nothing to span: 0 … 1 for zero (an empty chart keeps its axis at 0), else ±1 around it.
    if (!lo.is_zero()) lo = lo - Decimal(1);
    hi = hi + Decimal(1);
  }
  const Decimal span = hi - lo;
  // The smallest step 1, 2 or 5 × 10^k giving at most `target` intervals.
  Decimal step;
  for (int k = -Decimal::kScale + 2; k <= 30; ++k) {
    const Decimal base = pow10(k);
    for (int m : {1, 2, 5}) {
      const Decimal candidate = base * m;
      if (candidate.is_zero()) continue;
      if (Decimal::divide(span, candidate, 0, RoundingMode::up) <= Decimal(target)) {
        step = candidate;
        break;
      }
    }
    if (!step.is_zero()) break;
  }
  std::vector<Decimal> ticks;
  for (Decimal t = floor_to(lo, step); t <= ceil_to(hi, step); t += step) ticks.push_back(t);
  return ticks;
}

std::vector<Decimal> ticks_within(Decimal lo, Decimal hi, int target) {
  std::vector<Decimal> inside;
  for (const Decimal t : nice_ticks(lo, hi, target)) {
    if (t >= lo && t <= hi) inside.push_back(t);
  }
  return inside;
}

std::string tick_text(Decimal value) {
  std::string s = value.to_string();
  const bool negative = !s.empty() && s[0] == '-';
  const std::size_t start = negative ? 1 : 0;
  std::size_t point = s.find('.');
  if (point == std::string::npos) point = s.size();
  for (std::size_t i = point; i > start + 3; i -= 3) s.insert(i - 3, "\u2009");
  return s;
}

std::string coord(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  std::string s = buffer;
  if (s == "-0.0") s = "0.0";
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

Svg::Svg(double width, double height, std::string_view label, std::string_view cls) {
  out_ = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"" + std::string(cls) +
         "\" viewBox=\"0 0 " + coord(width) + " " + coord(height) + "\" width=\"" + coord(width) +
         "\" height=\"" + coord(height) + "\" role=\"img\" aria-label=\"" + escape(label) +
         "\"><title>" + escape(label) + "</title>";
}

void Svg::rect(double x, double y, double w, double h, std::string_view cls,
               std::string_view tooltip, std::string_view extra) {
  out_ += "<rect x=\"" + coord(x) + "\" y=\"" + coord(y) + "\" width=\"" + coord(w < 0 ? 0 : w) +
          "\" height=\"" + coord(h < 0 ? 0 : h) + "\" class=\"" + std::string(cls) + "\"";
  if (!extra.empty()) out_ += " " + std::string(extra);
  if (tooltip.empty()) {
    out_ += "/>";
  } else {
    out_ += "><title>" + escape(tooltip) + "</title></rect>";
  }
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view cls) {
  out_ += "<line x1=\"" + coord(x1) + "\" y1=\"" + coord(y1) + "\" x2=\"" + coord(x2) + "\" y2=\"" +
          coord(y2) + "\" class=\"" + std::string(cls) + "\"/>";
}

void Svg::polyline(const std::vector<std::pair<double, double>>& points, std::string_view cls,
                   std::string_view extra) {
  out_ += "<polyline class=\"" + std::string(cls) + "\" points=\"";
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i) out_ += ' ';
    out_ += coord(points[i].first) + "," + coord(points[i].second);
  }
  out_ += "\"";
  if (!extra.empty()) out_ += " " + std::string(extra);
  out_ += "/>";
}

void Svg::circle(double cx, double cy, double r, std::string_view cls, std::string_view tooltip,
                 std::string_view extra) {
  out_ += "<circle cx=\"" + coord(cx) + "\" cy=\"" + coord(cy) + "\" r=\"" + coord(r) +
          "\" class=\"" + std::string(cls) + "\"";
  if (!extra.empty()) out_ += " " + std::string(extra);
  if (tooltip.empty()) {
    out_ += "/>";
  } else {
    out_ += "><title>" + escape(tooltip) + "</title></circle>";
  }
}

void Svg::text(double x, double y, std::string_view text, std::string_view cls,
               std::string_view anchor) {
  out_ += "<text x=\"" + coord(x) + "\" y=\"" + coord(y) + "\" class=\"" + std::string(cls) +
          "\" text-anchor=\"" + std::string(anchor) + "\">" + escape(text) + "</text>";
}

void Svg::vertical_text(double x, double y, std::string_view text, std::string_view cls) {
  out_ += "<text transform=\"translate(" + coord(x) + "," + coord(y) + ") rotate(-90)\" class=\"" +
          std::string(cls) + "\" text-anchor=\"middle\">" + escape(text) + "</text>";
}

void Svg::open_group(std::string_view cls, std::string_view extra) {
  out_ += "<g class=\"" + std::string(cls) + "\"";
  if (!extra.empty()) out_ += " " + std::string(extra);
  out_ += ">";
}

void Svg::close_group() {
  out_ += "</g>";
}

std::string Svg::finish() {
  return std::move(out_) + "</svg>";
}

void x_axis(Svg& svg, const Scale& x, const std::vector<Decimal>& ticks, const PlotArea& area,
            std::string_view title, bool grid) {
  svg.open_group("axis x-axis");
  svg.line(area.left, area.bottom(), area.right(), area.bottom(), "domain");
  for (const Decimal t : ticks) {
    const double px = x.px(t);
    if (grid) svg.line(px, area.top, px, area.bottom(), "grid");
    svg.line(px, area.bottom(), px, area.bottom() + 5, "tick");
    svg.text(px, area.bottom() + 18, tick_text(t), "tick-label", "middle");
  }
  svg.text(area.left + area.width / 2, area.bottom() + 38, title, "axis-title", "middle");
  svg.close_group();
}

void y_axis(Svg& svg, const Scale& y, const std::vector<Decimal>& ticks, const PlotArea& area,
            std::string_view title, bool grid) {
  svg.open_group("axis y-axis");
  svg.line(area.left, area.top, area.left, area.bottom(), "domain");
  for (const Decimal t : ticks) {
    const double py = y.px(t);
    if (grid) svg.line(area.left, py, area.right(), py, "grid");
    svg.line(area.left - 5, py, area.left, py, "tick");
    svg.text(area.left - 8, py + 4, tick_text(t), "tick-label", "end");
  }
  svg.vertical_text(area.left - 62, area.top + area.height / 2, title, "axis-title");
  svg.close_group();
}

std::string colour_class(std::size_t i) {
  return "c" + std::to_string(i % kColours.size());
}

std::string series_class(std::size_t i) {
  return colour_class(i) + " d" + std::to_string(i % 4);
}

std::string pattern_defs() {
  // Each colour gets its own texture, so that areas differ without colour too.
  static const std::array<const char*, 8> textures = {
      "",                                                                      // plain
      "<path d=\"M0,8 L8,0\" stroke=\"#fff\" stroke-width=\"1.6\"/>",          // diagonal
      "<circle cx=\"4\" cy=\"4\" r=\"1.4\" fill=\"#fff\"/>",                   // dots
      "<path d=\"M0,4 H8\" stroke=\"#fff\" stroke-width=\"1.4\"/>",            // horizontal
      "<path d=\"M0,0 L8,8\" stroke=\"#fff\" stroke-width=\"1.6\"/>",          // other diagonal
      "<path d=\"M4,0 V8\" stroke=\"#fff\" stroke-width=\"1.4\"/>",            // vertical
      "<path d=\"M0,8 L8,0 M0,0 L8,8\" stroke=\"#fff\" stroke-width=\"1\"/>",  // cross
      "<path d=\"M0,8 L8,0\" stroke=\"#000\" stroke-width=\"1\"/>"};           // dark diagonal
  std::string s =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"0\" height=\"0\" class=\"defs\" "
      "aria-hidden=\"true\"><defs>";
  for (std::size_t i = 0; i < kColours.size(); ++i) {
    s += "<pattern id=\"pat" + std::to_string(i) +
         "\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\"><rect width=\"8\" "
         "height=\"8\" fill=\"" +
         std::string(kColours[i]) + "\"/>" + textures[i] + "</pattern>";
  }
  return s + "</defs></svg>";
}

std::string legend_item(std::size_t i, std::string_view label, bool line) {
  const std::string cls = series_class(i);
  std::string swatch = "<svg class=\"swatch\" width=\"28\" height=\"14\" aria-hidden=\"true\">";
  if (line) {
    swatch += "<line x1=\"1\" y1=\"7\" x2=\"27\" y2=\"7\" class=\"series-line " + cls + "\"/>";
  } else {
    swatch +=
        "<rect x=\"1\" y=\"1\" width=\"26\" height=\"12\" class=\"series-area " + cls + "\"/>";
  }
  return "<span class=\"legend-item\">" + swatch + "</svg>" + escape(label) + "</span>";
}

}  // namespace gpubill::report
