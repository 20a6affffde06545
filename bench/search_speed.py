"""Speed at scale: memdesk search against SQLite FTS5 + numpy brute-force cosine.

N synthetic entries (sentences of the LoCoMo and bilingual data recombined, Chinese and
English). Embedding N texts with the real model would take an hour on a small machine,
so both sides get the same pre-computed random unit vectors (memdesk through its vector
cache, which is how a restart sees them); query embedding uses the real model on both
sides and is included in every query time. Each side runs in its own process so peak
RSS is its own. "bench entries" is the RSS after the interpreter started and the bench
made its N `Entry` objects (which in the app the Store holds); the rest of the peak is
the search side's own: indexes, vectors and the embedding model (loaded at the first
query embedding).

Run: python bench/search_speed.py [--n 100000] [--queries 100]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memdesk.core.entry import KINDS, SCOPES, STATUSES, Entry  # noqa: E402
from memdesk.core.search.embedder import DEFAULT_MODEL, load_embedder  # noqa: E402
from search_common import BENCH_DATA, load_bilingual, print_table  # noqa: E402
from search_locomo import load_conversation  # noqa: E402

MODES = ("text", "semantic", "hybrid")
UPDATES = 20


def corpus() -> tuple[list[str], list[str]]:
    """Sentences to recombine, and queries (LoCoMo questions + bilingual queries)."""
    sentences: list[str] = []
    queries: list[str] = []
    for path in sorted((BENCH_DATA / "locomo").glob("*.json")):
        entries, questions = load_conversation(path)
        sentences += [e.summary.split(": ", 1)[-1] for e in entries]
        queries += [q for q, _ in questions]
    entries, bilingual = load_bilingual()
    sentences += [e.summary for e in entries] + [f for e in entries for f in e.facts]
    queries += [q["query"] for q in bilingual]
    return sentences, queries


def make_entries(n: int) -> list[Entry]:
    sentences, _ = corpus()
    rng = random.Random(7)
    return [
        Entry(
            summary=f"{rng.choice(sentences)} {rng.choice(sentences)}",
            facts=[f"ref {i}"],
            id=f"s{i:06d}",
            kind=rng.choice(KINDS),
            scope=rng.choice(SCOPES),
            status=rng.choice(STATUSES),
        )
        for i in range(n)
    ]


def make_vectors(n: int, dim: int) -> np.ndarray:
    vectors = np.random.default_rng(0).standard_normal((n, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def pick_queries(count: int) -> list[str]:
    _, queries = corpus()
    return random.Random(3).sample(queries, count)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    return (
        statistics.median(ordered) * 1000,
        ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000,
    )


# -- sides ----------------------------------------------------------------------
def prefill(args: argparse.Namespace) -> dict:
    """Write the synthetic vectors into memdesk's cache (not timed, own process)."""
    from memdesk.core.search.vector_cache import VectorCache, content_key

    embedder = load_embedder(args.model, Path(args.work) / "model").embedder
    entries = make_entries(args.n)
    cache = VectorCache(Path(args.work) / "ours" / "vectors" / embedder.name, embedder.dim)
    cache.put([content_key(e.search_text()) for e in entries], make_vectors(args.n, embedder.dim))
    cache.flush()
    return {}


def run_ours(args: argparse.Namespace) -> dict:
    from memdesk.core.search import SearchService

    embedder = load_embedder(args.model, Path(args.work) / "model").embedder
    entries = make_entries(args.n)
    rss_entries = peak_rss_mb()
    t0 = time.perf_counter()
    service = SearchService(
        Path(args.work) / "ours", {"search": {"model": args.model}}, embedder=embedder
    )
    report = service.sync(entries)
    build = time.perf_counter() - t0
    assert report.embedded == 0, report
    updates = []
    rng = random.Random(11)
    for k in range(UPDATES):
        entry = rng.choice(entries).copy(summary=f"updated fact number {k} about deploys")
        entry.version += 1
        t0 = time.perf_counter()
        service.update(entry)
        updates.append(time.perf_counter() - t0)
    out = {"build": build, "update": statistics.median(updates) * 1000}
    for mode in MODES:
        times = []
        for query in pick_queries(args.queries):
            service.forget_query_vectors()  # query embedding is part of every query
            t0 = time.perf_counter()
            service.search(query, mode=mode, limit=10)
            times.append(time.perf_counter() - t0)
        out[mode] = percentiles(times)
    out["rss_queries"] = peak_rss_mb()
    out["rss_entries"] = rss_entries
    # A restart: a new service over unchanged entries (after the first is gone).
    del service
    t0 = time.perf_counter()
    SearchService(Path(args.work) / "ours", embedder=embedder).sync(entries)
    out["restart"] = time.perf_counter() - t0
    out["rss"] = peak_rss_mb()  # the peak over build, updates, queries and restart
    return out


_FTS_WORD = re.compile(r"\w+")


def fts_query(text: str) -> str:
    words = dict.fromkeys(w.lower() for w in _FTS_WORD.findall(text))
    return " OR ".join(f'"{w}"' for w in words)


def run_baseline(args: argparse.Namespace) -> dict:
    embedder = load_embedder(args.model, Path(args.work) / "model").embedder
    entries = make_entries(args.n)
    rss_entries = peak_rss_mb()
    db_path = Path(args.work) / "baseline.sqlite"
    db_path.unlink(missing_ok=True)
    t0 = time.perf_counter()
    db = sqlite3.connect(db_path)
    db.execute(
        "CREATE VIRTUAL TABLE fts USING fts5(id UNINDEXED, body, tokenize='porter unicode61')"
    )
    with db:
        db.executemany(
            "INSERT INTO fts (id, body) VALUES (?, ?)", ((e.id, e.search_text()) for e in entries)
        )
    ids = [e.id for e in entries]
    row_of = {i: n for n, i in enumerate(ids)}
    matrix = make_vectors(args.n, embedder.dim)  # stands for loading stored vectors
    build = time.perf_counter() - t0
    updates = []
    rng = random.Random(11)
    for k in range(UPDATES):
        entry = rng.choice(entries)
        text = f"updated fact number {k} about deploys"
        t0 = time.perf_counter()
        with db:
            db.execute("UPDATE fts SET body = ? WHERE id = ?", (text, entry.id))
        matrix[row_of[entry.id]] = embedder.embed([text])[0]
        updates.append(time.perf_counter() - t0)

    def text_search(query: str) -> list[str]:
        q = fts_query(query)
        if not q:
            return []
        sql = "SELECT id FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT 50"
        return [r[0] for r in db.execute(sql, (q,))]

    def semantic_search(query: str) -> list[str]:
        scores = matrix @ embedder.embed([query])[0]
        top = np.argpartition(-scores, 50)[:50]
        return [ids[r] for r in top[np.argsort(-scores[top])]]

    def hybrid_search(query: str) -> list[str]:
        fused: dict[str, float] = {}
        for ranked in (text_search(query), semantic_search(query)):
            for rank, entry_id in enumerate(ranked, 1):
                fused[entry_id] = fused.get(entry_id, 0.0) + 1.0 / (60 + rank)
        return sorted(fused, key=fused.get, reverse=True)[:10]

    out = {"build": build, "restart": None, "update": statistics.median(updates) * 1000}
    for mode, fn in (
        ("text", text_search),
        ("semantic", semantic_search),
        ("hybrid", hybrid_search),
    ):
        times = []
        for query in pick_queries(args.queries):
            t0 = time.perf_counter()
            fn(query)
            times.append(time.perf_counter() - t0)
        out[mode] = percentiles(times)
    out["rss"] = peak_rss_mb()
    out["rss_entries"] = rss_entries
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--side", choices=("prefill", "ours", "baseline"))
    parser.add_argument("--work")
    args = parser.parse_args()
    if args.side:
        fn = {"prefill": prefill, "ours": run_ours, "baseline": run_baseline}[args.side]
        print(json.dumps(fn(args)))
        return
    with tempfile.TemporaryDirectory() as work:
        results = {}
        for side in ("prefill", "ours", "baseline"):
            cmd = [sys.executable, __file__, "--side", side, "--work", work]
            cmd += ["--n", str(args.n), "--queries", str(args.queries), "--model", args.model]
            done = subprocess.run(cmd, check=True, capture_output=True, text=True)
            results[side] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{args.n} synthetic entries, {args.queries} queries per mode, model {args.model}\n")
    rows = []
    for side, label in (
        ("ours", "memdesk (tantivy + cached vectors)"),
        ("baseline", "SQLite FTS5 + numpy cosine"),
    ):
        r = results[side]
        row = [label, f"{r['build']:.1f}s", f"{r['restart']:.1f}s" if r["restart"] else "-"]
        row.append(f"{r['update']:.1f}")
        for mode in MODES:
            row.append(f"{r[mode][0]:.1f} / {r[mode][1]:.1f}")
        row += [f"{r['rss']:.0f}", f"{r['rss_entries']:.0f}"]
        row.append(f"{r['rss'] - r['rss_entries']:.0f}")
        rows.append(row)
    print_table(
        [
            "system",
            "build",
            "restart sync",
            "update 1 (ms)",
            "text p50/p95 ms",
            "semantic p50/p95 ms",
            "hybrid p50/p95 ms",
            "peak RSS MB",
            "of it bench entries",
            "search + model",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
