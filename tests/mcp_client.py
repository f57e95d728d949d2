"""End-to-end check of `keep mcp` with the reference Python MCP client.

Usage: mcp_client.py KEEP_BINARY ALLOWED_DIR OUTSIDE_FILE

The store, model and runtime come from the environment (KEEP_STORE,
KEEP_MODEL_DIR, KEEP_ORT_LIB). Exits non-zero with a message on the first
failed expectation; prints one JSON line of timings on success.
"""

import asyncio
import json
import os
import sys
import time
import urllib.parse

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

KEEP, ALLOWED, OUTSIDE = sys.argv[1], sys.argv[2], sys.argv[3]

TOOLS = {
    "remember": (False, False),
    "recall": (True, False),
    "get": (True, False),
    "list": (True, False),
    "tag": (False, False),
    "forget": (False, True),
    "revert": (False, True),
    "now": (False, False),
    "put_file": (False, False),
    "related": (True, False),
}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def params(*extra):
    return StdioServerParameters(
        command=KEEP, args=["mcp", *extra], env=dict(os.environ)
    )


async def ok(session, name, args):
    result = await session.call_tool(name, args)
    check(not result.is_error, f"{name}({args}) failed: {result.content}")
    check(result.structured_content is not None, f"{name}: no structured content")
    text = json.loads(result.content[0].text)
    check(text == result.structured_content, f"{name}: text and structured content differ")
    return result.structured_content


async def tool_error(session, name, args, words):
    result = await session.call_tool(name, args)
    check(result.is_error, f"{name}({args}) should fail")
    message = result.content[0].text
    check("\n" not in message.strip(), f"{name}: error is not one line: {message!r}")
    check(words in message, f"{name}: error {message!r} lacks {words!r}")


async def protocol_error(session, name, args, code=-32602):
    try:
        await session.call_tool(name, args)
    except MCPError as e:
        check(e.error.code == code, f"{name}({args}): code {e.error.code}, want {code}")
        return
    raise AssertionError(f"{name}({args}) should be a protocol error")


async def handshake_and_tools(session):
    tools = (await session.list_tools()).tools
    names = {t.name for t in tools}
    check(names == set(TOOLS), f"tools: {sorted(names)}")
    for t in tools:
        read_only, destructive = TOOLS[t.name]
        check(t.description and len(t.description) > 40, f"{t.name}: short description")
        check(t.input_schema.get("type") == "object", f"{t.name}: input schema")
        check(t.output_schema and t.output_schema.get("type") == "object", f"{t.name}: output schema")
        a = t.annotations
        check(a.read_only_hint is read_only, f"{t.name}: readOnlyHint")
        check(a.destructive_hint is destructive, f"{t.name}: destructiveHint")
        check(a.idempotent_hint is not None, f"{t.name}: idempotentHint")
    recall = next(t for t in tools if t.name == "recall")
    props = recall.input_schema["properties"]
    check({"query", "tags", "since", "limit", "deep", "format"} <= set(props), "recall schema")


async def remember_and_recall(session):
    cat = await ok(session, "remember", {"text": "The cat sits on the mat.", "tags": ["topic=pets"]})
    check(cat["status"] == "created" and cat["id"].startswith("%"), f"remember: {cat}")
    again = await ok(session, "remember", {"text": "The cat sits on the mat."})
    check(again["status"] == "unchanged", f"remember twice: {again}")
    db = await ok(session, "remember", {
        "id": "decision/db",
        "text": "We chose SQLite with full-text search for storage.",
        "tags": ["project=keep", "type=decision"],
    })
    check(db == {"id": "decision/db", "status": "created"}, f"remember named: {db}")
    await ok(session, "remember", {"text": "Quarterly tax forms are due in April.", "tags": ["topic=admin"]})
    await tool_error(session, "remember", {"text": "x", "tags": ["_source=me"]}, "_")
    await tool_error(session, "remember", {"text": "   "}, "empty")
    await tool_error(session, "remember", {"text": "x", "id": "bad\u0001id"}, "control")
    await tool_error(session, "remember", {"text": 42}, "invalid arguments for remember: invalid type: integer")
    await tool_error(session, "remember", {"txt": "typo"}, "unknown field `txt`")

    found = await ok(session, "recall", {"query": "a kitten resting on a rug"})
    check(found["notes"] and found["notes"][0]["id"] == cat["id"], f"semantic recall: {found}")
    check("score" in found["notes"][0] and "summary" in found["notes"][0], "brief hit fields")
    ids = await ok(session, "recall", {"query": "storage database", "format": "ids"})
    check(ids["ids"][0] == "decision/db", f"recall ids: {ids}")
    only = await ok(session, "recall", {"query": "which storage did we pick", "tags": ["project=keep"], "format": "ids"})
    check(only["ids"] == ["decision/db"], f"recall with tags: {only}")
    one = await ok(session, "recall", {"query": "cat", "limit": 1, "mode": "keyword"})
    check(len(one["notes"]) == 1, f"recall limit: {one}")
    await tool_error(session, "recall", {}, "query")
    await tool_error(session, "recall", {"query": "x", "since": "yesterday-ish"}, "yesterday-ish")
    await tool_error(session, "recall", {"query": "x", "limit": "ten"}, "invalid arguments for recall")
    await tool_error(session, "recall", {"query": "x", "format": "everything"}, "unknown variant `everything`")
    return cat["id"]


async def notes_tools(session, cat_id):
    tagged = await ok(session, "tag", {"id": "decision/db", "add": ["status=final"], "remove": ["type"]})
    check(tagged["status"] == "updated", f"tag: {tagged}")
    check(tagged["tags"].get("status") == ["final"] and "type" not in tagged["tags"], f"tags: {tagged}")
    await tool_error(session, "tag", {"id": "decision/db", "add": ["novalue"]}, "key=value")
    await tool_error(session, "tag", {"id": "no/such/note", "add": ["a=b"]}, "no/such/note")
    await tool_error(session, "tag", {"id": "decision/db"}, "nothing to do")

    got = await ok(session, "get", {"id": "decision/db", "history": True, "similar": 2})
    note = got["note"]
    check(note["summary"].startswith("We chose SQLite"), f"get: {note}")
    check(len(note["versions"]) == 1, f"get history: {note['versions']}")
    check(isinstance(got["similar"], list), "get similar")
    old = await ok(session, "get", {"id": "decision/db@V{1}"})
    check(old["note"]["tags"].get("type") == ["decision"], f"get @V1: {old}")
    await tool_error(session, "get", {"id": "no/such/note"}, "no/such/note")
    await tool_error(session, "get", {"id": "decision/db@V{9}"}, "V{9}")

    listing = await ok(session, "list", {"tags": ["topic"], "order": "id"})
    check([n["id"] for n in listing["notes"]] == sorted(n["id"] for n in listing["notes"]), "list order")
    check(len(listing["notes"]) == 2, f"list by tag key: {listing}")
    ids = await ok(session, "list", {"limit": 2, "format": "ids"})
    check(len(ids["ids"]) == 2, f"list limit: {ids}")
    full = await ok(session, "list", {"format": "full", "scope": "decision/*"})
    check(full["notes"][0]["created"], f"list full: {full}")
    await tool_error(session, "list", {"order": "sideways"}, "unknown variant `sideways`")
    await tool_error(session, "list", {"limit": 0}, "limit")

    await ok(session, "remember", {
        "id": "design/notes", "text": "Design notes for the store layer.",
        "tags": ["references=decision/db"],
    })
    related = await ok(session, "related", {"id": "decision/db"})
    via = [n for n in related["notes"] if n["id"] == "design/notes"]
    check(via and "via" in via[0], f"related by edge: {related}")
    await tool_error(session, "related", {"id": "no/such/note"}, "no/such/note")

    now = await ok(session, "now", {})
    check(now["note"] is None, f"now unset: {now}")
    now = await ok(session, "now", {"text": "Wiring keep into the agent loop."})
    check(now["note"]["summary"] == "Wiring keep into the agent loop.", f"now set: {now}")
    scoped = await ok(session, "now", {"text": "Scoped work", "scope": "proj"})
    check(scoped["note"]["id"] == "now:proj", f"now scope: {scoped}")
    await tool_error(session, "now", {"scope": " "}, "scope")

    gone = await ok(session, "forget", {"id": "decision/db@V{1}"})
    check(gone == {"deleted": "version", "id": "decision/db", "version": 1}, f"forget version: {gone}")
    await tool_error(session, "forget", {"id": "no/such/note"}, "no/such/note")
    await ok(session, "tag", {"id": cat_id, "add": ["mood=sleepy"]})
    back = await ok(session, "revert", {"id": cat_id})
    check(back["reverted"] == "restored", f"revert: {back}")
    await tool_error(session, "revert", {"id": "no/such/note"}, "no/such/note")
    first = await ok(session, "remember", {"text": "A first thought, never changed.", "id": "draft/one"})
    check(first["status"] == "created", f"remember draft: {first}")
    await tool_error(session, "revert", {"id": "draft/one"}, "\"delete\": true")
    still = await ok(session, "get", {"id": "draft/one"})
    check(still["note"]["summary"] == "A first thought, never changed.", f"revert refused: {still}")
    dropped = await ok(session, "revert", {"id": "draft/one", "delete": True})
    check(dropped == {"reverted": "deleted", "id": "draft/one"}, f"revert delete: {dropped}")
    gone = await ok(session, "forget", {"id": "design/notes"})
    check(gone["deleted"] == "note", f"forget note: {gone}")


async def files(session):
    inside = os.path.join(ALLOWED, "plan.md")
    put = await ok(session, "put_file", {"path": inside, "tags": ["kind=plan"]})
    check(len(put["added"]) == 1 and put["added"][0].startswith("file://"), f"put_file: {put}")
    again = await ok(session, "put_file", {"path": inside})
    check(again["unchanged"] == put["added"], f"put_file again: {again}")
    folder = await ok(session, "put_file", {"path": ALLOWED})
    check(folder["unchanged"] == put["added"], f"put_file folder: {folder}")
    check([f["reason"] for f in folder["failed"]] == ["is a link out of the allowed folders; skipped"], f"link out: {folder}")
    await tool_error(session, "put_file", {"path": OUTSIDE}, "outside")
    await tool_error(session, "put_file", {"path": os.path.join(ALLOWED, "escape-link")}, "outside")
    await tool_error(session, "put_file", {"path": os.path.join(ALLOWED, "..", os.path.basename(OUTSIDE))}, "outside")
    await tool_error(session, "put_file", {"path": "plan.md"}, "absolute")
    await tool_error(session, "put_file", {"path": os.path.join(ALLOWED, "missing.md")}, "missing.md")


async def resources_and_prompt(session):
    listed = (await session.list_resources()).resources
    check([str(r.uri) for r in listed] == ["keep://now"], f"resources: {listed}")
    templates = (await session.list_resource_templates()).resource_templates
    check(templates[0].uri_template == "keep://note/{id}", f"templates: {templates}")
    now = await session.read_resource("keep://now")
    check("Wiring keep into the agent loop." in now.contents[0].text, f"keep://now: {now}")
    uri = "keep://note/" + urllib.parse.quote("decision/db", safe="")
    note = await session.read_resource(uri)
    check("We chose SQLite" in note.contents[0].text, f"{uri}: {note}")
    try:
        await session.read_resource("keep://note/no%2Fsuch")
        raise AssertionError("reading a missing note should fail")
    except MCPError:
        pass
    prompts = (await session.list_prompts()).prompts
    check([p.name for p in prompts] == ["keep-reflect"], f"prompts: {prompts}")
    reflect = await session.get_prompt("keep-reflect")
    text = reflect.messages[0].content.text
    check("Wiring keep into the agent loop." in text and "decision/db" in text, f"prompt: {text}")
    scoped = await session.get_prompt("keep-reflect", {"scope": "proj"})
    check("Scoped work" in scoped.messages[0].content.text, "prompt scope")


async def writer(tag, count):
    async with stdio_client(params()) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        for i in range(count):
            await ok(s, "remember", {"text": f"Parallel note {i} from writer {tag}.", "tags": [f"writer={tag}"]})


async def two_writers(session):
    await asyncio.gather(writer("a", 25), writer("b", 25))
    for tag in ("a", "b"):
        listing = await ok(session, "list", {"tags": [f"writer={tag}"], "limit": 200, "format": "ids"})
        check(len(listing["ids"]) == 25, f"writer {tag}: {len(listing['ids'])} notes")


async def discover_flow():
    async with stdio_client(params()) as (r, w), ClientSession(r, w) as s:
        found = await s.discover()
        check("2026-07-28" in found.supported_versions, f"discover: {found.supported_versions}")
        tools = (await s.list_tools()).tools
        check(len(tools) == len(TOOLS), "tools after discover")


async def main():
    started = time.perf_counter()
    async with stdio_client(params("--allow", ALLOWED)) as (r, w), ClientSession(r, w) as session:
        init = await session.initialize()
        handshake_ms = (time.perf_counter() - started) * 1000
        check(init.server_info.name == "keep", f"server info: {init.server_info}")
        check(init.protocol_version in ("2025-06-18", "2025-11-25"), init.protocol_version)
        await handshake_and_tools(session)
        cat_id = await remember_and_recall(session)
        await protocol_error(session, "no_such_tool", {})
        samples = []
        for _ in range(20):
            t = time.perf_counter()
            await ok(session, "recall", {"query": "what did we decide about storage"})
            samples.append((time.perf_counter() - t) * 1000)
        await notes_tools(session, cat_id)
        await files(session)
        await resources_and_prompt(session)
        await two_writers(session)
    async with stdio_client(params()) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        await tool_error(s, "put_file", {"path": os.path.join(ALLOWED, "plan.md")}, "--allow")
    await discover_flow()
    samples.sort()
    print(json.dumps({
        "handshake_ms": round(handshake_ms, 1),
        "recall_p50_ms": round(samples[len(samples) // 2], 1),
        "recall_max_ms": round(samples[-1], 1),
    }))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except BaseException as e:
        while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
            e = e.exceptions[0]
        if not isinstance(e, AssertionError):
            raise
        print(f"FAILED: {e}", file=sys.stderr)
        sys.exit(1)
