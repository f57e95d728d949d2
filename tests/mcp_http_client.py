"""Many sessions of the reference Python MCP client against `keep serve`.

Usage: mcp_http_client.py URL TOKEN SESSIONS SECONDS [PAUSE]

TOKEN is "-" for none. KEEP_TEST_CA names the CA certificate (PEM) of an
https server. Each session initializes, checks the tool list,
then for SECONDS alternates `remember` (a text of its own) and `recall`
(of a text it stored), waiting PAUSE seconds (default 0) after each pair. Prints one JSON line: errors (with the first few
messages), the number of recalls, their p50 and p95 in milliseconds, and
the id of every note whose `remember` was acknowledged.
"""

import asyncio
import json
import os
import ssl
import sys
import time

import httpx2

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

URL, TOKEN, SESSIONS, SECONDS = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
PAUSE = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
# The CA certificate an https URL's server is checked against, if any.
CA = os.environ.get("KEEP_TEST_CA")

TOOLS = {
    "remember", "recall", "get", "list", "tag", "forget", "restore", "log", "stats", "revert", "now", "move",
    "put_file", "related", "feedback", "supersede", "conflicts", "analyze",
}

WORDS = ["harbour", "lantern", "tide", "anchor", "gull", "reef", "beacon", "sail"]


async def one_session(n, out):
    headers = {} if TOKEN == "-" else {"Authorization": f"Bearer {TOKEN}"}
    client = create_mcp_http_client(headers=headers)
    if CA:
        client = httpx2.AsyncClient(headers=headers, timeout=client.timeout,
                                    verify=ssl.create_default_context(cafile=CA))
    async with client, streamable_http_client(URL, http_client=client) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            if tools != TOOLS:
                raise AssertionError(f"session {n}: tools {sorted(tools)}")
            deadline = time.monotonic() + SECONDS
            i = 0
            while time.monotonic() < deadline:
                word = WORDS[(n + i) % len(WORDS)]
                text = f"Session {n} note {i}: the {word} log of watch {n * 1000 + i}."
                result = await session.call_tool("remember", {"text": text, "tags": [f"session={n}"]})
                if result.is_error:
                    out["errors"].append(f"remember: {result.content[0].text}")
                else:
                    out["ids"].append(result.structured_content["id"])
                started = time.monotonic()
                result = await session.call_tool(
                    "recall", {"query": f"{word} log of watch {n * 1000 + i}", "limit": 5}
                )
                out["recall_ms"].append((time.monotonic() - started) * 1000)
                if result.is_error:
                    out["errors"].append(f"recall: {result.content[0].text}")
                i += 1
                await asyncio.sleep(PAUSE)


def describe(error):
    """An error and, for a task group's, the errors inside it."""
    inner = getattr(error, "exceptions", None)
    if inner:
        return "; ".join(describe(e) for e in inner)
    return f"{type(error).__name__}: {error!r}"


async def main():
    out = {"errors": [], "ids": [], "recall_ms": []}
    results = await asyncio.gather(
        *(one_session(n, out) for n in range(SESSIONS)), return_exceptions=True
    )
    for r in results:
        if isinstance(r, BaseException):
            out["errors"].append(describe(r))
    ms = sorted(out["recall_ms"])
    pick = lambda q: round(ms[min(len(ms) - 1, int(len(ms) * q))], 1) if ms else None
    print(json.dumps({
        "errors": len(out["errors"]),
        "first_errors": out["errors"][:5],
        "recalls": len(ms),
        "recall_p50_ms": pick(0.5),
        "recall_p95_ms": pick(0.95),
        "ids": out["ids"],
    }))


asyncio.run(main())
