// The reports' chart primitives: exact ticks, the one Decimal → pixel conversion, escaping.
#include <catch2/catch.hpp>

#include "report/report_html.hpp"
#include "report/report_svg.hpp"

using gpubill::Decimal;
namespace report = gpubill::report;

namespace {

std::vector<std::string> texts(const std::vector<Decimal>& ticks) {
  std::vector<std::string> out;
  for (const Decimal t : ticks) out.push_back(t.to_string());
  return out;
}

}  // namespace

TEST_CASE("nice ticks are round steps covering the range", "[report]") {
  using V = std::vector<std::string>;
  CHECK(texts(report::nice_ticks(Decimal(0), Decimal::parse("10453.11"), 8)) ==
        V{"0", "2000", "4000", "6000", "8000", "10000", "12000"});
  CHECK(texts(report::nice_ticks(Decimal::parse("-60.5"), Decimal(8000), 8)) ==
        V{"-2000", "0", "2000", "4000", "6000", "8000"});
  CHECK(texts(report::nice_ticks(Decimal(0), Decimal::parse("0.37"), 4)) ==
        V{"0", "0.1", "0.2", "0.3", "0.4"});
  CHECK(texts(report::nice_ticks(Decimal(0), Decimal(0))) ==
        V{"0", "0.2", "0.4", "0.6", "0.8", "1"});
  CHECK(texts(report::ticks_within(Decimal(1), Decimal(32), 12)) ==
        V{"5", "10", "15", "20", "25", "30"});
}

TEST_CASE("a scale maps exact values to pixels, both ways up", "[report]") {
  const report::Scale x(Decimal(0), Decimal(720), 100, 820);
  CHECK(x.px(Decimal(0)) == 100);
  CHECK(x.px(Decimal::parse("267.5")) == Approx(367.5));
  CHECK(x.px(Decimal(720)) == 820);
  const report::Scale y(Decimal(0), Decimal(14000), 400, 16);  // upwards
  CHECK(y.px(Decimal(7000)) == Approx(208));
  CHECK(report::Scale(Decimal(5), Decimal(5), 10, 90).px(Decimal(5)) == 10);
  CHECK(report::coord(367.5) == "367.5");
  CHECK(report::coord(-0.01) == "0");
  CHECK(report::coord(12.0) == "12");
}

TEST_CASE("tick labels group thousands; text is escaped", "[report]") {
  CHECK(report::tick_text(Decimal(12500)) == "12\u2009500");
  CHECK(report::tick_text(Decimal(-1500000)) == "-1\u2009500\u2009000");
  CHECK(report::tick_text(Decimal::parse("999.25")) == "999.25");
  CHECK(report::escape("<b>训练&\"x'</b>") == "&lt;b&gt;训练&amp;&quot;x&#39;&lt;/b&gt;");
  CHECK(report::fixed(Decimal::parse("2.125"), 2) == "2.13");
  CHECK(report::number_cell(Decimal::parse("1.5"), "1.50", "total") ==
        "<td class=\"num\" data-col=\"total\" data-value=\"1.5\">1.50</td>");
}
