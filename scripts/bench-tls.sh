#!/usr/bin/env bash
# A route of keep serve over HTTP and then HTTPS: p50 of 50 requests, each
# on a new connection (one curl each) and all on one kept-alive
# connection; and the TLS handshake (curl's appconnect - connect).
#
#   CERTS=DIR ./scripts/bench-tls.sh     (DIR: ca.crt, server.crt and
#       server.key for localhost; ROUTE=/openapi.json for a route that
#       does no work; K names the keep binary [default: target/release/keep])
#
# The store (the man pages of section 1, keyword only) is made on first
# use in a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."
K=${K:-$(pwd)/target/release/keep}
tmp=${TMPDIR:-/tmp}
export KEEP_STORE=$tmp/keep-bench-tls-store HOME=$tmp/keep-bench-tls-home
C=${CERTS:?CERTS names a folder with ca.crt, server.crt and server.key}
mkdir -p $HOME
if [ ! -f $KEEP_STORE/keep.db ]; then
  "$K" put /usr/share/man/man1 >/dev/null 2>&1 || true
fi
"$K" stats | head -1
p50() { sort -n | awk '{a[NR]=$1} END {printf "%.2f ms\n", a[int((NR+1)/2)]*1000}'; }
measure() { # scheme, then curl options
  local scheme=$1; shift
  local url="$scheme://localhost:47510${ROUTE:-/v1/find?q=list+directory+contents&limit=10}"
  printf "%-5s new connection each:  " $scheme
  for i in $(seq 50); do curl -s -o /dev/null "$@" -w "%{time_total}\n" "$url"; done | p50
  printf "%-5s one kept connection:  " $scheme
  args=(); for i in $(seq 50); do args+=(-o /dev/null "$url"); done
  curl -s "$@" -w "%{time_total}\n" "${args[@]}" | tail -n 49 | p50
  if [ $scheme = https ]; then
    printf "https handshake:             "
    for i in $(seq 50); do curl -s -o /dev/null "$@" -w "%{time_appconnect} %{time_connect}\n" "$url"; done \
      | awk '{print $1-$2}' | p50
  fi
}
start() { "$K" serve --listen 127.0.0.1:47510 "$@" >/dev/null 2>&1 & PID=$!; sleep 2; }
start
measure http
kill $PID; wait $PID 2>/dev/null || true
start --tls-cert $C/server.crt --tls-key $C/server.key
measure https --cacert $C/ca.crt
kill $PID; wait $PID 2>/dev/null || true
