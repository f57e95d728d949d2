#!/usr/bin/env python3
"""How man pages read once put: a survey of the summaries keep makes for
every page of a folder of manual pages.

  ./scripts/man-survey.py KEEP [FOLDER]     (FOLDER: /usr/share/man/man1)

Puts FOLDER into a new store in a temporary folder with no model (keyword
only, as fast as put goes), exports it, and counts:

  pages              notes made
  option letters     summaries showing an option letter without its dash:
                     a lone letter X, where the page has the option -X,
                     opening the summary or a sentence or clause of it and
                     followed by a lower-case word or by ", --" (as "c with
                     -lt: sort by ..." or "G, --no-group"); the article
                     "a" and the pronoun "I" are not counted
  opening sentence   summaries that begin with the first sentence of the
                     page's DESCRIPTION section (read from its part text)

and prints a few summaries of each kind. A rough count by pattern: it
says where to look, not what a reader thinks.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

LONE_LETTER = re.compile(r"(?:^|[.;:!?]\s+|—\s+)([B-HJ-Zb-z0-9])(?:,\s+--|\s+[a-z])")
OPTION = re.compile(r"(?<![\w-])-([A-Za-z0-9])\b")


def put_and_export(keep, folder, workdir):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KEEP_")}
    env.update(
        KEEP_STORE=os.path.join(workdir, "store"),
        KEEP_DATA_DIR=os.path.join(workdir, "no-models"),
        KEEP_CONFIG=os.path.join(workdir, "config.toml"),
        KEEP_BACKGROUND_EMBED="0",
    )
    started = time.monotonic()
    put = subprocess.run(
        [keep, "put", folder, "-r"], env=env, capture_output=True, text=True
    )
    took = time.monotonic() - started
    if put.returncode not in (0, 1):
        sys.exit(f"man-survey: keep put failed ({put.returncode}): {put.stderr.strip()}")
    export = subprocess.run(
        [keep, "export", "-", "--no-vectors"], env=env, capture_output=True, text=True
    )
    if export.returncode != 0:
        sys.exit(f"man-survey: keep export failed: {export.stderr.strip()}")
    notes = []
    for line in export.stdout.splitlines():
        record = json.loads(line)
        if "id" in record and "summary" in record:
            notes.append(record)
    return notes, took


def part_texts(note):
    return "\n".join(p.get("summary", "") for p in note.get("parts", []))


def description_opening(text):
    """The first sentence after a "## Description" heading."""
    m = re.search(r"^## Description\s*\n+(.+?[.!?])(?:\s|$)", text, re.M | re.S)
    if not m:
        return None
    return " ".join(m.group(1).split())


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    keep = sys.argv[1]
    folder = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/man/man1"
    with tempfile.TemporaryDirectory() as workdir:
        notes, took = put_and_export(keep, folder, workdir)
    lettered, opening, with_description = [], [], 0
    for note in notes:
        summary = note["summary"]
        text = part_texts(note) or summary
        options = set(OPTION.findall(text))
        if any(m.group(1) in options for m in LONE_LETTER.finditer(summary)):
            lettered.append(note)
        first = description_opening(text)
        if first:
            with_description += 1
            if " ".join(summary.split()).startswith(first):
                opening.append(note)
    print(f"pages              {len(notes)} (put in {took:.0f} s)")
    print(f"option letters     {len(lettered)} summaries")
    print(
        f"opening sentence   {len(opening)} of the {with_description} pages "
        "whose DESCRIPTION opens with a sentence"
    )
    for note in lettered[:5]:
        print(f"  lettered: {note['id']}: {note['summary'][:160]}")
    for note in opening[:3]:
        print(f"  opening:  {note['id']}: {note['summary'][:160]}")


if __name__ == "__main__":
    main()
