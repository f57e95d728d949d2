#!/usr/bin/env python3
"""Labelled restatements that differ in wording alone, and the near misses
beside them. Nobody on this project wrote the texts; the labels follow from
how each pair was found.

  same       Debian changelog entries from different packages that record
             one change with every detail equal and no negation, in other
             words: another verb ("Trim" / "Remove" / "Strip trailing
             whitespace"), function words, word order, or a noun for the
             same thing ("Update the watch file" / "d/watch: update";
             "New upstream release" / "New upstream version"). Each family
             below fixes the change; an entry belongs to it only when every
             word it says is one of the family's wordings. Pairs whose
             content words are the same in another order or form are left
             out (testdata/real/facts/pairs.tsv has those), and so are the
             pairs already there.
  different  entries of two families that share a word: one wording, two
             changes ("Update the watch file" / "Update symbols files"),
             and entries of one family with another Standards-Version or
             debhelper compat level in other words.

  ./scripts/restatement-pairs.py [OUT]   (reads the installed
      /usr/share/doc/*/changelog.Debian.gz; default OUT
      testdata/real/facts/restatements.tsv)

Writes OUT: label, kind, source, a, b (tab-separated, with a header).
Selection is by a hash of each pair, so a re-run on the same system gives
the same file.
"""
import collections
import importlib.util
import itertools
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fact_pairs", os.path.join(HERE, "fact-pairs.py"))
fp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fp)

PER_FAMILY = 20

COMMON = {"the", "a", "an", "to", "of", "in", "for", "and", "as", "from", "with", "that",
          "which", "were", "was", "been", "have", "has", "are", "is", "be", "now"}
CONTROL = {"debian/control", "d/control", "control"}

# name: (what an entry must say, what it may say besides).
FAMILIES = {
    "add-uploader": (r"\b(add|added|adding)\b.*\b(myself|me)\b.*\buploaders?\b",
                     {"add", "added", "adding", "myself", "me", "uploaders", "uploader",
                      "field", "list"} | CONTROL),
    "remove-uploader": (r"\b(remove|removed|removing|drop|dropped|delete|deleted)\b.*"
                        r"\b(myself|me)\b.*\buploaders?\b",
                        {"remove", "removed", "removing", "drop", "dropped", "delete",
                         "deleted", "myself", "me", "uploaders", "uploader", "field",
                         "list"} | CONTROL),
    "trailing-whitespace": (r"\btrailing white ?spaces?\b",
                            {"trim", "trimmed", "remove", "removed", "strip", "stripped",
                             "drop", "dropped", "delete", "deleted", "trailing", "whitespace",
                             "whitespaces", "white", "space", "spaces", "clean", "cleanup",
                             "up"}),
    "patches-applied-upstream": (r"\bpatch(es)?\b.*\b(applied|merged|included|already|now)\b"
                                 r".*\bupstream\b|\bpatch(es)?\b.*\bupstreamed\b",
                                 {"drop", "dropped", "remove", "removed", "delete", "deleted",
                                  "patch", "patches", "applied", "merged", "included",
                                  "upstream", "upstreamed", "already", "by"}),
    "refresh-patches": (r"\bpatch(es)?\b",
                        {"refresh", "refreshed", "refreshing", "rebase", "rebased",
                         "rebasing", "patch", "patches", "debian/patches", "d/patches"}),
    "watch-file": (r"\bwatch",
                   {"update", "updated", "watch", "file", "watchfile", "debian/watch",
                    "d/watch"}),
    "symbols": (r"\bsymbols?\b",
                {"update", "updated", "refresh", "refreshed", "symbols", "symbol", "file",
                 "files", "debian/symbols", "d/symbols", ".symbols"}),
    "copyright-years": (r"\bcopyright\b.*\byears?\b|\byears?\b.*\bcopyright\b",
                        {"update", "updated", "bump", "bumped", "copyright", "years", "year",
                         "debian/copyright", "d/copyright", "on"}),
    "lintian-overrides": (r"\blintian\b",
                          {"update", "updated", "refresh", "refreshed", "lintian", "overrides",
                           "override", "file", "files"}),
    "new-upstream": (r"^(import(ed)? )?(a )?new upstream (release|version)",
                     {"new", "upstream", "release", "version", "import", "imported",
                      "released"}),
    "upload-unstable": (r"\bunstable\b",
                        {"upload", "uploaded", "uploading", "release", "released", "unstable"}),
    "upstream-changelog": (r"\bchangelog\b",
                           {"install", "installed", "ship", "shipped", "upstream", "changelog",
                            "file"}),
    "upstream-metadata": (r"\bmetadata\b",
                          {"add", "added", "upstream", "metadata", "file", "debian/upstream",
                           "debian/upstream/metadata", "d/upstream/metadata"}),
}


def family_of(entry):
    text = entry.lower()
    for name, (must, may) in FAMILIES.items():
        if re.search(must, text) and all(w in may or w in COMMON for w in fp.words_of(entry)):
            return name
    return None


# What both wordings of a numbered family must name, so that neither says
# more of what changed than the other ("Bump compat to 12" does not name
# debhelper).
NAMED = {
    "debhelper-compat": re.compile(r"debhelper|\bdh\b", re.I),
    "standards-version": re.compile(r"standards?[- ]version", re.I),
}


def says_what_changed(text):
    """Entries that say changes came with the new version ("Bump
    Standards-Version to 3.9.8, with changes:") state more than the
    version."""
    return re.search(r"\bwith changes\b", text, re.I) is not None


def names_the_same_files(a, b):
    """Whether each file a text names (debian/control, d/watch) is named by
    the other too, as a path or in words ("the watch file"): a pair where
    only one says which file changed differs in more than wording."""
    def files(text):
        return {t.strip(".,:;()").split("/")[-1].lower() for t in text.split()
                if "/" in t.strip("/") and "://" not in t}
    def says(text, name):
        return name in files(text) or name in {fp.stem(w) for w in fp.words_of(text)} \
            or fp.stem(name) in {fp.stem(w) for w in fp.words_of(text)}
    return all(says(b, f) for f in files(a)) and all(says(a, f) for f in files(b))


def content(text):
    return {fp.stem(w) for w in fp.words_of(text) if w not in fp.STOP}


def wording_families(entries):
    found = collections.defaultdict(dict)
    for package, entry in entries:
        if re.search(r"\d", entry):
            continue
        name = family_of(entry)
        if name:
            found[name].setdefault(entry, package)
    return found


def restatements(found, family_same, existing):
    """Pairs of one change in other words, not already labelled."""
    by_family = collections.defaultdict(list)
    for name, texts in found.items():
        for a, b in itertools.combinations(sorted(texts), 2):
            by_family[name].append((name, f"changelogs of {texts[a]}, {texts[b]}", a, b))
    for name, source, a, b in family_same:
        if NAMED[name].search(a) and NAMED[name].search(b) and \
                not says_what_changed(a) and not says_what_changed(b):
            by_family[name].append((name, source, a, b))
    pairs = []
    for name, candidates in sorted(by_family.items()):
        fresh = [p for p in candidates
                 if (p[2], p[3]) not in existing and (p[3], p[2]) not in existing
                 and content(p[2]) != content(p[3]) and names_the_same_files(p[2], p[3])]
        pairs += fp.sample(fresh, PER_FAMILY, "wording" + name)
    return pairs


def near_misses(found, family_different, existing):
    """Entries of two families that share a content word, and entries of
    one numbered family with another number."""
    pairs = []
    names = sorted(found)
    for n1, n2 in itertools.combinations(names, 2):
        candidates = []
        for a in sorted(found[n1]):
            for b in sorted(found[n2]):
                if content(a) & content(b):
                    candidates.append(("shared-word",
                                       f"changelogs of {found[n1][a]}, {found[n2][b]}", a, b))
        pairs += fp.sample(candidates, 3, "miss" + n1 + n2)
    numbered = [p for p in family_different
                if (p[2], p[3]) not in existing and (p[3], p[2]) not in existing]
    pairs += fp.sample(numbered, 40, "numbered")
    return pairs


def existing_pairs():
    path = os.path.join(HERE, "..", "testdata", "real", "facts", "pairs.tsv")
    with open(path) as f:
        return {tuple(line.rstrip("\n").split("\t")[3:5]) for line in f.readlines()[1:]}


def main(out):
    entries = fp.changelog_entries()
    existing = existing_pairs()
    numbered = fp.families(entries)
    numbered.pop("translation", None)
    numbered.pop("upstream-version", None)
    family_same, family_different = fp.family_pairs(numbered)
    same = restatements(wording_families(entries), family_same, existing)
    different = near_misses(wording_families(entries), family_different, existing)
    different = [("other-number" if k in numbered else k, s, a, b) for k, s, a, b in different]
    fp.write_pairs(out, same, different)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else
         os.path.join(HERE, "..", "testdata", "real", "facts", "restatements.tsv"))
