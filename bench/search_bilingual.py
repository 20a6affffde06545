"""Bilingual dev set: R@1 / R@5 / MRR per query type, false hits on `none` queries.

Compares the embedding models and the modes, the default model first (its hybrid row is
the default configuration). The set has no held-out part: the method was developed on
it, so read it as a dev figure. Run: python bench/search_bilingual.py [--models a,b]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memdesk.core.search import SearchService  # noqa: E402
from memdesk.core.search.embedder import BUILTIN_MODELS, DEFAULT_MODEL  # noqa: E402
from memdesk.core.search.languages import CJK, language_of  # noqa: E402
from search_common import load_bilingual, print_table  # noqa: E402

TYPES = ("exact", "paraphrase", "crosslingual", "mixed")


def evaluate(service: SearchService, queries: list[dict], mode: str) -> dict[str, dict[str, float]]:
    per_type: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    none_hits: list[int] = []
    for q in queries:
        hits = [h.entry_id for h in service.search(q["query"], mode=mode, limit=10)]
        relevant = set(q["relevant"])
        if q["type"] == "none":
            none_hits.append(len(hits[:5]))
            continue
        rank = next((i for i, h in enumerate(hits, 1) if h in relevant), None)
        per_type[q["type"]].append(
            (float(rank == 1), float(rank is not None and rank <= 5), 1.0 / rank if rank else 0.0)
        )
    out: dict[str, dict[str, float]] = {}
    every: list[tuple[float, float, float]] = []
    for t in TYPES:
        rows = per_type[t]
        every += rows
        out[t] = {k: sum(r[i] for r in rows) / len(rows) for i, k in enumerate(("r1", "r5", "mrr"))}
    out["all"] = {
        k: sum(r[i] for r in every) / len(every) for i, k in enumerate(("r1", "r5", "mrr"))
    }
    out["none"] = {
        "with_hits": sum(1 for n in none_hits if n) / len(none_hits),
        "mean_hits": sum(none_hits) / len(none_hits),
    }
    return out


def print_duplicates(models: list[str], entries: list) -> None:
    """Pairs the review queue would show, per model, found as the app finds them
    (SearchService.duplicates: centred vectors for e5). The data has one contradiction,
    e017/e018, across languages, and near-duplicates across languages; the default
    model's pairs across languages are scored against the ones a reader finds."""
    rows = []
    crosslingual: list[list[object]] = []
    for model in models:
        with tempfile.TemporaryDirectory() as tmp:
            service = SearchService(Path(tmp), {"search": {"model": model}})
            service.sync(entries)
            pairs = service.duplicates()
        for kind in ("exact", "near", "contradiction"):
            found = [f"{p.a}/{p.b}" for p in pairs if p.type == kind]
            rows.append([model, kind, len(found), " ".join(found[:4])])
        if model == DEFAULT_MODEL:
            crosslingual = _crosslingual_rows(pairs, entries)
    print("duplicates / contradictions among candidate + confirmed entries")
    print_table(["model", "type", "pairs", "examples"], rows)
    if crosslingual:
        print(
            f"{DEFAULT_MODEL}: pairs across languages against the {len(_GOLD)} a reader "
            "finds (bench/bilingual_crosslingual_pairs.json)"
        )
        print_table(["type", "found, right", "found, false", "missed", "false pairs"], crosslingual)


_GOLD_FILE = Path(__file__).resolve().parent / "bilingual_crosslingual_pairs.json"
_GOLD: dict[frozenset[str], str] = {
    frozenset(pair): kind
    for kind, pairs in json.loads(_GOLD_FILE.read_text("utf-8")).items()
    if kind != "about"
    for pair in pairs
}


def _crosslingual_rows(pairs: list, entries: list) -> list[list[object]]:
    """Found vs false cross-language pairs per type (a wrong type counts as false)."""
    chinese = {e.id for e in entries if language_of(e.search_text()) == CJK}
    across = {frozenset((p.a, p.b)): p.type for p in pairs if (p.a in chinese) != (p.b in chinese)}
    rows: list[list[object]] = []
    for kind in ("near", "contradiction"):
        found = {k for k, t in across.items() if t == kind}
        meant = {k for k, t in _GOLD.items() if t == kind}
        false = sorted("/".join(sorted(k)) for k in found - meant)
        rows.append([kind, len(found & meant), len(false), len(meant - found), " ".join(false)])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--models",
        default=",".join(dict.fromkeys([DEFAULT_MODEL, "none", *BUILTIN_MODELS])),
        help="comma-separated; the default model first",
    )
    parser.add_argument("--no-duplicates", action="store_true", help="skip the pair table")
    args = parser.parse_args()
    models = [m for m in args.models.split(",") if m]
    entries, queries = load_bilingual()
    print(f"bilingual dev: {len(entries)} entries, {len(queries)} queries\n")
    rows = []
    none_rows = []
    for model in models:
        with tempfile.TemporaryDirectory() as tmp:
            service = SearchService(Path(tmp), {"search": {"model": model}})
            t0 = time.perf_counter()
            service.sync(entries)
            build = time.perf_counter() - t0
            modes = (
                ("text",)
                if model == "none"
                else ("semantic", "hybrid", "hybrid+rrf", "hybrid+coverage-rrf")
            )
            for mode in modes:
                # "hybrid" is the default convex fusion; "+rrf" etc. the other search.fusion
                fusion = mode.split("+")[1] if "+" in mode else "convex"
                service.settings = replace(service.settings, fusion=fusion)
                result = evaluate(service, queries, mode.split("+")[0])
                label = f"{model if model != 'none' else '-'} / {mode}"
                if model == DEFAULT_MODEL and mode == "hybrid":
                    label += " (default)"
                row = [label]
                for t in (*TYPES, "all"):
                    row += [result[t]["r1"], result[t]["r5"], result[t]["mrr"]]
                rows.append(row)
                none_rows.append(
                    [
                        label,
                        result["none"]["with_hits"],
                        result["none"]["mean_hits"],
                        f"{build:.1f}s",
                    ]
                )
    if not args.no_duplicates:
        print_duplicates([m for m in models if m != "none"], entries)
    headers = ["model / mode"]
    for t in (*TYPES, "all"):
        headers += [f"{t} R@1", "R@5", "MRR"]
    print_table(headers, rows)
    print("`none` queries (nothing relevant): share with any hit in the top 5, mean hits in top 5")
    print_table(["model / mode", "with hits", "mean hits", "index build"], none_rows)


if __name__ == "__main__":
    main()
