"""One session of the reference Python MCP client against `keep serve`,
calling every tool it is given and reading a resource, to see what a token
may do.

Usage: mcp_rights_client.py URL TOKEN CALLS

TOKEN is "-" for none. CALLS is a JSON object (tool name -> arguments) or
a list of [label, tool name, arguments]. Prints one JSON line: "http" (the
status when the server refused the session), "tools" (the names
tools/list offers), "schemas" (each tool's input schema), "calls" (per
tool or label: "error" and the first text of its answer), "resource"
(reading keep://note/ID for the id in the environment variable NOTE, if
set: "error" or "text"), and with NOTE also "now" (keep://now), "prompt"
(the text of each prompt listed) and "completion" (the ids offered for
keep://note/{id} after the first two letters of NOTE).
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession
from mcp.types import ResourceTemplateReference
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

URL, TOKEN, CALLS = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])


async def read_text(session, uri):
    """A resource's text, or the server's refusal as the client sees it."""
    try:
        read_back = await session.read_resource(uri)
        return {"text": read_back.contents[0].text}
    except Exception as e:
        return {"error": str(e)}


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
                tools = (await session.list_tools()).tools
                out["tools"] = sorted(t.name for t in tools)
                out["schemas"] = {t.name: t.input_schema for t in tools}
                calls = CALLS.items() if isinstance(CALLS, dict) else [(label, (name, args)) for label, name, args in CALLS]
                for label, call in calls:
                    name, args = call if isinstance(call, tuple) else (label, call)
                    result = await session.call_tool(name, args)
                    text = " ".join(c.text for c in result.content if hasattr(c, "text"))
                    if result.structured_content is not None:
                        text += json.dumps(result.structured_content)
                    out["calls"][label] = {"error": bool(result.is_error), "text": text}
                note = os.environ.get("NOTE")
                if note:
                    out["resource"] = await read_text(session, f"keep://note/{note}")
                    out["now"] = await read_text(session, "keep://now")
                    out["prompt"] = {}
                    for prompt in (await session.list_prompts()).prompts:
                        try:
                            got = await session.get_prompt(prompt.name, {})
                            out["prompt"][prompt.name] = " ".join(
                                m.content.text for m in got.messages if hasattr(m.content, "text"))
                        except Exception as e:
                            out["prompt"][prompt.name] = f"error: {e}"
                    try:
                        done = await session.complete(
                            ResourceTemplateReference(type="ref/resource", uri="keep://note/{id}"),
                            {"name": "id", "value": note[:2]})
                        out["completion"] = done.completion.values
                    except Exception as e:
                        out["completion"] = [f"error: {e}"]
    except BaseException:  # an HTTP refusal ends the session
        if not refusals:
            raise
        out["http"] = refusals[0]
    print(json.dumps(out))


asyncio.run(main())
