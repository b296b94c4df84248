// The page around every HTML report (report_html.hpp).
#include "report/report_html.hpp"

#include <ostream>

#include "report/report_svg.hpp"

namespace gpubill::report {

namespace {

// One style sheet for every report. Fonts are the reader's own: a stack that has CJK faces
// (Noto Sans CJK SC on Linux, PingFang SC on macOS, Microsoft YaHei on Windows) so Chinese
// provider and instance names render; nothing is downloaded.
constexpr const char* kStyle = R"css(
:root{--ink:#1b1b1b;--muted:#555;--rule:#d0d0d0;--band:#f4f4f4}
*{box-sizing:border-box}
body{font-family:"Noto Sans","Noto Sans CJK SC","Source Han Sans SC","PingFang SC","Microsoft YaHei","Hiragino Sans GB",system-ui,sans-serif;color:var(--ink);margin:24px auto;max-width:1200px;padding:0 16px;line-height:1.4;font-size:14px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:18px;margin:28px 0 6px;border-bottom:2px solid var(--ink);padding-bottom:2px}
h3{font-size:15px;margin:16px 0 4px}
p.lead{color:var(--muted);margin:2px 0 12px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:8px 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
ul.notes{color:var(--muted);margin:4px 0;padding-left:20px}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:4px 0 8px;font-size:13px}
.legend-item{display:inline-flex;align-items:center;gap:6px}
svg.chart{display:block;max-width:100%;height:auto;font-size:12px;font-family:inherit}
svg.defs{position:absolute}
.chart text{fill:var(--ink)}
.axis .domain,.axis .tick{stroke:var(--ink);stroke-width:1}
.axis .grid{stroke:var(--rule);stroke-width:.6}
.tick-label{font-size:11px}
.axis-title{font-size:12px;font-weight:600}
.group-title{font-size:13px;font-weight:700}
.bar-label{font-size:11.5px}
.value-label{font-size:11.5px;font-weight:600}
.series-line{fill:none;stroke-width:2.4}
.marker{stroke:#fff;stroke-width:1.5}
.mark-line{stroke:var(--ink);stroke-width:1.2;stroke-dasharray:3 3}
.mark-label{font-size:11.5px;font-weight:700}
.band-label{font-size:10.5px;paint-order:stroke;stroke:#fff;stroke-width:3px}
.c0{--c:#0072B2}.c1{--c:#E69F00}.c2{--c:#009E73}.c3{--c:#CC79A7}.c4{--c:#56B4E9}.c5{--c:#D55E00}.c6{--c:#000000}.c7{--c:#F0E442}
.series-line.c0,.series-line.c1,.series-line.c2,.series-line.c3,.series-line.c4,.series-line.c5,.series-line.c6,.series-line.c7{stroke:var(--c)}
.d1.series-line{stroke-dasharray:8 4}.d2.series-line{stroke-dasharray:2 3}.d3.series-line{stroke-dasharray:10 3 2 3}
.marker.c0,.marker.c1,.marker.c2,.marker.c3,.marker.c4,.marker.c5,.marker.c6,.marker.c7{fill:var(--c)}
.series-area.c0{fill:url(#pat0)}.series-area.c1{fill:url(#pat1)}.series-area.c2{fill:url(#pat2)}.series-area.c3{fill:url(#pat3)}
.series-area.c4{fill:url(#pat4)}.series-area.c5{fill:url(#pat5)}.series-area.c6{fill:url(#pat6)}.series-area.c7{fill:url(#pat7)}
.series-area{stroke:#fff;stroke-width:.5}
table{border-collapse:collapse;margin:6px 0 12px;font-size:12.5px}
th,td{padding:3px 8px;border-bottom:1px solid var(--rule);text-align:left;vertical-align:top;white-space:nowrap}
td:last-child{white-space:normal}
table.lines{width:100%}
table.lines td{white-space:normal}table.lines td.num,table.lines td:nth-child(10){white-space:nowrap}
th{background:var(--band);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr:target,section:target{background:#fff6d5}
section.explain{border-left:3px solid var(--rule);padding:2px 10px;margin:8px 0}
section.explain pre{white-space:pre-wrap;margin:4px 0;font-size:12px}
footer{margin-top:32px;color:var(--muted);font-size:12px;border-top:1px solid var(--rule);padding-top:6px}
@media print{body{margin:0}h2{break-after:avoid}svg.chart{break-inside:avoid}}
)css";

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

void begin_page(std::ostream& out, std::string_view title) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // Nothing may load or run, whatever a name smuggles in: the browser refuses it.
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; img-src data:\">\n"
      << "<meta name=\"generator\" content=\"gpubill\">\n<title>" << escape(title)
      << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n"
      << pattern_defs() << "\n<h1>" << escape(title) << "</h1>\n";
}

void end_page(std::ostream& out, std::string_view note) {
  out << "<footer>Made by gpubill. " << escape(note)
      << " This page is self-contained: no scripts, fonts or images are fetched.</footer>\n"
      << "</body>\n</html>\n";
}

std::string fixed(Decimal value, int decimals, RoundingMode mode) {
  return value.round(decimals, mode).to_string(decimals);
}

std::string number_cell(Decimal exact, const std::string& shown, std::string_view col) {
  std::string cell = "<td class=\"num\"";
  if (!col.empty()) cell += " data-col=\"" + escape(col) + "\"";
  return cell + " data-value=\"" + exact.to_string() + "\">" + escape(shown) + "</td>";
}

std::string text_cell(std::string_view text) {
  return "<td>" + escape(text) + "</td>";
}

}  // namespace gpubill::report
