#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance,
# with the Node.js 22 it needs, both from npm) against a real `keep serve`
# on a temporary store. Scenarios that need the suite's own fixtures are
# listed in tests/conformance-baseline.yml; any other failure, or a listed
# scenario that starts to pass, fails this script.
#
#   ./scripts/conformance.sh [KEEP_BINARY]     (default target/debug/keep)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=${1:-target/debug/keep}
tools="$root/target/test-tools/conformance"
SUITE="@modelcontextprotocol/conformance@0.1.16"
NODE="node@22.23.3"

if [ ! -x "$tools/node_modules/.bin/conformance" ] || [ ! -x "$tools/node_modules/.bin/node" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq >/dev/null
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
  fi
  mkdir -p "$tools"
  npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "$SUITE" "$NODE" >/dev/null
fi
export PATH="$tools/node_modules/.bin:$PATH"
echo "conformance: node $(node --version), suite ${SUITE##*@}"

work=$(mktemp -d)
trap 'kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
KEEP_STORE="$work/store" "$bin" serve --listen 127.0.0.1:0 2>"$work/serve.log" &
server=$!
url=""
for _ in $(seq 1 100); do
  url=$(grep -o 'http://[^ ]*/mcp' "$work/serve.log" | head -n 1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/serve.log" >&2; echo "conformance: keep serve did not start" >&2; exit 1; }
conformance server --url "$url" --expected-failures "$root/tests/conformance-baseline.yml" \
  -o "$work/results" >"$work/run.log" 2>&1 || { cat "$work/run.log"; exit 1; }
sed -n '/=== SUMMARY ===/,$p' "$work/run.log"
