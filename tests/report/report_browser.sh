#!/usr/bin/env bash
# The HTML reports in a real browser: renders each report in headless Chromium and checks that
# the page logs no console error (a blocked fetch, a script, a CSS or SVG error), that the DOM
# holds the expected charts and labels, that Chinese names have a font, and that the
# screenshot is not blank.
#
# Usage: report_browser.sh GPUBILL SOURCE_DIR OUT_DIR
# The pages and screenshots stay in OUT_DIR for a look. Without chromium it skips (exit 77),
# except in CI (CI=true), where it fails.
set -euo pipefail
gpubill=$1
source_dir=$2
out=$3

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "FAIL: chromium is not installed (scripts/setup.sh installs it); CI must run this test" >&2
    exit 1
  fi
  echo "SKIP: chromium is not installed (scripts/setup.sh installs it)"
  exit 77
fi

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/report.db"
"$gpubill" --db "$db" init >/dev/null 2>&1

# A month with arrears, a stop and a recycle bin, under Chinese account and instance names.
"$gpubill" --db "$db" replay "$source_dir/fixtures/logs/report-month.jsonl" \
  --until 2019-04-01T00:00:00+08:00 >/dev/null 2>&1 || fail "replay of the bill's log failed"

"$gpubill" --db "$db" report quote "$source_dir/fixtures/workloads/v100-month.json" --at 2026-07-13 \
  -o "$out/quote.html" || fail "report quote failed"
"$gpubill" --db "$db" report lease-vs-buy "$source_dir/fixtures/tco/8xV100.json" \
  -o "$out/tco.html" || fail "report lease-vs-buy failed"
"$gpubill" --db "$db" report bill --account 研究组 --month 2019-03 -o "$out/bill.html" ||
  fail "report bill failed"

# Chinese names need a CJK font: the pages' font stack names Noto Sans CJK SC.
if command -v fc-list >/dev/null; then
  fc-list :lang=zh family | grep -q . ||
    fail "no font for Chinese text (scripts/setup.sh installs fonts-noto-cjk)"
fi

run_browser() {  # run_browser PROFILE ARGS…: the browser's stderr goes to $work/PROFILE.log
  local profile=$1
  shift
  timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/$profile" --enable-logging=stderr --v=0 \
    --disable-extensions --disable-background-networking "$@" 2>>"$work/$profile.log"
}

# A PNG's width and height from its IHDR chunk.
png_size() {
  od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%d %d\n", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'
}

check_report() {  # check_report NAME EXPECTED-STRING…
  local name=$1
  shift
  local page="$out/$name.html"
  grep -qi '<script' "$page" && fail "$name.html has a script"
  grep -Eqi '(src|href)="(https?:)?//' "$page" && fail "$name.html refers to the network"
  # One load gives the DOM after layout (stdout) and the screenshot.
  run_browser "$name" --hide-scrollbars --window-size=1280,2000 --screenshot="$out/$name.png" \
    --dump-dom "file://$page" >"$work/$name.dom" || fail "chromium could not load $name.html"
  for expected in "$@"; do
    grep -qF -- "$expected" "$work/$name.dom" || fail "$name.html: the DOM has no '$expected'"
  done
  # Every console message counts: the pages have no scripts, so any is an error (a blocked
  # load, a refused script, a CSS or SVG complaint).
  if grep -E 'CONSOLE|Uncaught|Refused to|Content Security Policy' "$work/$name.log"; then
    fail "$name.html logged console messages (above)"
  fi
  [ -s "$out/$name.png" ] || fail "the screenshot of $name.html is empty"
  [ "$(png_size "$out/$name.png")" = "1280 2000" ] ||
    fail "the screenshot of $name.html is $(png_size "$out/$name.png"), not 1280 2000"
  # A blank 1280×2000 page compresses to a few KB; charts and tables need far more.
  local bytes
  bytes=$(stat -c %s "$out/$name.png")
  [ "$bytes" -gt 40000 ] || fail "the screenshot of $name.html looks blank ($bytes bytes)"
  echo "ok: $name.html ($(stat -c %s "$page") bytes, screenshot $bytes bytes)"
}

check_report quote 'class="chart ranked-bars"' 'data-rank="1"' 'data-break-even-hours=' \
  'total cost of the workload (CNY)' 'hours of use per month (h)' 'cost per month (CNY)' \
  '<table class="lines">' 'as of'
check_report tco 'class="chart line-chart"' 'data-series="buy"' 'data-series="rent_payg"' \
  'data-break-even-month=' 'data-break-even-utilisation=' 'cumulative cost (USD)' \
  'month (0 = purchase day)' '<table class="months">'
check_report bill 'class="chart daily-cost"' 'class="chart timeline"' 'data-state="arrears_stopped"' \
  'data-state="recycle_bin"' 'data-series="balance"' 'billed per day (CNY)' 'balance (CNY)' \
  '训练机-1' '推理机' 'href="#charge-' \
  'id="charge-'
