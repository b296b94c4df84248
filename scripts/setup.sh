#!/usr/bin/env bash
# Installs gpubill's dependencies from Debian packages. Safe to run repeatedly; needs root (or
# sudo) for apt-get, and asks apt only for what is missing.
#   scripts/setup.sh             what building and running the CLI and the library needs
#   scripts/setup.sh --test      and what the test suite needs (scripts/test.sh)
#   scripts/setup.sh --sanitize  and what the sanitizer and fuzz build needs (test.sh --sanitize)
#   --build-only (with --test or --sanitize): what building needs, not what only running the
#                tests needs (Chromium, fonts, the PostgreSQL server): scripts/test.sh installs
#                those beside the build
set -euo pipefail
packages=(
  build-essential cmake pkg-config
  ninja-build               # schedules the library and cli/ files together on every core
  libsqlite3-dev libsqlitecpp-dev
  libhowardhinnant-date-dev tzdata
  nlohmann-json3-dev libcli11-dev
  libsimdjson-dev           # the usage-log reader: validates UTF-8 and JSON structure
  libcurl4-openssl-dev      # catalog fetch: providers' price lists over HTTPS
  libpqxx-dev               # the store's PostgreSQL backend (libpqxx, libpq; GPUBILL_POSTGRES)
  ccache                    # rebuilds compile only what changed
)
test_packages=(
  catch2                    # the unit and scenario tests
  libbenchmark-dev          # bench/ (built with the tests, so that it keeps compiling)
  python3                   # the architecture check (scripts/check_architecture.py)
)
test_run_packages=(         # needed by running the tests only, not by building them
  chromium fonts-noto-cjk   # the HTML reports' browser test (tests/report/report_browser.sh)
  postgresql-15             # the server of the PostgreSQL tests' throw-away cluster (scripts/pg_cluster.sh)
)
sanitize_packages=(
  clang libclang-rt-14-dev  # AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer
)
tests=0
for arg in "$@"; do
  case "$arg" in
    --test) packages+=("${test_packages[@]}"); tests=1 ;;
    --sanitize) packages+=("${test_packages[@]}" "${sanitize_packages[@]}"); tests=1 ;;
    --build-only) build_only=1 ;;
    *) echo "setup.sh: unknown option $arg (--test, --sanitize, --build-only)" >&2; exit 2 ;;
  esac
done
if [ "$tests" = 1 ] && [ -z "${build_only:-}" ]; then packages+=("${test_run_packages[@]}"); fi
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
