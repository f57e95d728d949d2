"""Checks keep serve's JSON API against the OpenAPI document it serves.

Usage: api_client.py BASE_URL

Fetches BASE_URL/openapi.json, validates it as an OpenAPI 3.1 document,
then makes the calls below and validates each answer's body against the
schema the document gives for its status code. Prints one line per call;
exits 1 at the first answer that breaks the document or the expectation.
"""

import json
import sys
import urllib.error
import urllib.parse
import urllib.request

from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate

BASE = sys.argv[1].rstrip("/")


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


status, raw = call("GET", "/openapi.json")
assert status == 200, status
document = json.loads(raw)
validate(document)


def schema_of(path, method, status):
    operation = document["paths"][path][method.lower()]
    answer = operation["responses"].get(str(status))
    assert answer is not None, f"{method} {path}: status {status} is not in the document"
    return answer["content"]["application/json"]["schema"]


def check(method, template, path, expected, body=None):
    status, raw = call(method, path, body)
    value = json.loads(raw)
    if status != expected:
        print(f"FAIL {method} {path}: {status}, expected {expected}: {value}")
        sys.exit(1)
    schema = dict(schema_of(template, method, status))
    schema["components"] = document["components"]
    errors = sorted(OAS31Validator(schema).iter_errors(value), key=str)
    if errors:
        print(f"FAIL {method} {path}: the answer breaks the document: {errors[0].message}")
        sys.exit(1)
    print(f"ok   {method} {path} -> {status}")
    return value


health = check("GET", "/health", "/health", 200)
assert health["store"]["reachable"] is True, health

put = check("POST", "/v1/notes", "/v1/notes", 201,
            {"text": "The harbour light is lit at dusk.", "id": "light",
             "tags": {"place": "harbour"}})
assert put == {"id": "light", "status": "created"}, put
again = check("POST", "/v1/notes", "/v1/notes", 201,
              {"text": "The API gateway timeout is 30 seconds.", "tags": ["topic=infra"]})
dup = check("POST", "/v1/notes", "/v1/notes", 200,
            {"text": "The API gateway timeout is 30 seconds!"})
assert dup["status"] == "duplicate", dup
update = check("POST", "/v1/notes", "/v1/notes", 201,
               {"text": "The API gateway timeout is 30 minutes."})
assert update["status"] == "possible_update", update
assert update["possible_update_of"] == again["id"], update
check("POST", "/v1/notes", "/v1/notes", 400, {"txt": "no such field"})
check("POST", "/v1/notes", "/v1/notes", 400, {"text": "bad tag", "tags": ["no equals sign"]})

found = check("GET", "/v1/find", "/v1/find?q=" + urllib.parse.quote("when is the harbour lit"), 200)
assert found and found[0]["id"] == "light", found
check("GET", "/v1/find", "/v1/find?q=timeout&mode=keyword&limit=1&tag=topic%3Dinfra", 200)
check("GET", "/v1/find", "/v1/find", 400)

listed = check("GET", "/v1/notes", "/v1/notes?limit=2&sort=created", 200)
assert len(listed) == 2, listed
tagged = check("GET", "/v1/notes", "/v1/notes?tag=place%3Dharbour", 200)
assert [n["id"] for n in tagged] == ["light"], tagged

tag = check("POST", "/v1/notes/{id}/tags", "/v1/notes/light/tags", 200,
            {"add": {"status": "checked"}, "remove": ["place"]})
assert tag == {"id": "light", "status": "updated"}, tag
check("POST", "/v1/notes/{id}/tags", "/v1/notes/nowhere/tags", 404, {"add": ["a=b"]})

note = check("GET", "/v1/notes/{id}", "/v1/notes/light", 200)
assert note["tags"]["status"] == ["checked"] and "place" not in note["tags"], note
older = check("GET", "/v1/notes/{id}", "/v1/notes/" + urllib.parse.quote("light@V{1}", safe=""), 200)
assert older["version"] == 1 and older["tags"]["place"] == ["harbour"], older
check("GET", "/v1/notes/{id}", "/v1/notes/nowhere", 404)

history = check("GET", "/v1/notes/{id}/history", "/v1/notes/light/history", 200)
assert [v["version"] for v in history["versions"]][:2] == [0, 1], history
parts = check("GET", "/v1/notes/{id}/parts", "/v1/notes/light/parts", 200)
assert parts == {"id": "light", "parts": []}, parts
alike = check("GET", "/v1/notes/{id}/similar", "/v1/notes/light/similar?limit=3", 200)
assert alike["id"] == "light" and len(alike["similar"]) <= 3, alike
why = check("GET", "/v1/notes/{id}/why", "/v1/notes/light/why?q=" + urllib.parse.quote("when is the harbour lit"), 200)
assert why["stage"] == "shown" and why["rank"] == 1, why
why = check("GET", "/v1/notes/{id}/why", "/v1/notes/light/why?q=harbour&tag=" + urllib.parse.quote("place=nowhere"), 200)
assert why == {"stage": "filtered", "by": ["the tag filter place=nowhere"]}, why
check("GET", "/v1/notes/{id}/why", "/v1/notes/light/why?q=harbour&limit=many", 400)
check("GET", "/v1/notes/{id}/why", "/v1/notes/nowhere/why?q=harbour", 404)
rated = check("POST", "/v1/notes/{id}/rate", "/v1/notes/light/rate", 200, {"rating": "useful"})
assert rated == {"id": "light", "useful": 1, "wrong": 0}, rated
check("POST", "/v1/notes/{id}/rate", "/v1/notes/light/rate", 400, {"rating": "great"})
check("POST", "/v1/notes/{id}/rate", "/v1/notes/nowhere/rate", 404, {"rating": "wrong"})

pairs = check("GET", "/v1/conflicts", "/v1/conflicts", 200)
assert any(p["newer"] == update["id"] and p["older"] == again["id"] for p in pairs), pairs
newer = "/v1/notes/" + urllib.parse.quote(update["id"], safe="")
check("POST", "/v1/notes/{id}/supersede", newer + "/supersede", 200, {})
pairs = check("GET", "/v1/conflicts", "/v1/conflicts", 200)
assert not any(p["newer"] == update["id"] for p in pairs), pairs
replaced = check("GET", "/v1/notes/{id}", "/v1/notes/" + urllib.parse.quote(again["id"], safe=""), 200)
assert replaced["replaced_by"] == [update["id"]], replaced

trashed = check("POST", "/v1/notes/{id}/trash", "/v1/notes/light/trash", 200, {"reason": "done"})
assert trashed["deleted"] == "trashed" and trashed["reason"] == "done", trashed
check("POST", "/v1/notes/{id}/trash", "/v1/notes/" + urllib.parse.quote("light@V{1}", safe="") + "/trash", 400)
assert not any(n["id"] == "light" for n in check("GET", "/v1/notes", "/v1/notes", 200))
check("POST", "/v1/notes/{id}/restore", "/v1/notes/light/restore", 200)
assert any(n["id"] == "light" for n in check("GET", "/v1/notes", "/v1/notes", 200))

log = check("GET", "/v1/log", "/v1/log?id=light&limit=5", 200)
assert [e["op"] for e in log[:2]] == ["restore", "trash"], log
check("GET", "/v1/log", "/v1/log?limit=0", 400)
stats = check("GET", "/v1/stats", "/v1/stats", 200)
assert stats["notes"] >= 3 and "waiting" not in stats, stats
named = check("GET", "/v1/stats", "/v1/stats?waiting=5", 200)
assert len(named["waiting"]) <= min(5, named["waiting_for_vectors"]), named
print("all calls answer as the document says")
