#!/usr/bin/env python3
"""A labelled recall set of real text: queries and the one document each
should find, taken from Debian's package descriptions, man pages and
AppStream metadata.

  debian     a package's one-line description against its long
             description (fetched with apt into a private folder);
  man        a command's man page NAME line (what it does, in one line)
             against the DESCRIPTION section of the same page;
  appstream  an application's upstream AppStream summary against its
             AppStream description.

Pages whose NAME line or DESCRIPTION another page repeats are left out, so
each query has exactly one relevant document. Rows are in the order of a
hash of their id, so a prefix of the file is a fair sample of any size.

  ./scripts/quality-set.py [OUT_FILE]   (needs apt, man, col and the
                                         bookworm dep11 index; about 3 minutes)

Writes OUT_FILE (gzip, default testdata/real/quality/set.tsv.gz): id,
kind, query, document; newlines in documents as a literal \\n.
"""
import glob
import gzip
import hashlib
import html
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import yaml

DOCUMENTS = 10_000
MAX_DOCUMENT = 4_000
MIN_DOCUMENT = 120
MIN_QUERY_WORDS = 3
MANDIR = "/usr/share/man/man1"
GENERIC = re.compile(r"manual page|undocumented|^debian|^ubuntu|wrapper script|^see |"
                     r"transitional|dummy package|debug(ging)? symbols|metapackage", re.I)
# Thousands of generated pages of one cloud SDK would crowd out the rest.
MASS_GENERATED = re.compile(r"^(gcloud|bq)[_.]")


def order(name):
    return hashlib.sha256(name.encode()).hexdigest()


def rendered(path):
    env = dict(os.environ, MANWIDTH="2000", LC_ALL="C.UTF-8")
    out = subprocess.run(f"man -E UTF-8 -l '{path}' 2>/dev/null | col -bx", shell=True,
                         capture_output=True, text=True, errors="replace", env=env).stdout
    return out


def sections(page):
    """Top-level sections of a rendered man page: {HEADING: [lines]}."""
    found, current = {}, None
    for line in page.splitlines():
        if line and not line[0].isspace():
            current = line.strip()
            found.setdefault(current, [])
        elif current is not None:
            found[current].append(line.strip())
    return found


def paragraphs(lines):
    text, paragraph = [], []
    for line in lines + [""]:
        if line:
            paragraph.append(line)
        elif paragraph:
            text.append(" ".join(" ".join(paragraph).split()))
            paragraph = []
    return text


def bounded(paras):
    out = []
    for p in paras:
        if sum(len(x) + 2 for x in out) + len(p) > MAX_DOCUMENT:
            break
        out.append(p)
    return "\n\n".join(out) if out else paras[0][:MAX_DOCUMENT]


def man_row(file):
    path = os.path.join(MANDIR, file)
    with gzip.open(path, "rt", errors="replace") as f:
        if f.read(200).lstrip().startswith(".so "):
            return None
    found = sections(rendered(path))
    name = " ".join(found.get("NAME", []))
    m = re.search(r"\s[-\u2013\u2014]+\s+(.+)$", name)
    description = paragraphs(found.get("DESCRIPTION", []))
    if not m or not description:
        return None
    query = re.sub(r"^[\w.+-]+(,\s*[\w.+-]+)*\s+-\s+", "", " ".join(m.group(1).split()))
    document = bounded(description)
    if (len(query.split()) < MIN_QUERY_WORDS or GENERIC.search(query)
            or len(document) < MIN_DOCUMENT):
        return None
    return ("man:" + file.split(".1")[0], "man", query, document)


def translations():
    """The English package descriptions, from apt's index in a private folder."""
    with tempfile.TemporaryDirectory() as lists:
        os.makedirs(os.path.join(lists, "partial"))
        subprocess.run(["apt-get", "-qq", "-o", f"Dir::State::Lists={lists}",
                        "-o", "Acquire::Languages=en", "-o", "Debug::NoLocking=1",
                        "-o", "APT::Sandbox::User=root", "update"],
                       check=True, stdout=subprocess.DEVNULL)
        text = ""
        for path in glob.glob(os.path.join(lists, "*_main_i18n_Translation-en*")):
            text += subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path],
                                   capture_output=True, text=True, errors="replace",
                                   check=True).stdout + "\n"
        return text


def debian_rows():
    rows, seen = [], set()
    for block in translations().split("\n\n"):
        m = re.search(r"^Package: (\S+)$.*?^Description-en: ([^\n]+)\n((?: [^\n]*\n?)*)", block,
                      re.M | re.S)
        if not m or m.group(1) in seen:
            continue
        seen.add(m.group(1))
        query = " ".join(m.group(2).split())
        paras = [" ".join(p.split()) for p in
                 re.split(r"^ \.$", m.group(3), flags=re.M)]
        paras = [p for p in paras if p]
        if not paras or len(query.split()) < MIN_QUERY_WORDS or GENERIC.search(query):
            continue
        document = bounded(paras)
        if len(document) >= MIN_DOCUMENT:
            rows.append(("deb:" + m.group(1), "debian", query, document))
    return rows


def appstream_rows():
    rows = []
    for path in glob.glob("/var/lib/apt/lists/*_main_dep11_Components-amd64.yml.gz"):
        with gzip.open(path, "rt", errors="replace") as f:
            for doc in yaml.load_all(f, Loader=yaml.CSafeLoader):
                if not doc or "Package" not in doc or "ID" not in doc:
                    continue
                summary = (doc.get("Summary") or {}).get("C")
                description = (doc.get("Description") or {}).get("C")
                if not summary or not description:
                    continue
                paras = [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", p)).split())
                         for p in re.split(r"</p>|</li>", description)]
                paras = [p for p in paras if p]
                query = " ".join(summary.split())
                if not paras or len(query.split()) < MIN_QUERY_WORDS:
                    continue
                document = bounded(paras)
                if len(document) >= MIN_DOCUMENT:
                    rows.append(("app:" + doc["ID"], "appstream", query, document))
    return rows


def unique(rows):
    """Rows whose query and document no other row repeats."""
    norm = lambda s: re.sub(r"\W+", " ", s.lower()).strip()
    count = {}
    for _, _, q, d in rows:
        for key in (("q", norm(q)), ("d", norm(d)[:300])):
            count[key] = count.get(key, 0) + 1
    return [r for r in rows
            if count[("q", norm(r[2]))] == 1 and count[("d", norm(r[3])[:300])] == 1]


def main(out):
    pages = [f for f in os.listdir(MANDIR)
             if f.endswith(".1.gz") and not MASS_GENERATED.match(f)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        man = [r for r in pool.map(man_row, pages) if r]
    apps, debian = appstream_rows(), debian_rows()
    print(f"usable: {len(man)} man, {len(apps)} appstream, {len(debian)} debian",
          file=sys.stderr)
    # Every man page and application first, Debian descriptions fill the rest.
    rows = unique(man + apps + debian)
    few = sorted((r for r in rows if r[1] != "debian"), key=lambda r: order(r[0]))
    many = sorted((r for r in rows if r[1] == "debian"), key=lambda r: order(r[0]))
    rows = sorted(few + many[:DOCUMENTS - len(few)], key=lambda r: order(r[0]))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with gzip.open(out, "wt", compresslevel=9) as f:
        f.write("id\tkind\tquery\tdocument\n")
        for row in rows:
            f.write("\t".join(x.replace("\t", " ").replace("\n", "\\n") for x in row) + "\n")
    kinds = {k: sum(1 for r in rows if r[1] == k) for k in ("debian", "man", "appstream")}
    print(f"{len(rows)} rows: {kinds}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/real/quality/set.tsv.gz")
