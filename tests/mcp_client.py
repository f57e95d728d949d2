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

from mcp import ClientSession, StdioServerParameters, types
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
    "restore": (False, False),
    "log": (True, False),
    "stats": (True, False),
    "conflicts": (True, False),
    "revert": (False, True),
    "now": (False, False),
    "move": (False, False),
    "put_file": (False, False),
    "related": (True, False),
    "feedback": (False, False),
    "supersede": (False, False),
    "analyze": (False, False),
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


CORE = {"remember", "recall", "get", "list", "tag", "forget", "now", "put_file", "supersede", "conflicts"}


async def handshake_and_tools(session):
    """The default set: the tools of every session, compact (no output
    schemas, no icons), within 16 KB; the others can still be called."""
    listed = await session.list_tools()
    size = len(listed.model_dump_json(by_alias=True, exclude_none=True))
    check(size <= 16 * 1024, f"tools/list of the core set: {size} bytes")
    tools = listed.tools
    names = {t.name for t in tools}
    check(names == CORE, f"core tools: {sorted(names)}")
    for t in tools:
        read_only, destructive = TOOLS[t.name]
        check(("Use it" in t.description) or ("call this" in t.description), f"{t.name}: when to use it")
        check(t.input_schema.get("type") == "object", f"{t.name}: input schema")
        check(t.output_schema is None, f"{t.name}: an output schema in the core set")
        check(t.annotations.read_only_hint is read_only, f"{t.name}: readOnlyHint")
        check(t.annotations.destructive_hint is destructive, f"{t.name}: destructiveHint")
    recall = next(t for t in tools if t.name == "recall")
    props = recall.input_schema["properties"]
    check({"query", "tags", "since", "limit", "deep", "hops", "format"} <= set(props), "recall schema")


async def every_tool(session):
    """--tools all: every tool, with its output schema and icon."""
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
        check(t.icons and t.icons[0].mime_type == "image/svg+xml", f"{t.name}: icon")
    recall = next(t for t in tools if t.name == "recall")
    props = recall.input_schema["properties"]
    check({"query", "tags", "since", "limit", "deep", "hops", "format"} <= set(props), "recall schema")


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
    top = found["notes"][0]
    check("score" in top and "summary" in top, "brief hit fields")
    check(0.23 <= top["relevance"] <= 1.0, f"relevance is at or above the floor: {top}")
    check(top["passage"] == "The cat sits on the mat.", f"passage: {top}")
    full = await ok(session, "recall", {"query": "a kitten resting on a rug", "format": "full", "limit": 1})
    check(full["notes"][0]["relevance"] == top["relevance"], f"full hit: {full}")
    check(full["notes"][0]["passage"] == top["passage"], f"full hit passage: {full}")
    check(0.3 < full["notes"][0]["similarity"] <= 1.0, f"similarity is the cosine: {full}")
    nothing = await ok(session, "recall", {"query": "furniture shopping list"})
    check(nothing["notes"] == [], f"nothing relevant, no notes: {nothing}")
    check(any(n.startswith("nothing relevant: ") and n.endswith("(floor 0.23) (floor 0 returns it)") for n in nothing["notices"]), f"said why: {nothing}")
    nearest = await ok(session, "recall", {"query": "furniture shopping list", "floor": 0})
    check(nearest["notes"] and all(n.get("weak") is True for n in nearest["notes"]), f"floor 0 returns the nearest, weak: {nearest}")
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
    whole = await ok(session, "get", {"id": "decision/db", "text": True})
    check(whole["text"] == whole["note"]["summary"], f"a short note's whole text is its summary: {whole}")
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
    gone = await ok(session, "forget", {"id": "design/notes", "reason": "written up in the wiki"})
    check(gone == {"deleted": "trashed", "id": "design/notes", "reason": "written up in the wiki"}, f"forget note: {gone}")
    hidden = await ok(session, "list", {"format": "ids", "limit": 200})
    check("design/notes" not in hidden["ids"], f"a forgotten note leaves listings: {hidden}")
    kept = await ok(session, "get", {"id": "design/notes"})
    check(kept["note"]["tags"]["_deleted_reason"] == ["written up in the wiki"], f"in the trash: {kept}")
    await tool_error(session, "forget", {"id": "design/notes"}, "already in the trash")
    back = await ok(session, "restore", {"id": "design/notes"})
    check(back["id"] == "design/notes" and back["status"] == "updated", f"restore: {back}")
    shown = await ok(session, "list", {"format": "ids", "limit": 200})
    check("design/notes" in shown["ids"], f"a restored note is listed: {shown}")
    await tool_error(session, "restore", {"id": "design/notes"}, "not in the trash")
    purged = await ok(session, "forget", {"id": "design/notes", "purge": True})
    check(purged["deleted"] == "note", f"forget for good: {purged}")
    await tool_error(session, "restore", {"id": "design/notes"}, "no note")


async def staying_true(session):
    """Duplicates merged, a fact superseded, a note expired, feedback."""
    fact = await ok(session, "remember", {"text": "The staging database password rotates every Monday at 9am.", "tags": ["project=ops"]})
    check(fact["status"] == "created", f"fact: {fact}")
    dup = await ok(session, "remember", {"text": "Every Monday at 9am the staging DB password is rotated.", "tags": ["project=ops"]})
    check(dup["status"] == "duplicate" and dup["duplicate_of"] == fact["id"] and dup["id"] == fact["id"], f"duplicate: {dup}")
    check(dup["similarity"] > 0.9, f"similarity: {dup}")
    merged = await ok(session, "remember", {"text": "Staging DB passwords are rotated each Monday at 9am.", "tags": ["project=ops"], "update": True})
    check(merged["status"] == "updated" and merged["id"] == fact["id"], f"update: {merged}")
    await tool_error(session, "remember", {"text": "x y", "update": True, "allow_duplicate": True}, "not both")

    newer = await ok(session, "remember", {"text": "Staging passwords now rotate daily at 6am, managed by Vault.", "tags": ["project=ops"], "supersedes": [fact["id"]]})
    check(newer["status"] == "created", f"supersede: {newer}")
    found = await ok(session, "recall", {"query": "when does the staging password rotate", "format": "ids"})
    check(fact["id"] not in found["ids"] and newer["id"] in found["ids"], f"superseded hidden: {found}")
    both = await ok(session, "recall", {"query": "when does the staging password rotate", "format": "ids", "include_superseded": True})
    check(both["ids"].index(newer["id"]) < both["ids"].index(fact["id"]), f"superseded below: {both}")
    chain = await ok(session, "get", {"id": fact["id"]})
    check(chain["note"]["replaced_by"] == [newer["id"]], f"chain: {chain}")
    await tool_error(session, "remember", {"text": "z", "supersedes": ["no/such/note"]}, "no/such/note")

    gateway = await ok(session, "remember", {"text": "The API gateway timeout is 30 seconds.", "tags": ["project=ops"]})
    check(gateway["status"] == "created", f"gateway: {gateway}")
    minutes = await ok(session, "remember", {"text": "The API gateway timeout is 30 minutes.", "tags": ["project=ops"]})
    check(minutes["status"] == "possible_update" and minutes["possible_update_of"] == gateway["id"], f"possible update: {minutes}")
    check(minutes["id"] != gateway["id"] and minutes["differences"] == ["30 seconds -> 30 minutes"], f"differences: {minutes}")
    accepted = await ok(session, "supersede", {"id": minutes["id"]})
    check(accepted["status"] == "updated", f"supersede: {accepted}")
    after = await ok(session, "get", {"id": minutes["id"]})
    check(after["note"]["tags"].get("supersedes") == [gateway["id"]] and "may-supersede" not in after["note"]["tags"], f"accepted: {after}")
    await tool_error(session, "supersede", {"id": minutes["id"]}, "not linked")
    long_text = "\n\n".join(f"## Step {i}\n\n" + f"Step {i} of the harbour drill checks the lantern and the tide gauge. " * 12 for i in range(1, 6))
    drill = await ok(session, "remember", {"text": long_text, "id": "harbour-drill"})
    cut = await ok(session, "analyze", {"id": drill["id"], "heuristic": True})
    check(cut["model"] is None and len(cut["parts"]) > 1, f"analyze: {cut}")
    await tool_error(session, "analyze", {"id": drill["id"]}, "no model is configured")

    wifi = await ok(session, "remember", {"text": "The guest wifi code is 4471 this week.", "expires": "P7D"})
    check(wifi["status"] == "created", f"expires: {wifi}")
    live = await ok(session, "recall", {"query": "guest wifi code", "format": "ids"})
    check(wifi["id"] in live["ids"], f"not yet expired: {live}")
    await tool_error(session, "remember", {"text": "q", "expires": "whenever"}, "whenever")
    await tool_error(session, "remember", {"text": "q", "expires": "2026-01-01"}, "already passed")

    rated = await ok(session, "feedback", {"id": newer["id"], "rating": "useful"})
    check(rated == {"id": newer["id"], "useful": 1, "wrong": 0}, f"feedback: {rated}")
    await tool_error(session, "feedback", {"id": "no/such/note", "rating": "useful"}, "no/such/note")
    await tool_error(session, "feedback", {"id": newer["id"], "rating": "meh"}, "unknown variant `meh`")


async def after_expiry():
    """A server whose clock is past the wifi note's expiry."""
    later = dict(os.environ, KEEP_CLOCK="2026-12-31T00:00:00Z")
    server = StdioServerParameters(command=KEEP, args=["mcp"], env=later)
    async with stdio_client(server) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        gone = await ok(s, "recall", {"query": "guest wifi code", "format": "ids"})
        expired = await ok(s, "list", {"expired": True, "format": "ids"})
        check(len(expired["ids"]) == 1 and expired["ids"][0] not in gone["ids"], f"expired: {expired} {gone}")
        still = await ok(s, "get", {"id": expired["ids"][0]})
        check(still["note"]["tags"]["_expires"] == ["2026-11-29T10:00:00.000Z"], f"get expired: {still}")


async def notifications():
    """Logging, completion, subscriptions (changes from another process too),
    progress of put_file and its cancellation."""
    seen, logs = [], []

    async def on_message(message):
        seen.append(type(getattr(message, "root", message)).__name__ + " " + repr(message))

    async def on_log(params):
        logs.append(params)

    async with stdio_client(params("--allow", ALLOWED)) as (r, w), ClientSession(r, w, message_handler=on_message, logging_callback=on_log) as s:
        await s.initialize()
        caps = s.get_server_capabilities() if hasattr(s, "get_server_capabilities") else None
        await s.set_logging_level("debug")
        await ok(s, "list", {"limit": 1})
        await tool_error(s, "get", {"id": "no/such/note"}, "no/such/note")
        await asyncio.sleep(0.2)
        check(any(l.level == "debug" and l.data.get("tool") == "list" for l in logs), f"debug log: {logs}")
        check(any(l.level == "warning" and l.data.get("tool") == "get" for l in logs), f"warning log: {logs}")

        done = await s.complete(types.ResourceTemplateReference(type="ref/resource", uri="keep://note/{id}"), {"name": "id", "value": "decision%2F"})
        check(done.completion.values == ["decision%2Fdb"], f"id completion: {done.completion}")
        scopes = await s.complete(types.PromptReference(type="ref/prompt", name="keep-reflect"), {"name": "now_name", "value": "pr"})
        check(scopes.completion.values == ["proj"], f"scope completion: {scopes.completion}")

        uri = "keep://note/" + urllib.parse.quote("decision/db", safe="")
        await s.subscribe_resource(uri)
        await s.subscribe_resource("keep://now")
        # A change from another process: the command line.
        env = dict(os.environ)
        proc = await asyncio.create_subprocess_exec(KEEP, "tag", "decision/db", "-t", "reviewed=yes", env=env, stdout=asyncio.subprocess.DEVNULL)
        await proc.wait()
        for _ in range(50):
            if any("resources/updated" in m and "decision%2Fdb" in m for m in seen):
                break
            await asyncio.sleep(0.1)
        check(any("resources/updated" in m and "decision%2Fdb" in m for m in seen), f"updated from another process: {seen}")
        await ok(s, "now", {"text": "Now changed by this session."})
        for _ in range(50):
            if any("resources/updated" in m and "keep://now" in m for m in seen):
                break
            await asyncio.sleep(0.1)
        check(any("resources/updated" in m and "keep://now" in m for m in seen), f"now updated: {seen}")

        progress = []

        async def on_progress(done, total, message):
            progress.append((done, total, message))

        folder = os.path.join(ALLOWED, "many")
        os.makedirs(folder, exist_ok=True)
        for i in range(12):
            with open(os.path.join(folder, f"note{i}.md"), "w") as f:
                f.write(f"# Note {i}\n\nHarbour crane log entry number {i}.\n")
        report = await s.call_tool("put_file", {"path": folder}, progress_callback=on_progress)
        check(not report.is_error and len(report.structured_content["added"]) == 12, f"put_file many: {report}")
        check(progress and progress[-1][0] >= 12 and all(b[0] >= a[0] for a, b in zip(progress, progress[1:])), f"progress: {progress}")
        for _ in range(50):
            if any("resources/list_changed" in m for m in seen):
                break
            await asyncio.sleep(0.1)
        check(any("resources/list_changed" in m for m in seen), f"list changed: {seen}")

        big = os.path.join(ALLOWED, "big")
        os.makedirs(big, exist_ok=True)
        for i in range(150):
            with open(os.path.join(big, f"doc{i}.md"), "w") as f:
                f.write(f"# Document {i}\n\n" + (f"Paragraph {i} about cranes, tides and cargo manifests. " * 40 + "\n\n") * 30)
        started = asyncio.Event()

        async def first_progress(done, total, message):
            started.set()

        call = asyncio.create_task(s.call_tool("put_file", {"path": big}, progress_callback=first_progress))
        await asyncio.wait_for(started.wait(), 30)
        call.cancel()
        try:
            await call
        except (asyncio.CancelledError, Exception):
            pass
        await asyncio.sleep(1.0)
        stored = await ok(s, "list", {"scope": "file://" + big, "format": "ids", "limit": 200})
        check(len(stored["ids"]) < 150, f"cancelled put_file stored {len(stored['ids'])} of 150")
        alive = await ok(s, "list", {"limit": 1})
        check(alive["notes"], "the server answers after a cancelled call")


async def scoped_server():
    """A server started with --scope sees and touches only its scope."""
    async with stdio_client(params("--scope", "project=alpha")) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        mine = await ok(s, "remember", {"text": "Alpha ships on Fridays after the review."})
        got = await ok(s, "get", {"id": mine["id"]})
        check(got["note"]["tags"].get("project") == ["alpha"], f"scope tag written: {got}")
        listing = await ok(s, "list", {"format": "ids", "limit": 200})
        check(listing["ids"] == [mine["id"]], f"scoped list: {listing}")
        found = await ok(s, "recall", {"query": "SQLite storage decision", "format": "ids"})
        check("decision/db" not in found["ids"], f"scoped recall: {found}")
        await tool_error(s, "get", {"id": "decision/db"}, "no note 'decision/db'")
        await tool_error(s, "tag", {"id": "decision/db", "add": ["x=y"]}, "no note")
        await tool_error(s, "forget", {"id": "decision/db"}, "no note")
        await tool_error(s, "related", {"id": "decision/db"}, "no note")
        await tool_error(s, "stats", {}, "counts the whole store")
        await tool_error(s, "recall", {"like": "decision/db"}, "no note")
        await tool_error(s, "feedback", {"id": "decision/db", "rating": "wrong"}, "no note")
        await tool_error(s, "remember", {"id": "decision/db", "text": "overwrite"}, "outside this scope")
        await tool_error(s, "remember", {"text": "x", "tags": ["project=beta"]}, "is outside the scope of")
        await tool_error(s, "tag", {"id": mine["id"], "remove": ["project"]}, "cannot be removed")
        now = await ok(s, "now", {"text": "Alpha: preparing the Friday release."})
        check(now["note"]["id"] == "now:project=alpha", f"scoped now: {now}")
        try:
            await s.read_resource("keep://note/" + urllib.parse.quote("decision/db", safe=""))
            raise AssertionError("a note outside the scope should not be readable")
        except MCPError:
            pass
        prompt = await s.get_prompt("keep-reflect")
        text = prompt.messages[0].content.text
        check("Alpha ships" in text and "decision/db" not in text, f"scoped prompt: {text}")
    async with stdio_client(params("--scope", "project=alpha", "--allow", ALLOWED)) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        # plan.md was stored without the scope's tag: the scoped server
        # neither reports it unchanged nor changes it.
        put = await ok(s, "put_file", {"path": os.path.join(ALLOWED, "plan.md")})
        check(put["added"] == [] and put["updated"] == [] and put["unchanged"] == [], f"scoped put_file: {put}")
        check(len(put["failed"]) == 1 and "outside this scope" in put["failed"][0]["reason"], f"scoped put_file: {put}")


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
    listed = await session.call_tool("list", {"tags": ["kind=plan"]})
    links = [c for c in listed.content if c.type == "resource_link"]
    check([str(l.uri) for l in links] == put["added"], f"a file note is linked: {listed.content}")
    check(links[0].name == "plan.md" and links[0].mime_type == "text/markdown", f"link: {links[0]}")
    await tool_error(session, "put_file", {"path": os.path.join(ALLOWED, "missing.md")}, "missing.md")


async def resources_and_prompt(session):
    listed = (await session.list_resources()).resources
    check([str(r.uri) for r in listed] == ["keep://now", "keep://context"], f"resources: {listed}")
    templates = (await session.list_resource_templates()).resource_templates
    check(
        [t.uri_template for t in templates] == ["keep://note/{id}", "keep://context/{project}"],
        f"templates: {templates}",
    )
    context = await session.read_resource("keep://context/" + urllib.parse.quote("database decision", safe=""))
    block = context.contents[0].text
    check(block.startswith("# keep context\n") and "Wiring keep into the agent loop." in block, f"context: {block}")
    check("decision/db" in block, f"the project's note is in the context: {block}")
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
    check([p.name for p in prompts] == ["keep-reflect", "keep-context"], f"prompts: {prompts}")
    started = await session.get_prompt("keep-context", {"project": "database decision", "max_tokens": "1500"})
    check(started.messages[0].content.text == block, f"prompt keep-context: {started}")
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
    async with stdio_client(params("--tools", "all")) as (r, w), ClientSession(r, w) as s:
        found = await s.discover()
        check("2026-07-28" in found.supported_versions, f"discover: {found.supported_versions}")
        await every_tool(s)


async def audit_log():
    """Two agents write; the log names each, and filters by agent and note."""
    agents = {}
    for name, version, fact in [
        ("planner", "1.0", "The launch moves to March 3."),
        ("reviewer", "2.1", "The launch review is on March 1."),
    ]:
        me = types.Implementation(name=name, version=version)
        async with stdio_client(params()) as (r, w), ClientSession(r, w, client_info=me) as s:
            await s.initialize()
            agents[name] = await ok(s, "remember", {"text": fact, "tags": ["topic=launch"]})
    async with stdio_client(params()) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        mine = await ok(s, "log", {"agent": "planner/1.0"})
        check([e["note"] for e in mine["entries"]] == [agents["planner"]["id"]], f"log by agent: {mine}")
        check(mine["entries"][0]["op"] == "create" and mine["entries"][0]["version"] == 1, f"log entry: {mine}")
        theirs = await ok(s, "log", {"id": agents["reviewer"]["id"]})
        check([e["agent"] for e in theirs["entries"]] == ["reviewer/2.1"], f"log of a note: {theirs}")
        written = await ok(s, "get", {"id": agents["planner"]["id"]})
        check(written["note"]["tags"].get("_agent") == ["planner/1.0"], f"the author on the note: {written}")
        await ok(s, "forget", {"id": agents["reviewer"]["id"], "reason": "superseded by the planner"})
        after = await ok(s, "log", {"id": agents["reviewer"]["id"]})
        check([e["op"] for e in after["entries"]] == ["trash", "create"], f"trash logged: {after}")
        check(after["entries"][0]["detail"] == "superseded by the planner", f"reason logged: {after}")
        await tool_error(s, "log", {"since": "not a time"}, "not a time")
        await ok(s, "now", {"text": "Drafting the launch checklist", "scope": "launch"})  # the old name still works
        await ok(s, "now", {"text": "Launch checklist sent for review", "now_name": "launch"})
        moved = await ok(s, "move", {"target": "journal/launch", "now_name": "launch"})
        check(moved == {"source": "now:launch", "target": "journal/launch", "moved": 2, "source_deleted": True}, f"move: {moved}")
        filed = await ok(s, "get", {"id": "journal/launch", "history": True})
        check(filed["note"]["summary"] == "Launch checklist sent for review", f"moved note: {filed}")
        await tool_error(s, "move", {"target": "journal/launch", "source": "no/such/note"}, "no/such/note")
        await tool_error(s, "move", {"target": "x", "source": "a", "now_name": "b"}, "not both")
        many = await ok(s, "remember", {"facts": [
            "The office wifi password is tern-42.",
            "Standup moved to 9:30 on Tuesdays.",
            "",
            "The office wifi password is tern-42.",
        ], "tags": ["topic=office"]})
        results = many["results"]
        check([r.get("status") for r in results] == ["created", "created", None, "unchanged"], f"facts: {many}")
        check("empty" in results[2]["error"] and results[3]["id"] == results[0]["id"], f"the same text is one note: {many}")
        await tool_error(s, "remember", {"text": "x", "facts": ["y"]}, "not both")
        await tool_error(s, "remember", {"facts": ["y"], "id": "one"}, "not facts")
        changed = await ok(s, "remember", {"text": "The office wifi password is puffin-7.", "tags": ["topic=office"]})
        check(changed["status"] == "possible_update", f"a new password: {changed}")
        clash = await ok(s, "conflicts", {"tags": ["topic=office"]})
        check([(c["newer"], c["older"]) for c in clash["conflicts"]] == [(changed["id"], results[0]["id"])], f"conflicts: {clash}")
        check(clash["conflicts"][0]["differences"] == ["tern-42 -> puffin-7"], f"conflict differences: {clash}")
        await ok(s, "supersede", {"id": changed["id"]})
        settled = await ok(s, "conflicts", {"tags": ["topic=office"]})
        check(settled["conflicts"] == [], f"resolved: {settled}")
        counts = await ok(s, "stats", {})
        writers = {a["agent"]: a["writes"] for a in counts["agents"]}
        check(writers.get("planner/1.0") == 1 and writers.get("reviewer/2.1") == 1, f"stats agents: {counts}")
        check(counts["in_trash"] >= 1 and counts["notes"] >= 2 and counts["bytes"] > 0, f"stats: {counts}")
        check(any(k["key"] == "topic" for k in counts["tag_keys"]), f"stats keys: {counts}")


async def asked_to_confirm():
    """A probable update is confirmed through elicitation when the client can be asked."""
    asked = []

    def answering(replaces):
        async def answer(context, params):
            asked.append(params.message)
            check("Does it replace" in params.message, f"question: {params.message}")
            check(set(params.requested_schema["properties"]) == {"replaces"}, f"schema: {params.requested_schema}")
            return types.ElicitResult(action="accept", content={"replaces": replaces})
        return answer

    async with stdio_client(params()) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        old = await ok(s, "remember", {"text": "The server room door code is 4417.", "tags": ["topic=doors"]})
    async with stdio_client(params()) as (r, w), ClientSession(r, w, elicitation_callback=answering(False)) as s:
        await s.initialize()
        kept = await ok(s, "remember", {"text": "The server room door code is 5521.", "tags": ["topic=doors"]})
        check(kept["status"] == "possible_update" and "replaced" not in kept, f"said no: {kept}")
    async with stdio_client(params()) as (r, w), ClientSession(r, w, elicitation_callback=answering(True)) as s:
        await s.initialize()
        new = await ok(s, "remember", {"text": "The server room door code is 9034.", "tags": ["topic=doors"]})
        check(new["status"] == "possible_update" and new["replaced"] == new["possible_update_of"], f"said yes: {new}")
        found = await ok(s, "recall", {"query": "server room door code", "format": "ids", "tags": ["topic=doors"]})
        check(new["possible_update_of"] not in found["ids"] and new["id"] in found["ids"], f"the replaced note left recall: {found}")
    check(len(asked) == 2, f"asked once per probable update: {asked}")
    async with stdio_client(params()) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        plain = await ok(s, "remember", {"text": "The server room door code is 1203.", "tags": ["topic=doors"]})
        check(plain["status"] == "possible_update" and "replaced" not in plain, f"not asked: {plain}")
    check(len(asked) == 2, "a client without elicitation is not asked")


TASKS = "io.modelcontextprotocol/tasks"


async def raw(session, method, args):
    """A request sent as is, answered as the server sent it: at 2025-11-25
    the SDK resolves no task results of its own."""
    return await session._dispatcher.send_raw_request(method, args, {})


async def until_ended(session, task_id, statuses):
    """Polls a task until it ends, gathering its status messages."""
    for _ in range(1200):
        task = await raw(session, "tasks/get", {"taskId": task_id})
        if task.get("statusMessage"):
            statuses.append(task["statusMessage"])
        if task["status"] in ("completed", "failed", "cancelled"):
            return task
        await asyncio.sleep(task.get("pollIntervalMs", 500) / 1000)
    raise AssertionError(f"task {task_id} never ended: {statuses[-3:]}")


async def put_file_as_task():
    """A client that declares tasks gets put_file as a task it polls and can cancel."""
    folder = os.path.join(ALLOWED, "tasked")
    os.makedirs(folder, exist_ok=True)
    for i in range(8):
        with open(os.path.join(folder, f"log{i}.md"), "w") as f:
            f.write(f"# Tide log {i}\n\nThe tide at the north pier rose {i} feet before noon.\n")
    async with stdio_client(params("--allow", ALLOWED)) as (r, w), ClientSession(r, w, extensions={TASKS: {}}) as s:
        init = await s.initialize()
        check(TASKS in (init.capabilities.model_dump().get("extensions") or {}), f"tasks not offered: {init.capabilities}")
        started = await raw(s, "tools/call", {"name": "put_file", "arguments": {"path": folder}})
        check(started.get("resultType") == "task" and started["status"] == "working", f"not a task: {started}")
        check(started.get("pollIntervalMs") and started.get("ttlMs"), f"task timing: {started}")
        statuses = []
        ended = await until_ended(s, started["taskId"], statuses)
        check(ended["status"] == "completed", f"task: {ended}")
        report = ended["result"]["structuredContent"]
        check(len(report["added"]) == 8 and not ended["result"].get("isError"), f"task result: {ended}")
        check(any(" of " in m for m in statuses), f"progress in the status: {statuses}")
        found = await ok(s, "recall", {"query": "how high did the tide rise at the north pier", "format": "ids"})
        check(any("tasked/log" in i for i in found["ids"]), f"stored by the task: {found}")
        # A plain call of the same client still answers directly.
        plain = await ok(s, "list", {"limit": 1})
        check(plain["notes"], "a plain call")
        failed = await raw(s, "tools/call", {"name": "put_file", "arguments": {"path": "/etc/passwd"}})
        failed = await until_ended(s, failed["taskId"], [])
        check(failed["status"] == "completed" and failed["result"]["isError"], f"a refused path: {failed}")
        check("outside the allowed folders" in failed["result"]["content"][0]["text"], f"why: {failed}")
        try:
            await raw(s, "tasks/get", {"taskId": "no-such-task"})
            raise AssertionError("an unknown task should be an error")
        except MCPError:
            pass

        big = os.path.join(ALLOWED, "big")  # 150 long documents, made by notifications()
        started = await raw(s, "tools/call", {"name": "put_file", "arguments": {"path": big, "tags": ["batch=tasked"]}})
        statuses = []
        for _ in range(600):
            task = await raw(s, "tasks/get", {"taskId": started["taskId"]})
            if " of " in (task.get("statusMessage") or ""):
                break
            await asyncio.sleep(0.05)
        await raw(s, "tasks/cancel", {"taskId": started["taskId"]})
        ended = await until_ended(s, started["taskId"], statuses)
        check(ended["status"] == "cancelled", f"cancelled task: {ended}")
        tagged = await ok(s, "list", {"tags": ["batch=tasked"], "format": "ids", "limit": 200})
        check(len(tagged["ids"]) < 150, f"the cancelled task stored all {len(tagged['ids'])}")
    async with stdio_client(params("--allow", ALLOWED)) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        direct = await s.call_tool("put_file", {"path": folder})
        check(not direct.is_error and len(direct.structured_content["unchanged"]) == 8, f"without tasks: {direct}")
        try:
            await raw(s, "tasks/get", {"taskId": "x"})
            raise AssertionError("tasks/get of a client that did not declare tasks")
        except MCPError as e:
            check(e.error.code == -32021, f"missing capability: {e.error}")


async def main():
    started = time.perf_counter()
    async with stdio_client(params("--allow", ALLOWED)) as (r, w), ClientSession(r, w) as session:
        init = await session.initialize()
        handshake_ms = (time.perf_counter() - started) * 1000
        check(init.server_info.name == "keep", f"server info: {init.server_info}")
        icons = init.server_info.icons or []
        check(len(icons) == 1 and icons[0].src.startswith("data:image/svg+xml;base64,"), f"server icon: {icons}")
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
        await staying_true(session)
        await files(session)
        await resources_and_prompt(session)
        await two_writers(session)
    async with stdio_client(params()) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        await tool_error(s, "put_file", {"path": os.path.join(ALLOWED, "plan.md")}, "--allow")
    await notifications()
    await after_expiry()
    await scoped_server()
    await discover_flow()
    await audit_log()
    await asked_to_confirm()
    await put_file_as_task()
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
