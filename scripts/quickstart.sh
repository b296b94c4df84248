#!/usr/bin/env bash
# Installs what building and running gpubill needs, builds the CLI (Release, no tests), and runs
# the main job on the bundled catalog: a quote for one V100 for 720 hours across every provider
# and billing mode. Extra arguments go to the quote (e.g. --format json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# A new build directory: Ninja, no tests (their packages are scripts/test.sh's). One made
# earlier keeps its generator and its tests: turning them off there would leave its test
# program of an older commit in place, unbuilt, for whoever runs it next.
settings=()
[ -f build/CMakeCache.txt ] || settings=(-G Ninja -DGPUBILL_BUILD_TESTS=OFF)
cmake -S . -B build "${settings[@]}" >/dev/null
cmake --build build -j"$(nproc)" --target gpubill
build/gpubill quote --gpu V100 --count 1 --hours 720 "$@"
