"""The web page of keep serve: how soon a search's results are painted.

Usage: python3 -P benches/web_page.py KEEP [NOTES QUERIES]

Fills a new store with NOTES (default 10,000) Debian package descriptions
(`apt-cache dumpavail`: real text) through `keep import`, gives them their
vectors (`keep reindex`), starts `KEEP serve` and opens its page in
headless Chromium (scripts/cdp.py). For QUERIES (default 30) stored
packages' short descriptions it measures, from the browser's own
performance entries:

- a page opened at `/?q=QUERY`: navigation start to the first contentful
  paint (the results are in the HTML), and to the response's end;
- a search typed into the open page: the input event to the results
  painted (the page's `keep:results` mark, set after they are in the
  document, then the next animation frame).

Prints the median and p90 of each in milliseconds, and keep serve's peak
resident memory.
"""

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from urllib.parse import quote_plus

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
from cdp import Chromium  # noqa: E402
from bench_support import packages, start_server  # noqa: E402

KEEP = os.path.abspath(sys.argv[1])
NOTES = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
QUERIES = int(sys.argv[3]) if len(sys.argv) > 3 else 30


def export_file(found, path):
    stamp = "2026-11-01T10:00:00.000Z"
    with open(path, "w") as out:
        out.write(json.dumps({"format": "keep-export", "version": 4}) + "\n")
        for name, short, body, section in sorted(found):
            out.write(json.dumps({
                "id": name, "summary": f"{short}. {body}", "tags": {"section": [section]},
                "content_hash": None, "created": stamp, "updated": stamp, "accessed": stamp,
                "versions": [], "parts": [],
            }) + "\n")


def peak_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    found = packages(NOTES)
    store = tempfile.mkdtemp(prefix="keep-web-bench-")
    env = dict(os.environ, KEEP_STORE=store, KEEP_CONFIG=os.path.join(store, "none.toml"), KEEP_BACKGROUND_EMBED="0")
    export = os.path.join(store, "notes.jsonl")
    export_file(found, export)
    subprocess.run([KEEP, "import", export], env=env, check=True, capture_output=True)
    t = time.monotonic()
    subprocess.run([KEEP, "reindex"], env=env, check=True, capture_output=True)
    print(f"store: {len(found)} notes, vectors made in {time.monotonic() - t:.0f} s", flush=True)
    server, base, _ = start_server(KEEP, env)
    try:
        rng = random.Random(7)
        queries = [short for _, short, _, _ in rng.sample(found, QUERIES)]
        paint, response, typed = [], [], []
        with Chromium(1200, 900) as browser:
            browser.open(base + "/?q=warm+up")
            for query in queries:
                browser.open(base + "/?q=" + quote_plus(query))
                browser.wait_for("performance.getEntriesByName('first-contentful-paint').length")
                paint.append(browser.eval("performance.getEntriesByName('first-contentful-paint')[0].startTime"))
                response.append(browser.eval("performance.getEntriesByType('navigation')[0].responseEnd"))
            browser.open(base + "/")
            for query in queries:
                took = browser.eval("""new Promise(done => {
                    const q = document.getElementById('q');
                    performance.clearMarks('keep:results');
                    const start = performance.now();
                    const seen = new PerformanceObserver(list => {
                        if (list.getEntriesByName('keep:results').length) {
                            seen.disconnect();
                            requestAnimationFrame(() => done(performance.now() - start));
                        }
                    });
                    seen.observe({ entryTypes: ['mark'] });
                    q.value = %s;
                    q.dispatchEvent(new Event('input', { bubbles: true }));
                })""" % json.dumps(query))
                typed.append(took)
        rows = [("page opened at /?q=: first contentful paint", paint),
                ("page opened at /?q=: response end", response),
                ("typed search: input to results painted (120 ms pause included)", typed)]
        print(f"| {len(found)} notes, {QUERIES} queries | median ms | p90 ms |")
        print("|---|---|---|")
        for label, values in rows:
            print(f"| {label} | {statistics.median(values):.1f} | {pct(values, 90):.1f} |")
        print(f"keep serve peak memory: {peak_kib(server.pid) / 1024:.0f} MB")
    finally:
        server.terminate()
        server.wait()
        subprocess.run(["rm", "-rf", store])


if __name__ == "__main__":
    main()
