"""LoCoMo retrieval recall: one entry per turn, questions of categories 1-4 as queries.

recall_any@k: some evidence turn is in the top k; recall_all@10: every evidence turn is.
Run: python bench/search_locomo.py [--models use-multilingual,minilm-int8]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memdesk.core.entry import Entry, Source  # noqa: E402
from memdesk.core.search import SearchService  # noqa: E402
from memdesk.core.search.embedder import load_embedder  # noqa: E402
from search_common import BENCH_DATA, print_table  # noqa: E402

KS = (1, 5, 10)


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
                    source=Source(origin="locomo", locator=turn["dia_id"], timestamp=when),
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="use-multilingual,minilm-int8")
    parser.add_argument("--min-similarity", type=float, default=None)
    parser.add_argument("--fusion", default="convex")
    parser.add_argument("--conversations", type=int, default=0, help="first N only (0: all)")
    args = parser.parse_args()
    files = sorted((BENCH_DATA / "locomo").glob("*.json"))
    files = files[: args.conversations] if args.conversations else files
    convs = [load_conversation(f) for f in files]
    n_entries = sum(len(e) for e, _ in convs)
    n_questions = sum(len(q) for _, q in convs)
    print(
        f"LoCoMo: {len(files)} conversations, {n_entries} turns, {n_questions} questions (cat 1-4)\n"
    )
    rows = []
    for model in args.models.split(","):
        embedder = load_embedder(
            model, Path(tempfile.gettempdir()) / "memdesk-bench-model"
        ).embedder
        modes = ("text", "semantic", "hybrid")
        settings = {"search": {"model": model, "fusion": args.fusion}}
        if args.min_similarity is not None:
            settings["search"]["min_similarity"] = args.min_similarity
        totals = {m: {"any": dict.fromkeys(KS, 0), "all10": 0} for m in modes}
        t0 = time.perf_counter()
        for entries, questions in convs:
            with tempfile.TemporaryDirectory() as tmp:
                service = SearchService(Path(tmp), settings, embedder=embedder)
                service.sync(entries)
                for question, evidence in questions:
                    for mode in modes:
                        top = [h.entry_id for h in service.search(question, mode=mode, limit=10)]
                        for k in KS:
                            totals[mode]["any"][k] += bool(evidence & set(top[:k]))
                        totals[mode]["all10"] += evidence <= set(top)
        elapsed = time.perf_counter() - t0
        for mode in modes:
            if mode == "text" and rows:
                continue  # full text does not depend on the model
            t = totals[mode]
            label = "- / text" if mode == "text" else f"{model} / {mode}"
            rows.append([label, *(t["any"][k] / n_questions for k in KS), t["all10"] / n_questions])
        print(f"{model}: index + {3 * n_questions} queries in {elapsed:.1f}s")
    print()
    print_table(["model / mode", "recall_any@1", "@5", "@10", "recall_all@10"], rows)


if __name__ == "__main__":
    main()
