#!/usr/bin/env bash
# The real-document corpus: about 600 HTML pages from a dozen site
# generators (Sphinx, mdBook, DocBook, AsciiDoc, latex2html, texi2html,
# rustdoc, the Node.js and SQLite sites) and 24 PDFs, taken from Debian
# documentation packages (downloaded with apt-get, unpacked with dpkg-deb).
# The ingestion benchmark runs over it and the summary labels in
# testdata/real/labels.tsv are checked against it.
#
#   ./scripts/corpus.sh [DIR]      install into DIR (default target/corpus)
#
# DIR/<package>/<path in the package> holds the files, DIR/VERSIONS the
# package versions used. Re-running with the same selection does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-target/corpus}

# package  most files  members (extended regex on the path in the package)
SELECTION=(
  "python3.11-doc 20 ^usr/share/doc/python3\.11/html/tutorial/[^/]+\.html$"
  "python3.11-doc 20 ^usr/share/doc/python3\.11/html/howto/[^/]+\.html$"
  "python3.11-doc 40 ^usr/share/doc/python3\.11/html/library/[a-f][^/]*\.html$"
  "sphinx-doc 50 ^usr/share/doc/sphinx-doc/html/(usage|tutorial)/([^/]+/)?[^/]+\.html$"
  "postgresql-doc-15 20 ^usr/share/doc/postgresql-doc-15/html/tutorial-[^/]+\.html$"
  "postgresql-doc-15 40 ^usr/share/doc/postgresql-doc-15/html/sql-[^/]+\.html$"
  "git-doc 50 ^usr/share/doc/git-doc/git-[a-m][^/]*\.html$"
  "rust-doc 60 ^usr/share/doc/rust-doc/html/book/ch[^/]+\.html$"
  "rust-doc 30 ^usr/share/doc/rust-doc/html/edition-guide/[^/]+/[^/]+\.html$"
  "rust-doc 20 ^usr/share/doc/rust-doc/html/nomicon/[^/]+\.html$"
  "gnuplot-doc 50 ^usr/share/doc/gnuplot/htmldocs/node[0-9]+\.html$"
  "gnuplot-doc 1 ^usr/share/doc/gnuplot/gnuplot\.pdf$"
  "zsh-doc 40 ^usr/share/doc/zsh-common/html/[^/]+\.html$"
  "zsh-doc 1 ^usr/share/doc/zsh-common/zsh\.pdf$"
  "nodejs-doc 40 ^usr/share/doc/nodejs/api/[^/]+\.html$"
  "sqlite3-doc 60 ^usr/share/doc/sqlite3/[^/]+\.html$"
  "sqlite3-doc 1 ^usr/share/doc/sqlite3/[^/]+\.pdf$"
  "debian-policy 30 ^usr/share/doc/debian-policy/policy\.html/[^/]+\.html$"
  "debian-policy 2 ^usr/share/doc/debian-policy/(fhs/)?[^/]+\.pdf\.gz$"
  "debian-reference-en 20 ^usr/share/debian-reference/[^/]+\.en\.html$"
  "debian-reference-en 1 ^usr/share/debian-reference/[^/]+\.pdf$"
  "developers-reference 20 ^usr/share/developers-reference/[^/]+\.html$"
  "developers-reference 1 ^usr/share/developers-reference/[^/]+\.pdf$"
  "asymptote-doc 40 ^usr/share/doc/asymptote/html/[^/]+\.html$"
  "asymptote-doc 10 ^usr/share/doc/asymptote/([^/]+|examples/[^/]+)\.pdf$"
  "cargo-doc 20 ^usr/share/doc/cargo/doc/syn/(struct|enum|fn)\.[^/]+\.html$"
  "bash-doc 2 ^usr/share/doc/bash/[^/]+\.pdf$"
  "gnu-standards 2 ^usr/share/doc/gnu-standards/[^/]+\.pdf\.gz$"
  "r-doc-pdf 7 ^usr/share/R/doc/manual/R-[^/]+\.pdf$"
)

say() { echo "corpus: $*"; }
die() { echo "corpus: $*" >&2; exit 1; }

stamp=$(printf '%s\n' "${SELECTION[@]}" | sha256sum | cut -d' ' -f1)
if [ -f "$dest/.complete" ] && [ "$(cat "$dest/.complete")" = "$stamp" ]; then
  say "ok    $dest ($(find "$dest" -type f \( -name '*.html' -o -name '*.pdf' \) | wc -l) files)"
  exit 0
fi

command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null \
  || die "apt-get and dpkg-deb are needed to fetch the corpus (Debian packages)"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

debs="$dest/.debs"
mkdir -p "$debs"
packages=$(printf '%s\n' "${SELECTION[@]}" | cut -d' ' -f1 | sort -u)

# download PACKAGE: its .deb in $debs (kept for re-runs).
download() {
  local pkg=$1
  if compgen -G "$debs/${pkg}_*.deb" >/dev/null; then
    return
  fi
  say "fetch $pkg"
  if ! (cd "$debs" && apt-get download -qq "$pkg" 2>/dev/null); then
    $sudo apt-get update -qq >/dev/null 2>&1 || true
    (cd "$debs" && apt-get download -qq "$pkg" 2>/dev/null) \
      || die "could not download the Debian package $pkg"
  fi
}

for pkg in $packages; do
  download "$pkg"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/keep-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
rm -rf "$dest.partial"
mkdir -p "$dest.partial"
: > "$work/versions"
for pkg in $packages; do
  deb=$(compgen -G "$debs/${pkg}_*.deb" | head -n 1)
  dpkg-deb -f "$deb" Package Version | sed 's/^[^:]*: //' | paste -sd' ' >> "$work/versions"
  # Regular files only (links in the package would dangle here).
  dpkg-deb --fsys-tarfile "$deb" | tar -tv | awk '$1 ~ /^-/ {print $NF}' \
    | sed 's|^\./||' | sort > "$work/members"
  : > "$work/chosen"
  for line in "${SELECTION[@]}"; do
    read -r name most pattern <<< "$line"
    [ "$name" = "$pkg" ] || continue
    grep -E "$pattern" "$work/members" | head -n "$most" >> "$work/chosen" || true
  done
  [ -s "$work/chosen" ] || die "$pkg: no file matched the selection"
  mkdir -p "$dest.partial/$pkg"
  sed 's|^|./|' "$work/chosen" > "$work/chosen.tar"
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest.partial/$pkg" -T "$work/chosen.tar"
done
find "$dest.partial" -name '*.pdf.gz' -exec gunzip -f {} +
mv "$work/versions" "$dest.partial/VERSIONS"

html=$(find "$dest.partial" -type f -name '*.html' | wc -l)
pdf=$(find "$dest.partial" -type f -name '*.pdf' | wc -l)
[ "$html" -ge 300 ] && [ "$pdf" -ge 20 ] || die "only $html pages and $pdf PDFs were found"
find "$dest" -mindepth 1 -maxdepth 1 ! -name .debs -exec rm -rf {} +
mv "$dest.partial"/* "$dest"/
rm -rf "$dest.partial"
echo "$stamp" > "$dest/.complete"
say "ok    $dest ($html HTML pages, $pdf PDFs)"
