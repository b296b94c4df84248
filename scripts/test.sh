#!/usr/bin/env bash
# Installs dependencies, builds gpubill and runs the whole test suite.
#   scripts/test.sh            — the normal build (warnings are errors)
#   scripts/test.sh --sanitize — the same under AddressSanitizer + UndefinedBehaviorSanitizer
#                                (clang), plus a minute of libFuzzer per fuzz target
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
flags=(-DGPUBILL_WERROR=ON)
if [ "${1:-}" = "--sanitize" ]; then
  # One clang build serves AddressSanitizer, UndefinedBehaviorSanitizer and the libFuzzer
  # targets (each fuzzed for a minute by CTest, label "fuzz"). -O1 keeps the tests quick.
  build=build-sanitize
  flags=(-DCMAKE_CXX_COMPILER=clang++ -DGPUBILL_SANITIZE=ON -DGPUBILL_FUZZ=ON
         -DGPUBILL_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1")
fi
scripts/setup.sh
cmake -S . -B "$build" "${flags[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
