"""Memory of one `keep mcp` server over many `recall` calls, seen by the
reference Python client.

Usage: KEEP_STORE=DIR python -P benches/mcp_memory.py target/release/keep [CALLS]

Prints the server's resident memory (VmRSS) after the first recall and
after every fifth of the calls, then its peak (VmHWM), as one JSON line.
"""
import asyncio, json, os, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

KEEP = sys.argv[1]
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
WORDS = ("harbour lighthouse keeper tide ship weather lamp storm anchor fog pier "
         "lantern signal channel reef voyage cargo sail beacon coast river market").split()


def server_pid():
    """The `keep mcp` child of this process."""
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = f.read().rsplit(")", 1)[1].split()[1]
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        if ppid == me and b"mcp" in cmd:
            return int(pid)
    raise SystemExit("no keep mcp child found")


def status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) // 1024


async def main():
    params = StdioServerParameters(command=KEEP, args=["mcp"], env=dict(os.environ))
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        pid = server_pid()
        rss = {}
        for i in range(CALLS):
            query = " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(1 + i % 6))
            res = await s.call_tool("recall", {"query": query, "limit": 10})
            assert not res.is_error, res
            if i == 0 or (i + 1) % (CALLS // 5) == 0:
                rss[i + 1] = status(pid, "VmRSS")
        print(json.dumps({"calls": CALLS, "rss_mb_after": rss, "peak_mb": status(pid, "VmHWM")}))


asyncio.run(main())
