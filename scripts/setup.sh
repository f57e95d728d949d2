#!/usr/bin/env bash
# Set-up: build keep in release mode and install the binary.
#
#   ./scripts/setup.sh            build and install to ~/.local/bin
#   KEEP_BIN_DIR=DIR ./scripts/setup.sh   install somewhere else
#
# Re-running it is fast: cargo rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

bin_dir="${KEEP_BIN_DIR:-$HOME/.local/bin}"

echo "setup: building keep (release)"
cargo build --release --locked

mkdir -p "$bin_dir"
install -m 0755 target/release/keep "$bin_dir/keep.tmp.$$"
mv -f "$bin_dir/keep.tmp.$$" "$bin_dir/keep"
echo "setup: installed $bin_dir/keep"
case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *) echo "setup: add $bin_dir to your PATH to run 'keep'" ;;
esac
