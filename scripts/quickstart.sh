#!/usr/bin/env bash
# Installs what building and running gpubill needs, builds the CLI (Release, no tests), and runs
# the main job on the bundled catalog: a quote for one V100 for 720 hours across every provider
# and billing mode. Extra arguments go to the quote (e.g. --format json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Ninja for a new build directory (one made earlier keeps its generator).
generator=()
[ -f build/CMakeCache.txt ] || generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DGPUBILL_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)" --target gpubill
build/gpubill quote --gpu V100 --count 1 --hours 720 "$@"
