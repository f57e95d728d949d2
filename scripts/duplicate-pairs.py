#!/usr/bin/env python3
"""Labelled near-duplicate queries from Debian's package index, its
AppStream metadata and man pages: texts that say the same thing, written
by different people.

  man        a command's man page NAME line, against the one-line summary
             the Debian maintainer wrote for the package of that name;
  appstream  the upstream AppStream summary of an application, against the
             Debian summary of the package that ships it;
  absent     an AppStream summary of a package left out of the store: it
             has no duplicate, so any match for it is a false merge.

The store the queries run against holds the Debian summaries of the paired
packages, of their siblings (same source package: the hardest negatives,
libfoo-dev against libfoo-doc) and of other packages.

  ./scripts/duplicate-pairs.py [OUT_DIR]   (needs apt-cache, lexgrog and
                                            the bookworm dep11 index)

Writes OUT_DIR/queries.tsv (kind, package or '-', text) and
OUT_DIR/store.tsv (package, summary). Selection is by a hash of the
package name, so a re-run on the same index gives the same files.
"""
import glob
import gzip
import hashlib
import os
import re
import subprocess
import sys

import yaml

APPSTREAM_PAIRS = 400
ABSENT = 400
OTHERS = 2000


def order(name, salt):
    return hashlib.sha256((salt + name).encode()).hexdigest()


def debian_packages():
    out = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True,
                         errors="replace", check=True).stdout
    found = {}
    for block in out.split("\n\n"):
        name = re.search(r"^Package: (\S+)$", block, re.M)
        desc = re.search(r"^Description(?:-en)?: (.+)$", block, re.M)
        if name and desc:
            source = re.search(r"^Source: (\S+)", block, re.M)
            found[name.group(1)] = (desc.group(1).strip(),
                                    source.group(1) if source else name.group(1))
    return found


def appstream_summaries():
    found = {}
    for path in glob.glob("/var/lib/apt/lists/*_main_dep11_Components-amd64.yml.gz"):
        with gzip.open(path, "rt", errors="replace") as f:
            for doc in yaml.safe_load_all(f):
                if not doc or "Package" not in doc:
                    continue
                summary = (doc.get("Summary") or {}).get("C")
                if summary and doc.get("Type") in ("desktop-application", "console-application"):
                    found.setdefault(doc["Package"], summary.strip())
    return found


def man_name_line(path):
    out = subprocess.run(["lexgrog", path], capture_output=True, text=True,
                         errors="replace").stdout
    m = re.search(r'"[^"]*? - (.+)"', out)
    return m.group(1).strip() if m else None


def same(a, b):
    norm = lambda s: re.sub(r"\W+", " ", s.lower()).strip()
    return norm(a) == norm(b)


def clean(text):
    return " ".join(text.split()).replace("\t", " ")


def main(out_dir):
    pkgs = debian_packages()
    upstream = appstream_summaries()
    queries, paired = [], set()
    mandir = "/usr/share/man/man1"
    for f in sorted(os.listdir(mandir)):
        name = f.split(".1")[0]
        if f.endswith(".1.gz") and name in pkgs:
            line = man_name_line(os.path.join(mandir, f))
            if line and not same(line, pkgs[name][0]):
                queries.append(("man", name, line))
                paired.add(name)
    candidates = sorted((n for n in upstream if n in pkgs and not same(upstream[n], pkgs[n][0])),
                        key=lambda n: order(n, "appstream"))
    apps = [n for n in candidates if n not in paired][:APPSTREAM_PAIRS]
    for name in apps:
        queries.append(("appstream", name, upstream[name]))
        paired.add(name)
    by_source = {}
    for name, (_, source) in pkgs.items():
        by_source.setdefault(source, []).append(name)
    store = set(paired)
    for name in sorted(paired):
        store.update(sorted(by_source[pkgs[name][1]])[:6])
    rest = [n for n in candidates if n not in store and n not in paired]
    absent = rest[APPSTREAM_PAIRS:APPSTREAM_PAIRS + ABSENT] or rest[:ABSENT]
    absent_sources = {pkgs[n][1] for n in absent}
    for name in absent:
        queries.append(("absent", "-", upstream[name]))
    others = (n for n in sorted(pkgs, key=lambda n: order(n, "other"))
              if pkgs[n][1] not in absent_sources)
    target = len(store) + OTHERS
    for name in others:
        if len(store) >= target:
            break
        store.add(name)
    with open(os.path.join(out_dir, "queries.tsv"), "w") as f:
        f.write("kind\tpackage\ttext\n")
        for kind, name, text in queries:
            f.write(f"{kind}\t{name}\t{clean(text)}\n")
    with open(os.path.join(out_dir, "store.tsv"), "w") as f:
        f.write("package\tsummary\n")
        for name in sorted(store):
            f.write(f"{name}\t{clean(pkgs[name][0])}\n")
    kinds = {k: sum(1 for q in queries if q[0] == k) for k in ("man", "appstream", "absent")}
    print(f"queries {kinds}, {len(store)} summaries in the store")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/real/duplicates")
