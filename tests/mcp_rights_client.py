"""One session of the reference Python MCP client against `keep serve`,
calling every tool it is given and reading a resource, to see what a token
may do.

Usage: mcp_rights_client.py URL TOKEN CALLS

TOKEN is "-" for none. CALLS is a JSON object: tool name -> arguments.
Prints one JSON line: "http" (the status when the server refused the
session), "tools" (the names tools/list offers), "calls" (per tool:
"error" and the first text of its answer), and "resource" (reading
keep://note/ID for the id in the environment variable NOTE, if set:
"error" or "text").
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

URL, TOKEN, CALLS = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])


async def main():
    out = {"http": 200, "tools": [], "calls": {}, "resource": None}
    headers = {} if TOKEN == "-" else {"Authorization": f"Bearer {TOKEN}"}
    client = create_mcp_http_client(headers=headers)
    refusals = []

    async def note_refusal(response):
        if response.status_code >= 400:
            refusals.append(response.status_code)

    client.event_hooks = {"request": [], "response": [note_refusal]}
    try:
        async with client, streamable_http_client(URL, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                out["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
                for name, args in CALLS.items():
                    result = await session.call_tool(name, args)
                    text = result.content[0].text if result.content and hasattr(result.content[0], "text") else ""
                    out["calls"][name] = {"error": bool(result.is_error), "text": text}
                note = os.environ.get("NOTE")
                if note:
                    try:
                        read_back = await session.read_resource(f"keep://note/{note}")
                        out["resource"] = {"text": read_back.contents[0].text}
                    except Exception as e:  # the server's refusal, as the client sees it
                        out["resource"] = {"error": str(e)}
    except BaseException:  # an HTTP refusal ends the session
        if not refusals:
            raise
        out["http"] = refusals[0]
    print(json.dumps(out))


asyncio.run(main())
