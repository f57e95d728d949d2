#!/usr/bin/env python3
"""The workspace as published crates: `cargo package --workspace` (the
manifests, versions and include lists; --no-verify, since CI has built
the same sources already), then, in each .crate, every file that a
non-test `include_str!` or `include_bytes!` names must be inside the
crate, each crate carries its LICENSE, and keep carries Cargo.lock (what
`cargo install --locked keep` builds from).

    scripts/crates-check.py [--allow-dirty]
"""

import pathlib
import posixpath
import re
import subprocess
import sys
import tarfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
INCLUDE = re.compile(r'include_(?:str|bytes)!\(\s*"([^"]+)"\s*\)')


def package(allow_dirty):
    command = ["cargo", "package", "--workspace", "--no-verify", "--locked", "--quiet"]
    if allow_dirty:
        command.append("--allow-dirty")
    subprocess.run(command, cwd=ROOT, check=True)


def non_test_includes(text):
    """The paths included before the file's first #[cfg(test)]."""
    head = text.split("#[cfg(test)]", 1)[0]
    return INCLUDE.findall(head)


def problems_of(crate_file):
    found = []
    with tarfile.open(crate_file) as tar:
        names = set(tar.getnames())
        top = crate_file.name[: -len(".crate")]
        if f"{top}/LICENSE" not in names:
            found.append(f"{crate_file.name}: no LICENSE")
        if top.startswith("keep-0") and f"{top}/Cargo.lock" not in names:
            found.append(f"{crate_file.name}: no Cargo.lock")
        for name in sorted(names):
            if not name.endswith(".rs"):
                continue
            text = tar.extractfile(name).read().decode("utf-8")
            for path in non_test_includes(text):
                target = posixpath.normpath(posixpath.join(posixpath.dirname(name), path))
                if target not in names:
                    found.append(f"{name}: includes {path}, which is not in the crate")
    return found


def main():
    package("--allow-dirty" in sys.argv[1:])
    crates = sorted((ROOT / "target" / "package").glob("keep*-0*.crate"))
    if len(crates) != 6:
        sys.exit(f"crates: expected the 6 crates of the workspace, found {len(crates)}")
    problems = [p for crate in crates for p in problems_of(crate)]
    for p in problems:
        print(f"crates: {p}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"crates: {len(crates)} crates package, each whole: "
          + ", ".join(c.name for c in crates))


if __name__ == "__main__":
    main()
