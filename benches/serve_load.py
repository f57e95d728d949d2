"""`keep serve` under load: MCP sessions over HTTP and command-line clients
at once, for a while; latency per operation, errors, the server's memory.

Usage: python -P benches/serve_load.py KEEP STORE [SESSIONS CLIENTS SECONDS PAUSE]

Starts `KEEP serve` on STORE (a store with real text; it gains the notes
the clients write), then for SECONDS (default 60) runs SESSIONS (default
50) sessions of the reference Python MCP client, each alternating
`remember` and `recall` with PAUSE seconds (default 1) after each pair,
and CLIENTS (default 8) command-line clients, each running `keep find`,
`keep put TEXT`, `keep get ID` and `keep list -n 20` in turn as separate
processes, without pause. Samples the server's resident memory every
half second. Prints one JSON line: per operation the count, p50 and p99
in milliseconds, the errors (with the first few), and the server's
resident memory at the start, at its peak and at the end.
"""

import asyncio
import json
import os
import subprocess
import sys
import threading
import time

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

KEEP, STORE = sys.argv[1], sys.argv[2]
SESSIONS = int(sys.argv[3]) if len(sys.argv) > 3 else 50
CLIENTS = int(sys.argv[4]) if len(sys.argv) > 4 else 8
SECONDS = float(sys.argv[5]) if len(sys.argv) > 5 else 60.0
PAUSE = float(sys.argv[6]) if len(sys.argv) > 6 else 1.0
WORDS = ["package", "archive", "mirror", "kernel", "branch", "commit", "policy", "upload"]
ENV = dict(os.environ, KEEP_STORE=STORE)

times = {}
errors = []
lock = threading.Lock()


def record(op, ms, error=None):
    with lock:
        times.setdefault(op, []).append(ms)
        if error:
            errors.append(f"{op}: {error}")


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def start_server():
    server = subprocess.Popen([KEEP, "serve", "--listen", "127.0.0.1:0"], env=ENV,
                              stderr=subprocess.PIPE, text=True)
    line = server.stderr.readline()
    url = next(w for w in line.split() if w.startswith("http://"))
    threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
    return server, url


async def one_session(n, url, deadline):
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            i = 0
            while time.monotonic() < deadline:
                word = WORDS[(n + i) % len(WORDS)]
                for op, args in (
                    ("mcp remember", {"text": f"Agent {n} noted the {word} change number {i}.",
                                      "tags": [f"agent={n}"]}),
                    ("mcp recall", {"query": f"how do I change the {word}", "limit": 5}),
                ):
                    started = time.monotonic()
                    try:
                        result = await session.call_tool(op.split()[1], args)
                        record(op, (time.monotonic() - started) * 1000,
                               result.content[0].text if result.is_error else None)
                    except Exception as e:  # the call itself failed
                        record(op, (time.monotonic() - started) * 1000, repr(e))
                i += 1
                await asyncio.sleep(PAUSE)


def cli_client(n, deadline):
    i = 0
    some_id = None
    while time.monotonic() < deadline:
        word = WORDS[(n + i) % len(WORDS)]
        commands = [
            ("cli find", ["find", f"{word} configuration", "--ids", "-n", "5"]),
            ("cli put", ["put", f"Client {n} wrote note {i} about the {word}."]),
            ("cli get", ["get", some_id] if some_id else ["list", "-n", "1", "--ids"]),
            ("cli list", ["list", "-n", "20"]),
        ]
        for op, args in commands:
            started = time.monotonic()
            out = subprocess.run([KEEP] + args, env=ENV, capture_output=True, text=True)
            ms = (time.monotonic() - started) * 1000
            if op == "cli put" and out.returncode == 0:
                some_id = out.stdout.strip() or some_id
            record(op, ms, out.stderr.strip() if out.returncode not in (0, 3) else None)
        i += 1


def main():
    server, url = start_server()
    rss = {"start": rss_mb(server.pid), "peak": 0.0}
    deadline = time.monotonic() + SECONDS
    done = threading.Event()

    def sample():
        while not done.is_set():
            rss["peak"] = max(rss["peak"], rss_mb(server.pid))
            time.sleep(0.5)

    threading.Thread(target=sample, daemon=True).start()
    clients = [threading.Thread(target=cli_client, args=(n, deadline)) for n in range(CLIENTS)]
    for c in clients:
        c.start()

    async def sessions():
        results = await asyncio.gather(*(one_session(n, url, deadline) for n in range(SESSIONS)),
                                       return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException):
                errors.append(f"session: {r!r}")

    asyncio.run(sessions())
    for c in clients:
        c.join()
    done.set()
    rss["end"] = rss_mb(server.pid)
    server.terminate()
    server.wait()

    def pick(ms, q):
        return round(ms[min(len(ms) - 1, int(len(ms) * q))], 1)

    print(json.dumps({
        "sessions": SESSIONS, "clients": CLIENTS, "seconds": SECONDS, "pause": PAUSE,
        "operations": {op: {"count": len(ms), "p50_ms": pick(sorted(ms), 0.5),
                            "p99_ms": pick(sorted(ms), 0.99)}
                       for op, ms in sorted(times.items())},
        "errors": len(errors), "first_errors": errors[:5],
        "server_rss_mb": {k: round(v, 1) for k, v in rss.items()},
    }))


main()
