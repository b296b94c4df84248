#!/usr/bin/env bash
# Times the whole `gpubill quote` process on the bundled catalog (target: <= 100 ms), next to
# `gpubill --version` (process start only) and `gpubill catalog gpus` (start + open the database
# + load the catalog), so the difference shows what the quote itself costs.
#
#   bench/quote_process.sh [path/to/gpubill]      (default: build-quote/gpubill, then build/gpubill)
#
# Uses hyperfine when installed (apt-get install -y hyperfine), else a loop of 30 runs timed
# with `date +%s%N`. The database is a fresh temporary file, filled with the bundled catalog by
# a first (untimed) run.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
  for b in "$here/build-quote/gpubill" "$here/build/gpubill"; do
    if [ -x "$b" ]; then bin=$b; break; fi
  done
fi
[ -x "$bin" ] || { echo "gpubill binary not found; build it first" >&2; exit 1; }
db=$(mktemp -d)/quote-bench.db
trap 'rm -rf "$(dirname "$db")"' EXIT
export GPUBILL_DB=$db
"$bin" quote --gpu V100 --count 1 --hours 720 > /dev/null  # creates the database

commands=(
  "$bin --version"
  "$bin catalog gpus"
  "$bin quote --gpu V100 --count 1 --hours 720"
  "$bin quote $here/fixtures/workloads/resnet-training-4gpu.json --format json"
  "$bin quote --min-fp32 5 --hours 720 --top 0"
)
if command -v hyperfine > /dev/null; then
  hyperfine -N --warmup 3 --runs 30 "${commands[@]}"
else
  for c in "${commands[@]}"; do
    start=$(date +%s%N)
    for _ in $(seq 30); do $c > /dev/null; done
    end=$(date +%s%N)
    echo "$c: $(( (end - start) / 30000000 )) ms per run (mean of 30)"
  done
fi
