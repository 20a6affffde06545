"""Latency of `memdesk mcp` as an agent sees it: a real server process and the MCP
SDK's stdio client, on a copy of the bundled demo project (plus --extra synthetic
confirmed entries).

    python bench/mcp_latency.py [--calls 30] [--extra 1000] [--model none|default]
                                [--cold-index]

The search index is built before the server starts (as an open desk keeps it), unless
--cold-index: then the server's first search waits for every entry to be embedded.

start     spawn + initialize handshake (Python start, imports, opening the store)
remember  a new candidate per call (guard, de-duplication under the lock, one commit)
search    text mode; hybrid too when --model default (the first hybrid call loads
          the embedding model: reported apart as `first hybrid`)
context   `context` with no query (the block as settings say)
pending   counting the candidates
Each figure is the median (and max) over --calls calls, in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from memdesk.core.demo import copy_demo_project
from memdesk.core.entry import Entry
from memdesk.core.store import Store


def _prepare(root: Path, extra: int, model: str, cold_index: bool) -> Path:
    workdir = copy_demo_project(root / "demo")
    store = Store.open(workdir)
    if model == "none":
        text = store.settings_path.read_text("utf-8")
        store.settings_path.write_text(text + '\n[search]\nmodel = "none"\n', "utf-8")
    store.add_many(
        [
            Entry(summary=f"Synthetic fact {n}: service {n % 37} listens on port {8000 + n}",
                  status="confirmed")
            for n in range(extra)
        ],
        actor="cli",
    )  # fmt: skip
    if not cold_index:
        from memdesk.core.search import SearchService

        SearchService.for_store(store)
    return workdir


async def _measure(workdir: Path, calls: int, model: str) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {}

    async def timed(name: str, session: ClientSession, tool: str, args: dict[str, Any]) -> None:
        t0 = time.perf_counter()
        result = await session.call_tool(tool, args)
        times.setdefault(name, []).append((time.perf_counter() - t0) * 1000)
        if result.is_error:
            raise SystemExit(f"{tool} failed: {result.content}")

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memdesk.cli", "--dir", str(workdir), "mcp"]
    )
    t0 = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        times["start"] = [(time.perf_counter() - t0) * 1000]
        for n in range(calls):
            await timed("remember", session, "remember", {"text": f"Bench fact {n} {time.time()}"})
        for _ in range(calls):
            await timed("search (text)", session, "search", {"query": "port", "mode": "text"})
        if model != "none":
            await timed("first hybrid", session, "search", {"query": "which port"})
            for _ in range(calls):
                await timed("search (hybrid)", session, "search", {"query": "which port"})
        for _ in range(calls):
            await timed("context", session, "context", {})
        for _ in range(calls):
            await timed("pending", session, "pending", {})
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--extra", type=int, default=1000)
    parser.add_argument("--model", choices=("none", "default"), default="none")
    parser.add_argument("--cold-index", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = _prepare(Path(tmp), args.extra, args.model, args.cold_index)
        entries = len(Store.open(workdir).entries())
        times = anyio.run(_measure, workdir, args.calls, args.model)
    print(f"{entries} entries before the run, {args.calls} calls per tool, model={args.model}")
    for name, values in times.items():
        print(f"{name:16} median {statistics.median(values):8.1f} ms   max {max(values):8.1f} ms")


if __name__ == "__main__":
    main()
