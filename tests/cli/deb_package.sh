#!/usr/bin/env bash
# Builds the Debian package with CPack, unpacks it into a scratch root, runs the packaged
# `gpubill quote` from there, checks the man page is in it, and builds and runs the README's
# library example against the packaged headers, library and pkg-config file.
# Usage: deb_package.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$build" && cpack -G DEB -B "$scratch/pkg" >/dev/null)
deb=$(ls "$scratch"/pkg/gpubill_*.deb)
dpkg-deb --field "$deb" Package Version Architecture Depends | tee "$scratch/fields.txt"
grep -q "^Depends: .*libsqlite3" "$scratch/fields.txt"
grep -q "^Depends: .*tzdata" "$scratch/fields.txt"
dpkg-deb -x "$deb" "$scratch/root"
root=$scratch/root/usr
test -x "$root/bin/gpubill"
test -f "$root/share/man/man1/gpubill.1"
test -f "$root/include/gpubill/gpubill.hpp"
find "$root" -name gpubillConfig.cmake | grep -q .
"$root/bin/gpubill" --db "$scratch/q.db" init >/dev/null 2>&1
"$root/bin/gpubill" --db "$scratch/q.db" quote --gpu V100 --count 1 --hours 720 --at 2026-12-02 --format csv \
  > "$scratch/quote.csv"
test "$(wc -l < "$scratch/quote.csv")" -gt 1
pc=$(dirname "$(find "$root" -name gpubill.pc | head -n 1)")
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs gpubill)
c++ "$source/docs/examples/quote_v100.cpp" $flags -o "$scratch/quote_v100"
"$scratch/quote_v100" | tee "$scratch/out.txt"
grep -q "^1  " "$scratch/out.txt"  # a ranked, priced line
echo "the package installs, quotes and builds the library example"
