#!/usr/bin/env python3
"""Labelled pairs of short real texts: restatements of one fact, and near
misses that read alike but state different facts. Nobody on this project
wrote the texts; the labels follow from how each pair was found.

  same       Debian changelog entries from different packages or releases
             that record the same change in other words: the same
             Standards-Version, the same debhelper compat level, the same
             upstream version, the same language's translation update, or
             the same content words in another order or inflection
             ("Trim trailing whitespace" / "Trailing whitespace trimmed").
  different  pairs that differ in one detail: changelog entries of one
             family with another version, level or language; Debian package
             descriptions identical but for one word (a version, an
             architecture, a name, a format: "Live Systems Documentation
             (html)" / "(pdf)"); changelog entries identical but for a
             word and its opposite (add/remove, enable/disable,
             with/without).

Bug-closing references ("(Closes: #123)", "(LP: #1)") are removed from
changelog entries first: they point at a report, they are not the fact.

  ./scripts/fact-pairs.py [OUT]   (reads /usr/share/doc/*/changelog.Debian.gz
                                   and `apt-cache dumpavail`; default OUT
                                   testdata/real/facts/pairs.tsv)

Writes OUT: label, kind, source, a, b (tab-separated, with a header).
Selection is by a hash of each pair, so a re-run on the same system gives
the same file.
"""
import collections
import glob
import gzip
import hashlib
import itertools
import os
import re
import subprocess
import sys

PER_KIND = 45


def order(*parts):
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def clean(entry):
    entry = re.sub(r"\s*\((?:closes|lp|thanks)\b[^)]*\)", "", entry, flags=re.I)
    entry = re.sub(r"\s*\bcloses:\s*#?\d+(?:,\s*#?\d+)*", "", entry, flags=re.I)
    entry = re.sub(r"^\[[0-9a-f]{7,}\]\s*", "", entry)
    return " ".join(entry.split()).strip(" ,;")


def changelog_entries():
    """(package, entry) for every bullet of every installed changelog."""
    found = []
    for path in sorted(glob.glob("/usr/share/doc/*/changelog.Debian.gz")):
        package = path.split("/")[4]
        try:
            with gzip.open(path, "rt", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        current = None
        for line in text.split("\n"):
            bullet = re.match(r"^\s{2,6}[*+-] (.*)$", line)
            if bullet:
                if current:
                    found.append((package, current))
                current = bullet.group(1).strip()
            elif current is not None and re.match(r"^\s{4,}\S", line):
                current += " " + line.strip()
            elif current:
                found.append((package, current))
                current = None
    return [(p, clean(e)) for p, e in found if 2 <= len(clean(e).split()) <= 14]


# A family: entries that say one kind of thing and nothing else. `key`
# finds the detail that tells one fact of the family from another; once it
# is taken out, every word left must be one of `words`.
FILLER = {"the", "to", "a", "of", "in", "no", "changes", "change", "needed", "required",
          "necessary", "further", "other", "additional", "from", "for", "and"}
FAMILIES = {
    "standards-version": (
        re.compile(r"\b(\d+\.\d+\.\d+(?:\.\d+)?)\b"),
        FILLER | {"bump", "bumped", "update", "updated", "upgrade", "raise", "standards",
                  "standard", "version", "standards-version", "policy", "debian/control",
                  "d/control", "control", "compliance", "conform", "with", "is", "set"},
        re.compile(r"standards?[- ]?version|policy", re.I),
    ),
    "debhelper-compat": (
        re.compile(r"\b(\d{1,2})\b"),
        FILLER | {"bump", "bumped", "update", "updated", "upgrade", "raise", "debhelper",
                  "compat", "compatibility", "level", "version", "debhelper-compat", "use",
                  "switch", "move", "build-depend", "build-depends", "on", "dh", "debian/compat",
                  "=", "d/compat", "move", "migrate"},
        re.compile(r"debhelper|compat", re.I),
    ),
    "upstream-version": (
        re.compile(r"\bv?(\d+(?:\.\d+)+(?:[~+-][0-9a-z.]+)?)\b", re.I),
        FILLER | {"new", "upstream", "release", "version", "imported", "import", "update",
                  "updated", "bump", "stable", "bugfix", "point", "maintenance", "minor"},
        re.compile(r"upstream", re.I),
    ),
}
LANGUAGES = ["Danish", "German", "French", "Spanish", "Swedish", "Portuguese", "Dutch",
             "Russian", "Japanese", "Italian", "Czech", "Polish", "Turkish", "Vietnamese",
             "Basque", "Galician", "Finnish", "Catalan", "Slovak", "Romanian", "Norwegian",
             "Ukrainian", "Chinese", "Korean", "Indonesian", "Greek", "Hebrew", "Arabic",
             "Esperanto", "Brazilian"]
TRANSLATION_WORDS = FILLER | {"update", "updated", "updates", "add", "added", "new", "debconf",
                              "templates", "template", "translation", "translations", "po",
                              "file", "man", "page", "manpage", "program", "messages"}


def words_of(text):
    return [w for w in re.split(r"[\s,.:;()\"'!]+", text.lower()) if w]


def families(entries):
    """{family: {key: {entry: package}}} of entries that say only their fact."""
    found = collections.defaultdict(lambda: collections.defaultdict(dict))
    for package, entry in entries:
        for name, (key_rx, allowed, topic) in FAMILIES.items():
            if not topic.search(entry):
                continue
            keys = key_rx.findall(entry)
            if len(set(keys)) != 1:
                continue
            rest = key_rx.sub(" ", entry)
            if all(w in allowed for w in words_of(rest)):
                found[name][keys[0].lower().lstrip("v")].setdefault(entry, package)
        langs = [l for l in LANGUAGES if re.search(rf"\b{l}\b", entry, re.I)]
        if len(langs) == 1 and re.search(r"translation", entry, re.I):
            rest = re.sub(rf"\b{langs[0]}\b", " ", entry, flags=re.I)
            if all(w in TRANSLATION_WORDS for w in words_of(rest)):
                kind = "debconf" if "debconf" in entry.lower() else (
                    "man" if re.search(r"man ?page", entry, re.I) else "plain")
                verb = "add" if re.search(r"\b(add|added|new)\b", entry, re.I) else "update"
                found["translation"][f"{langs[0]}/{kind}/{verb}"].setdefault(entry, package)
    return found


# What both wordings of a restatement must name, so that telling them
# alike takes no knowledge of Debian ("policy" is the Standards-Version).
NAMED = {
    "standards-version": re.compile(r"standards?[- ]version", re.I),
    "debhelper-compat": re.compile(r"compat", re.I),
    "upstream-version": re.compile(r"upstream", re.I),
    "translation": re.compile(r"translation", re.I),
}


def family_pairs(found):
    same, different = [], []
    for name, by_key in sorted(found.items()):
        for key, texts in sorted(by_key.items()):
            wordings = sorted(t for t in texts if NAMED[name].search(t))
            for a, b in itertools.combinations(wordings, 2):
                if norm(a) != norm(b):
                    same.append((name, f"changelogs of {texts[a]}, {texts[b]}", a, b))
        keys = sorted(by_key)
        for k1, k2 in itertools.combinations(keys, 2):
            if name == "translation" and k1.split("/")[1:] != k2.split("/")[1:]:
                continue
            t1, t2 = sorted(by_key[k1]), sorted(by_key[k2])
            a = min(t1, key=lambda t: order(t, k2))
            b = min(t2, key=lambda t: order(t, k1))
            different.append((name, f"changelogs of {by_key[k1][a]}, {by_key[k2][b]}", a, b))
    return same, different


def same_detail_pairs(found):
    """Entries of two families that name the same number: one detail in
    common, two different facts ("Bump debhelper compat to 12" / "New
    upstream release 12")."""
    by_key = collections.defaultdict(list)
    for name, keys in found.items():
        if name == "translation":
            continue
        for key, texts in keys.items():
            for text, package in texts.items():
                by_key[key].append((name, text, package))
    pairs = []
    for key, items in sorted(by_key.items()):
        for (n1, a, pa), (n2, b, pb) in itertools.combinations(sorted(items), 2):
            if n1 != n2:
                pairs.append(("same-number", f"changelogs of {pa}, {pb}", a, b))
    return pairs


def norm(text):
    return " ".join(words_of(text))


STOP = {"the", "a", "an", "to", "of", "in", "for", "and", "on", "with", "from", "is", "be",
        "as", "by", "at", "it", "its", "this", "that", "are", "was", "were", "into"}


def stem(word):
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_key(text):
    return tuple(sorted({stem(w) for w in words_of(text) if w not in STOP}))


def reworded_pairs(entries):
    """Entries with the same content words in another order or form."""
    by_key = collections.defaultdict(dict)
    for package, entry in entries:
        key = content_key(entry)
        if len(key) >= 3 and not re.search(r"\d", entry):
            by_key[key].setdefault(entry, package)
    pairs = []
    for key, texts in by_key.items():
        wordings = sorted(texts)
        for a, b in itertools.combinations(wordings, 2):
            if words_of(a) != words_of(b) and sorted(words_of(a)) != words_of(b):
                if [stem(w) for w in words_of(a)] == [stem(w) for w in words_of(b)] and \
                        a.lower().replace("-", " ") == b.lower().replace("-", " "):
                    continue
                pairs.append(("reworded", f"changelogs of {texts[a]}, {texts[b]}", a, b))
    return pairs


OPPOSITES = [("add", "remove"), ("added", "removed"), ("enable", "disable"),
             ("enabled", "disabled"), ("with", "without"), ("allow", "disallow"),
             ("install", "uninstall"), ("start", "stop"), ("include", "exclude"),
             ("build", "don't build")]


def opposite_pairs(entries):
    """Entries identical but for a word and its opposite."""
    shapes = collections.defaultdict(dict)
    for package, entry in entries:
        tokens = entry.split()
        for i, token in enumerate(tokens):
            for x, y in OPPOSITES:
                if token.lower() in (x, y):
                    context = " ".join(tokens[:i]).lower() + " _ " + " ".join(tokens[i + 1:]).lower()
                    shapes[(x, context)].setdefault(token.lower(), (entry, package))
    pairs = []
    for (x, _), forms in sorted(shapes.items()):
        if len(forms) == 2:
            (a, pa), (b, pb) = sorted(forms.values())
            pairs.append(("opposite", f"changelogs of {pa}, {pb}", a, b))
    return pairs


def descriptions():
    out = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True,
                         errors="replace", check=True).stdout
    found = {}
    for block in out.split("\n\n"):
        name = re.search(r"^Package: (\S+)$", block, re.M)
        desc = re.search(r"^Description(?:-en)?: (.+)$", block, re.M)
        if name and desc:
            found.setdefault(desc.group(1).strip(), name.group(1))
    return found


def token_kind(token):
    if re.search(r"\d", token):
        return "number"
    if token[:1].isupper():
        return "name"
    return "word"


def description_pairs(descs):
    """Package descriptions identical but for one token, by the kind of
    token that differs."""
    masked = collections.defaultdict(list)
    for text in sorted(descs):
        tokens = text.split()
        if not 3 <= len(tokens) <= 14:
            continue
        for i in range(len(tokens)):
            masked[(i, " ".join(tokens[:i] + ["_"] + tokens[i + 1:]))].append((tokens[i], text))
    by_kind = collections.defaultdict(list)
    seen = set()
    for _, group in sorted(masked.items()):
        for (ta, a), (tb, b) in itertools.combinations(group[:8], 2):
            if ta.lower() == tb.lower() or (a, b) in seen:
                continue
            seen.add((a, b))
            ka, kb = token_kind(ta), token_kind(tb)
            kind = ka if ka == kb else "mixed"
            by_kind[f"description-{kind}"].append(
                (f"description-{kind}", f"packages {descs[a]}, {descs[b]}", a, b))
    return by_kind


def sample(pairs, n, salt):
    return sorted(pairs, key=lambda p: order(salt, p[2], p[3]))[:n]


def main(out):
    entries = changelog_entries()
    found = families(entries)
    same_fam, diff_fam = family_pairs(found)
    same, different = [], []
    for name in sorted({p[0] for p in same_fam}):
        same += sample([p for p in same_fam if p[0] == name], PER_KIND, "same" + name)
    same += sample(reworded_pairs(entries), PER_KIND * 2, "reworded")
    for name in sorted({p[0] for p in diff_fam}):
        different += sample([p for p in diff_fam if p[0] == name], PER_KIND, "diff" + name)
    different += sample(same_detail_pairs(found), PER_KIND, "same-number")
    different += opposite_pairs(entries)
    for kind, pairs in sorted(description_pairs(descriptions()).items()):
        different += sample(pairs, PER_KIND, kind)
    write_pairs(out, same, different)


def write_pairs(out, same, different):
    """Writes the labelled pairs as TSV with a header; prints the counts."""
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("label\tkind\tsource\ta\tb\n")
        for label, pairs in (("same", same), ("different", different)):
            for kind, source, a, b in pairs:
                f.write(f"{label}\t{kind}\t{source}\t{a}\t{b}\n")
    counts = collections.Counter((label, p[0]) for label, ps in
                                 (("same", same), ("different", different)) for p in ps)
    for (label, kind), n in sorted(counts.items()):
        print(f"{label:9} {kind:26} {n}")
    print(f"{len(same)} same, {len(different)} different")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "testdata/real/facts/pairs.tsv")
