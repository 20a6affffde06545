"""LoCoMo retrieval recall: one entry per turn, questions of categories 1-4 as queries.

recall_any@k: some evidence turn is in the top k; recall_all@10: every evidence turn is.
Each turn keeps its session (source session id, locator = dia_id, timestamp = the
session's date), as an extracted entry keeps the transcript session it came from.
Conversations are split: `dev` (26, 30, 41: what the method was developed on) and
`held-out` (42, 43: looked at only to report); both are printed, the default model first.
Run: python bench/search_locomo.py [--models e5-multilingual,use-multilingual]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memdesk.core.entry import Entry, Source  # noqa: E402
from memdesk.core.search import SearchService  # noqa: E402
from memdesk.core.search.embedder import (  # noqa: E402
    BUILTIN_MODELS,
    DEFAULT_MODEL,
    load_embedder,
)
from search_common import BENCH_DATA, peak_rss_mb, print_table  # noqa: E402

KS = (1, 5, 10)
HELD_OUT = frozenset({"42", "43"})  # conversations never used to choose the method


def _entry_id(conv: str, dia_id: str) -> str:
    return f"c{conv}-" + re.sub(r"[^A-Za-z0-9]", "_", dia_id.strip())


def load_conversation(path: Path) -> tuple[list[Entry], list[tuple[str, set[str]]]]:
    data = json.loads(path.read_text("utf-8"))
    conv = path.stem
    entries: list[Entry] = []
    n = 1
    while f"session_{n}" in data:
        when = data.get(f"session_{n}_date_time", "")
        for turn in data[f"session_{n}"]:
            facts = [f"[shares {turn['blip_caption']}]"] if turn.get("blip_caption") else []
            entries.append(
                Entry(
                    summary=f"{turn['speaker']}: {turn['text']}",
                    facts=facts,
                    id=_entry_id(conv, turn["dia_id"]),
                    status="confirmed",
                    kind="event",
                    source=Source(
                        origin="locomo",
                        session_id=f"{conv}-{n}",
                        locator=turn["dia_id"],
                        timestamp=when,
                    ),
                )
            )
        n += 1
    questions = []
    for qa in data["qa"]:
        if qa.get("category") not in (1, 2, 3, 4) or not qa.get("evidence"):
            continue
        evidence = {
            _entry_id(conv, part)
            for item in qa["evidence"]
            for part in re.split(r"[;,]", item)
            if part.strip()
        }
        questions.append((qa["question"], evidence))
    return entries, questions


def _evaluate(
    convs: list[tuple[str, list[Entry], list[tuple[str, set[str]]]]],
    model: str,
    settings: dict,
    cache: Path | None,
) -> tuple[dict[str, dict[str, list[float]]], float]:
    """Recall per mode and split: {split: {mode: [any@1, any@5, any@10, all@10, n]}}."""
    embedder = load_embedder(model, Path(tempfile.gettempdir()) / "memdesk-bench-model").embedder
    modes = ("text", "semantic", "hybrid") if embedder is not None else ("text",)
    out: dict[str, dict[str, list[float]]] = {
        split: {m: [0.0] * 5 for m in modes} for split in ("dev", "held-out")
    }
    t0 = time.perf_counter()
    for conv, entries, questions in convs:
        with tempfile.TemporaryDirectory() as tmp:
            index_dir = Path(tmp)
            if cache is not None:  # keep the vectors between runs, never the text index
                index_dir = cache / conv
                for name in ("text", "search-state.json", "search-state.log"):
                    path = index_dir / name
                    shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
            service = SearchService(index_dir, settings, embedder=embedder)
            started = time.perf_counter()
            report = service.sync(entries)
            print(
                f"  {conv}: indexed {len(entries)} turns in {time.perf_counter() - started:.1f}s "
                f"({report.embedded} texts embedded, the rest from the cache)",
                flush=True,
            )
            totals = out["held-out" if conv in HELD_OUT else "dev"]
            for question, evidence in questions:
                for mode in modes:
                    top = [h.entry_id for h in service.search(question, mode=mode, limit=10)]
                    row = totals[mode]
                    for n, k in enumerate(KS):
                        row[n] += bool(evidence & set(top[:k]))
                    row[3] += evidence <= set(top)
                    row[4] += 1
    return out, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--models",
        default=",".join(m for m in dict.fromkeys([DEFAULT_MODEL, *BUILTIN_MODELS]) if m != "none"),
        help="comma-separated; the default model first",
    )
    parser.add_argument("--min-similarity", type=float, default=None)
    parser.add_argument("--fusion", default=None, help="default: the settings default")
    parser.add_argument("--conversations", type=int, default=0, help="first N only (0: all)")
    parser.add_argument("--cache", type=Path, default=None, help="keep vectors here between runs")
    args = parser.parse_args()
    files = sorted((BENCH_DATA / "locomo").glob("*.json"))
    files = files[: args.conversations] if args.conversations else files
    convs = [(f.stem, *load_conversation(f)) for f in files]
    n_entries = sum(len(e) for _, e, _ in convs)
    n_questions = sum(len(q) for _, _, q in convs)
    print(
        f"LoCoMo: {len(files)} conversations, {n_entries} turns, {n_questions} questions "
        f"(cat 1-4); held-out conversations: {', '.join(sorted(HELD_OUT))}\n"
    )
    rows = []
    text_done: set[str] = set()  # full text does not depend on the model: once per split
    for model in [m for m in args.models.split(",") if m]:
        settings: dict = {"model": model}
        if args.fusion:
            settings["fusion"] = args.fusion
        if args.min_similarity is not None:
            settings["min_similarity"] = args.min_similarity
        results, elapsed = _evaluate(convs, model, {"search": settings}, args.cache)
        for split, by_mode in results.items():
            for mode, (a1, a5, a10, all10, n) in by_mode.items():
                if not n or (mode == "text" and split in text_done):
                    continue
                text_done.add(split) if mode == "text" else None
                label = "- / text" if mode == "text" else f"{model} / {mode}"
                if model == DEFAULT_MODEL and mode == "hybrid" and not args.fusion:
                    label += " (default)"
                rows.append([split, label, a1 / n, a5 / n, a10 / n, all10 / n, int(n)])
        print(f"{model}: index + queries in {elapsed:.1f}s; peak RSS {peak_rss_mb():.0f} MB")
    print()
    rows.sort(key=lambda r: r[0] != "dev")  # dev first, keeping each split's model order
    headers = ["split", "model / mode", "recall_any@1", "@5", "@10", "recall_all@10", "questions"]
    print_table(headers, rows)


if __name__ == "__main__":
    main()
