"""Latency of `keep mcp` seen by the reference Python client.

Usage: KEEP_STORE=DIR python -P benches/mcp.py target/release/keep

Ten server processes: the time from spawning each to its `initialize`
result; in three of them, 20 `recall` calls (the first loads the model).
Prints one JSON line.
"""
import asyncio, json, os, sys, time, statistics
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
KEEP=sys.argv[1]
async def once(recalls):
    t0=time.perf_counter()
    async with stdio_client(StdioServerParameters(command=KEEP,args=["mcp"],env=dict(os.environ))) as (r,w), ClientSession(r,w) as s:
        await s.initialize()
        hs=(time.perf_counter()-t0)*1000
        rec=[]
        for q in recalls:
            t=time.perf_counter()
            res=await s.call_tool("recall",{"query":q})
            assert not res.is_error, res
            rec.append((time.perf_counter()-t)*1000)
        return hs, rec
async def main():
    hss=[]; first=[]; rest=[]
    qs=["how does the agent remember things","vector search ranking","terminal browser theme","pdf document pages","worker pool progress"]*4
    for i in range(10):
        hs,rec=await once(qs if i<3 else [])
        hss.append(hs)
        if rec: first.append(rec[0]); rest+=rec[1:]
    hss.sort(); rest.sort()
    print(json.dumps({"handshake_p50_ms":round(statistics.median(hss),1),"handshake_max_ms":round(hss[-1],1),
        "first_recall_ms":[round(x,1) for x in first],"recall_p50_ms":round(statistics.median(rest),1),
        "recall_p95_ms":round(rest[int(len(rest)*0.95)],1)}))
asyncio.run(main())
