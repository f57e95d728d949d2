"""What the Python benches and the screenshot script share: real text
(Debian package descriptions from `apt-cache dumpavail`) and a `keep
serve` started on a free loopback port."""

import re
import subprocess
import threading
from collections import namedtuple

Package = namedtuple("Package", "name short body section")


def packages(count):
    """The first `count` Debian packages with a description, each once."""
    text = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True).stdout
    found, seen = [], set()
    for stanza in text.split("\n\n"):
        name = re.search(r"^Package: (.+)$", stanza, re.M)
        desc = re.search(r"^Description(?:-en)?: (.+)\n((?: .*\n?)*)", stanza, re.M)
        section = re.search(r"^Section: (.+)$", stanza, re.M)
        if not name or not desc or name.group(1) in seen:
            continue
        seen.add(name.group(1))
        body = " ".join(l.strip() for l in desc.group(2).splitlines() if l.strip() != ".")
        found.append(Package(name.group(1), desc.group(1).strip(), body,
                             section.group(1) if section else "misc"))
        if len(found) == count:
            break
    return found


def start_server(keep, env, *args):
    """`keep serve` on a free loopback port: the process, its base URL
    (no `/mcp`) and the lines it has said on stderr (kept growing)."""
    server = subprocess.Popen([keep, "serve", "--listen", "127.0.0.1:0", *args], env=env,
                              stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    said = []
    while True:
        line = server.stderr.readline()
        if not line:
            raise SystemExit(f"keep serve ended: {said}")
        said.append(line.rstrip())
        if "serving MCP at" in line:
            url = re.search(r"https?://\S+", line).group(0).removesuffix("/mcp")
            break
    threading.Thread(target=lambda: said.extend(l.rstrip() for l in server.stderr), daemon=True).start()
    return server, url, said
