#!/usr/bin/env bash
# Installs every build and test dependency of gpubill from Debian packages.
# Safe to run repeatedly; needs root (or sudo) for apt-get.
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libsqlite3-dev sqlite3 libsqlitecpp-dev
  libhowardhinnant-date-dev tzdata
  nlohmann-json3-dev catch2 libcli11-dev
  libsimdjson-dev           # the usage-log reader: validates UTF-8 and JSON structure
  libbenchmark-dev
  clang-format
  clang libclang-rt-14-dev  # the sanitizer build and libFuzzer (scripts/test.sh --sanitize)
  ccache                    # rebuilds compile only what changed
  python3                   # the architecture check (scripts/check_architecture.py)
  chromium fonts-noto-cjk   # the HTML reports' browser test (tests/report/report_browser.sh)
)
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update
  "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
