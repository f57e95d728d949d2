"""Reads on a PostgreSQL replica: `keep find` throughput and latency
through `keep serve`'s JSON API with 8 readers and 1 writer, against the
primary alone and against the primary plus one hot standby.

Usage: python -P benches/replica_reads.py KEEP [NOTES SECONDS READERS]

Makes a private primary and a standby of it (`scripts/pg.sh start` and
`scripts/pg.sh standby`, Unix sockets in a temporary folder), fills the
store with NOTES (default 5000) Debian package descriptions (`apt-cache
dumpavail`: real text) and gives them their vectors, then runs twice for SECONDS (default 30) each:
`KEEP serve` on the primary alone, then with `KEEP_REPLICAS` naming the
standby. Each run has READERS (default 8) threads asking `GET /v1/find`
(the short description of a stored package as the query, ten results)
and one thread writing `POST /v1/notes` (descriptions not stored yet),
without pause. Prints one JSON line per run: finds per second, p50 and
p99 in milliseconds, writes, errors, the CPU seconds `keep serve`, the
primary and the standby spent, and what the server said about the
replica; then a Markdown table of both.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

KEEP = os.path.abspath(sys.argv[1])
NOTES = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
READERS = int(sys.argv[4]) if len(sys.argv) > 4 else 8
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PG = os.path.join(REPO, "scripts", "pg.sh")
sys.path.insert(0, os.path.join(REPO, "scripts"))
import bench_support  # noqa: E402


def pg(*args):
    return subprocess.run([PG, *args], capture_output=True, text=True, check=True).stdout.strip()


def start_server(env):
    return bench_support.start_server(KEEP, env)


def request(url, data=None):
    body = json.dumps(data).encode() if data is not None else None
    req = urllib.request.Request(url, data=body, method="POST" if body else "GET",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as answer:
        return answer.read()


def cpu_seconds(pid, children_too=False):
    """CPU time of process `pid` (with its reaped children's), and of its
    live children when asked, in seconds."""
    tick = os.sysconf("SC_CLK_TCK")

    def own(p):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return sum(int(x) for x in fields[11:15]) / tick, int(fields[1])
        except (FileNotFoundError, ProcessLookupError):
            return 0.0, -1

    total = own(pid)[0]
    if children_too:
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                seconds, parent = own(int(entry))
                if parent == pid:
                    total += seconds
    return total


def postmaster(data_dir):
    with open(os.path.join(data_dir, "data", "postmaster.pid")) as f:
        return int(f.readline())


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def run(env, label, queries, fresh, servers):
    server, url, said = start_server(env)
    cpu_before = [cpu_seconds(server.pid)] + [cpu_seconds(p, True) for p in servers.values()]
    try:
        request(f"{url}/v1/find?q=warm&n=1")
        stop = time.monotonic() + SECONDS
        finds, writes, errors = [], [], []
        lock = threading.Lock()

        def reader(seed):
            rng = random.Random(seed)
            while time.monotonic() < stop:
                q = urllib.parse.quote(rng.choice(queries))
                began = time.monotonic()
                try:
                    request(f"{url}/v1/find?q={q}&n=10")
                    with lock:
                        finds.append((time.monotonic() - began) * 1000)
                except Exception as e:
                    with lock:
                        errors.append(f"find: {e}")

        def writer():
            for name, short, body, _ in fresh:
                if time.monotonic() >= stop:
                    break
                began = time.monotonic()
                try:
                    request(f"{url}/v1/notes", {"text": f"{name}: {short}. {body}", "id": f"pkg/{name}"})
                    with lock:
                        writes.append((time.monotonic() - began) * 1000)
                except Exception as e:
                    with lock:
                        errors.append(f"put: {e}")

        began = time.monotonic()
        threads = [threading.Thread(target=reader, args=(i,)) for i in range(READERS)]
        threads.append(threading.Thread(target=writer))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - began
        cpu_after = [cpu_seconds(server.pid)] + [cpu_seconds(p, True) for p in servers.values()]
        status = json.loads(subprocess.run([KEEP, "--json", "serve", "--status"], env=env,
                                           capture_output=True, text=True).stdout or "{}")
    finally:
        server.terminate()
        server.wait()
    result = {
        "run": label,
        "finds": len(finds),
        "finds_per_s": round(len(finds) / elapsed, 1),
        "find_p50_ms": round(percentile(finds, 0.5), 1),
        "find_p99_ms": round(percentile(finds, 0.99), 1),
        "writes": len(writes),
        "write_p50_ms": round(percentile(writes, 0.5), 1),
        "errors": len(errors),
        "first_errors": errors[:3],
        "cpu_s": dict(zip(["keep serve", *servers], (round(a - b, 1) for a, b in zip(cpu_after, cpu_before)))),
        "replicas": status.get("replicas", []),
        "said_of_replicas": [l for l in said if "replica" in l],
    }
    print(json.dumps(result), flush=True)
    return result


def main():
    work = tempfile.mkdtemp(prefix="keep-replica-bench-")
    # The servers run as nobody when this runs as root: they must enter it.
    os.chmod(work, 0o755)
    primary_dir, standby_dir = os.path.join(work, "primary"), os.path.join(work, "standby")
    try:
        primary = pg("start", primary_dir)
        known = bench_support.packages(NOTES + 20000)
        stored, fresh = known[:NOTES], known[NOTES:]
        env = dict(os.environ, KEEP_STORE=primary, KEEP_BACKGROUND_EMBED="0")
        env.pop("KEEP_REPLICAS", None)
        server, url, _ = start_server(env)
        try:
            for name, short, body, _ in stored:
                request(f"{url}/v1/notes", {"text": f"{name}: {short}. {body}", "id": f"pkg/{name}"})
        finally:
            server.terminate()
            server.wait()
        # Every stored note gets its vector first: a find does not embed a backlog.
        subprocess.run([KEEP, "reindex"], env=env, check=True, capture_output=True)
        standby = pg("standby", standby_dir, primary_dir)
        queries = [p.short for p in stored]
        servers = {"primary": postmaster(primary_dir), "standby": postmaster(standby_dir)}
        alone = run(env, "primary alone", queries, fresh[: len(fresh) // 2], servers)
        with_replica = run(dict(env, KEEP_REPLICAS=standby), "primary + 1 replica", queries,
                           fresh[len(fresh) // 2:], servers)
        print()
        print("| run | finds/s | find p50 | find p99 | writes | write p50 | errors | CPU s: serve / primary / standby |")
        print("|---|---|---|---|---|---|---|---|")
        for r in (alone, with_replica):
            cpu = " / ".join(str(v) for v in r["cpu_s"].values())
            print(f"| {r['run']} | {r['finds_per_s']} | {r['find_p50_ms']} ms | {r['find_p99_ms']} ms "
                  f"| {r['writes']} | {r['write_p50_ms']} ms | {r['errors']} | {cpu} |")
    finally:
        for d in (standby_dir, primary_dir):
            if os.path.isdir(os.path.join(d, "data")):
                subprocess.run([PG, "stop", d], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    import urllib.parse
    main()
