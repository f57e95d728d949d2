"""Screenshots of keep serve's web page for the docs.

Usage: python3 -P scripts/web-screenshots.py KEEP [OUT_DIR]

Fills a new store in a temporary folder with the real documents of
testdata/real (HTML manuals and references) and a few notes with tags,
edges, versions and a conflict, starts `KEEP serve` on a free loopback
port, and saves PNGs of the main views in OUT_DIR (default docs/web):
find, a note, its graph, the log, stats and conflicts at 1200 pixels,
and find at a phone's 390. Needs chromium and the embedding model.
"""

import glob
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Chromium  # noqa: E402
from bench_support import start_server  # noqa: E402

KEEP = os.path.abspath(sys.argv[1])
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else os.path.join(REPO, "docs", "web")


def keep(env, *args, stdin=None):
    return subprocess.run([KEEP, *args], env=env, input=stdin, capture_output=True, text=True, check=True).stdout


def main():
    os.makedirs(OUT, exist_ok=True)
    store = tempfile.mkdtemp(prefix="keep-shots-")
    env = dict(os.environ, KEEP_STORE=store, KEEP_CONFIG=os.path.join(store, "none.toml"), KEEP_BACKGROUND_EMBED="0")
    for path in sorted(glob.glob(os.path.join(REPO, "testdata", "real", "*.html"))):
        keep(env, "put", path, "--tag", "kind=manual")
    keep(env, "put", "The lighthouse keeper polishes the brass lantern every evening before dusk.",
         "--id", "lighthouse", "--tag", "author=ana", "--tag", "topic=coast")
    keep(env, "put", "Tide tables list the heights of the sea along the coast.", "--id", "tides", "--tag", "topic=coast")
    keep(env, "put", "Ana keeps the harbour's logbook and the lighthouse rota.", "--id", "ana", "--tag", "role=keeper")
    keep(env, "tag", "lighthouse", "--tag", "reviewed=yes")
    keep(env, "put", "The office Wi-Fi password is BlueOtter-7731", "--id", "wifi", "--tag", "topic=office")
    keep(env, "put", "The office Wi-Fi password is GreenHeron-2288", "--tag", "topic=office")
    keep(env, "reindex")
    server, base, _ = start_server(KEEP, env)
    try:
        sqlite = "file://" + os.path.join(REPO, "testdata", "real", "sqlite-about.html")
        views = [
            ("find", "/?q=" + "how+is+the+lantern+looked+after"),
            ("note", "/note/" + urlencode(sqlite)),
            ("note-versions", "/note/lighthouse"),
            ("graph", "/graph/lighthouse?hops=2"),
            ("log", "/log"),
            ("stats", "/stats"),
            ("conflicts", "/conflicts"),
        ]
        with Chromium(1200, 900) as browser:
            for name, path in views:
                browser.open(base + path)
                time.sleep(0.2)
                browser.screenshot(os.path.join(OUT, f"{name}.png"))
                print(f"saved {name}.png")
            browser.resize(390, 844)
            browser.open(base + "/?q=" + "sqlite+license")
            time.sleep(0.2)
            browser.screenshot(os.path.join(OUT, "find-phone.png"))
            print("saved find-phone.png")
    finally:
        server.terminate()
        server.wait()
        subprocess.run(["rm", "-rf", store])


def urlencode(text):
    from urllib.parse import quote
    return quote(text, safe="")


if __name__ == "__main__":
    main()
