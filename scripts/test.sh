#!/usr/bin/env bash
# Installs dependencies, builds gpubill and runs the whole test suite on every core.
#   scripts/test.sh            — the normal build (Release, warnings are errors)
#   scripts/test.sh --sanitize — the same suite under AddressSanitizer + UndefinedBehaviorSanitizer
#                                (clang), plus libFuzzer on each fuzz target
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
setup=(--test)
flags=(-DGPUBILL_WERROR=ON -DGPUBILL_BUILD_TESTS=ON)
if [ "${1:-}" = "--sanitize" ]; then
  # One clang build serves AddressSanitizer, UndefinedBehaviorSanitizer and the libFuzzer
  # targets (each fuzzed by CTest, label "fuzz"). -O1 keeps the tests quick; line tables (not
  # full debug information) are enough for file:line in the sanitizers' stack traces.
  build=build-sanitize
  setup=(--sanitize)
  flags=(-DCMAKE_CXX_COMPILER=clang++ -DGPUBILL_SANITIZE=ON -DGPUBILL_FUZZ=ON
         -DGPUBILL_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug
         -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only")
fi
# What building needs first; what only running the tests needs (Chromium, fonts, the PostgreSQL
# server: about 40 s of apt on a fresh machine) is installed beside the build, and waited for
# before the tests run (and on any exit, so that apt is never left half done).
scripts/setup.sh "${setup[@]}" --build-only
scripts/setup.sh "${setup[@]}" &
setup_run=$!
trap 'wait' EXIT
# Ninja for a new build directory (one made earlier keeps its generator).
[ -f "$build/CMakeCache.txt" ] || flags+=(-G Ninja)
cmake -S . -B "$build" "${flags[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)"
wait "$setup_run"
# The PostgreSQL tests run against a throw-away cluster (scripts/pg_cluster.sh, a CTest
# fixture); here a missing server is a failure, not a skip.
export GPUBILL_TEST_PG_REQUIRED=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Leaks inside third-party libraries only (tests/sanitizer/lsan.supp says which and why).
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer/lsan.supp"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
