#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests (CTest fixture "postgres", CMakeLists.txt).
#   scripts/pg_cluster.sh start STATE_DIR   initdb + pg_ctl in a new temporary directory; prints
#                                           the cluster's URL and writes it to STATE_DIR/url
#   scripts/pg_cluster.sh stop STATE_DIR    stops the cluster and removes it and STATE_DIR
# The server listens on a Unix socket in its own directory only (no TCP port), so clusters of
# several builds never meet. Local connections are trusted, but for the role gpubill_pw, which
# must give its password (scram-sha-256): the tests of a wrong password use it. initdb refuses
# to run as root: invoked as root, the cluster belongs to the user "nobody".
# Server binaries: PG_BINDIR (only there when set), else the newest /usr/lib/postgresql/*/bin, else PATH. Without
# them `start` exits 77 (CTest: skipped) with the reason, or 1 when GPUBILL_TEST_PG_REQUIRED=1
# (scripts/test.sh and CI, where the tests must run).
set -euo pipefail
cmd=${1:-}
state=${2:-}
if [ -z "$cmd" ] || [ -z "$state" ]; then
  echo "usage: pg_cluster.sh start|stop STATE_DIR" >&2
  exit 2
fi

find_bindir() {
  if [ -n "${PG_BINDIR:-}" ]; then
    if [ -x "$PG_BINDIR/initdb" ]; then echo "$PG_BINDIR"; fi
    return
  fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}

stop_cluster() {
  local dir
  dir=$(cat "$state/cluster" 2>/dev/null || true)
  if [ -n "$dir" ] && [ -d "$dir/data" ]; then
    as_owner "$(cat "$state/bindir")/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  if [ -n "$dir" ] && [ -d "$dir" ]; then rm -rf "$dir"; fi
  rm -rf "$state"
}

case "$cmd" in
  start)
    stop_cluster  # a cluster left by an interrupted run
    mkdir -p "$state"
    bindir=$(find_bindir)
    if [ -z "$bindir" ]; then
      reason="PostgreSQL server binaries (initdb, pg_ctl) not found: install postgresql-15 (scripts/setup.sh --test) or set PG_BINDIR"
      echo "$reason" > "$state/skip"
      echo "pg_cluster.sh: $reason" >&2
      if [ "${GPUBILL_TEST_PG_REQUIRED:-0}" = 1 ]; then exit 1; fi
      exit 77
    fi
    echo "$bindir" > "$state/bindir"
    dir=$(mktemp -d "${TMPDIR:-/tmp}/gpubill-pg.XXXXXX")
    echo "$dir" > "$state/cluster"
    chmod 755 "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown nobody "$dir"; fi
    as_owner "$bindir/initdb" -D "$dir/data" -U gpubill --auth=trust -E UTF8 --locale=C.UTF-8 \
      --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner sh -c "cat > '$dir/data/pg_hba.conf'" <<'EOF'
local all gpubill_pw scram-sha-256
local all all trust
EOF
    port=5432  # names the socket file only: nothing listens on TCP
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c port=$port -c fsync=off -c max_connections=40" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    url="postgresql:///postgres?host=$dir&port=$port&user=gpubill"
    echo "$url" > "$state/url"
    echo "$url"
    ;;
  stop)
    stop_cluster
    ;;
  *)
    echo "pg_cluster.sh: unknown command $cmd (start, stop)" >&2
    exit 2
    ;;
esac
