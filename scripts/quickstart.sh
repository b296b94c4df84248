#!/usr/bin/env bash
# Installs dependencies, builds gpubill, and runs the main job on the bundled catalog:
# a quote for one V100 for 720 hours across every provider and billing mode.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target gpubill
build/gpubill quote --gpu V100 --count 1 --hours 720 "$@"
