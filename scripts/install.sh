#!/usr/bin/env bash
# Install keep for use: build it (release), put it on PATH, install the
# runtime and models it runs on, and check the whole with 'keep doctor'.
# Nothing here installs the tools keep's tests need (that is
# ./scripts/setup.sh).
#
#   ./scripts/install.sh          everything: SQLite and PostgreSQL stores,
#                                 keep mcp, keep serve, every file format
#   ./scripts/install.sh --lean   without PostgreSQL (a slightly shorter build)
#
#   KEEP_BIN_DIR   where the binary goes   (default ~/.local/bin)
#   KEEP_DATA_DIR  where models go         (default ${XDG_DATA_HOME:-~/.local/share}/keep)
set -euo pipefail
cd "$(dirname "$0")/.."

features=()
for arg in "$@"; do
  case "$arg" in
    --lean) features=(--no-default-features) ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "install: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

bin_dir="${KEEP_BIN_DIR:-$HOME/.local/bin}"
say() { echo "install: $*"; }
die() { echo "install: $*" >&2; exit 1; }

# What the build and 'keep models install' need, each named in one line.
missing=()
[ "$(uname -s)/$(uname -m)" = "Linux/x86_64" ] \
  || missing+=("a Linux x86-64 machine: the runtime and models keep installs are built for it (this is $(uname -s)/$(uname -m))")
command -v cargo >/dev/null || missing+=("cargo: install Rust with rustup (https://rustup.rs)")
command -v cc >/dev/null || missing+=("a C compiler (cc): Debian: apt-get install gcc")
command -v c++ >/dev/null || missing+=("a C++ compiler (c++): Debian: apt-get install g++")
python3 -m pip --version >/dev/null 2>&1 \
  || missing+=("Python 3 with pip: Debian: apt-get install python3-pip")
if [ ${#missing[@]} -gt 0 ]; then
  for m in "${missing[@]}"; do echo "install: missing: $m" >&2; done
  exit 1
fi

started=$SECONDS
say "building keep (release${features:+, lean}): about 18 minutes on 2 cores"
cargo build --release --locked -p keep "${features[@]}"
mkdir -p "$bin_dir"
install -m 0755 target/release/keep "$bin_dir/keep.partial.$$"
mv -f "$bin_dir/keep.partial.$$" "$bin_dir/keep"
say "installed $bin_dir/keep ($(( SECONDS - started )) s)"

"$bin_dir/keep" models install || die "keep models install failed (see above)"

status=0
"$bin_dir/keep" doctor || status=$?
case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *) say "add $bin_dir to your PATH (e.g. in ~/.profile: export PATH=\"$bin_dir:\$PATH\")" ;;
esac
say "done in $(( SECONDS - started )) s; give an agent keep's memory with: keep connect CLIENT --write (keep connect lists the clients)"
exit "$status"
