#!/usr/bin/env bash
# Installs the built gpubill into a scratch prefix, moves the installed tree (the pkg-config file
# must find it from where it lies), then builds docs/examples/quote_v100.cpp against it with
# pkg-config and runs it. Usage: install_example.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/first" >/dev/null
mv "$scratch/first" "$scratch/moved"
pc=$(dirname "$(find "$scratch/moved" -name gpubill.pc | head -n 1)")
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs gpubill)
c++ "$source/docs/examples/quote_v100.cpp" $flags -o "$scratch/quote_v100"
"$scratch/quote_v100" | tee "$scratch/out.txt"
grep -q "^1  " "$scratch/out.txt"  # a ranked, priced line
