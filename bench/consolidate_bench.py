"""Consolidation benchmark: a generated store with planted cases; recall per class,
false positives and run time, against the search package's all-pairs duplicate finder
as the baseline (same vectors, same store).

    python bench/consolidate_bench.py                 # 10k entries, 100 per class
    python bench/consolidate_bench.py --total 2000 --per-class 20 --baseline-total 2000
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from memdesk.core.consolidate import apply, build_plan
from memdesk.core.consolidate.synthetic import CLASSES, false_positives, generate_store, recall
from memdesk.core.pairs import find_duplicates
from memdesk.core.pairs.lexical_vectors import LexicalEmbedder, lexical_features
from memdesk.core.search.settings import SearchSettings


def run_plan(total: int, per_class: int, seed: int, apply_it: bool, repeat: int = 3) -> dict:
    root = Path(tempfile.mkdtemp(prefix="memdesk-consolidate-bench-"))
    try:
        started = time.perf_counter()
        store, planted = generate_store(root, total=total, per_class=per_class, seed=seed)
        generated = time.perf_counter() - started
        started = time.perf_counter()
        store.entries()
        loaded = time.perf_counter() - started
        runs = []
        for _ in range(repeat):  # the machine is shared: report the median of a few runs
            lexical_features.cache_clear()
            started = time.perf_counter()
            plan = build_plan(store)
            runs.append((time.perf_counter() - started, plan.phase_ms))
        runs.sort(key=lambda r: r[0])
        planned, phases = runs[len(runs) // 2]
        proposals = [p.to_json() for p in plan.proposals]
        out = {
            "total": planted.total,
            "generate_s": generated,
            "load_s": loaded,
            "plan_s": planned,
            "plan_runs": [r[0] for r in runs],
            "phases": phases,
            "proposals": len(proposals),
            "recall": recall(proposals, planted),
            "false_positives": false_positives(proposals, planted),
        }
        if apply_it:
            started = time.perf_counter()
            result = apply(store, plan)
            out["apply_s"] = time.perf_counter() - started
            out["compression"] = result.metrics.compression_ratio
            out["entries_after"] = result.metrics.after_entries
        return out
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_baseline(total: int, per_class: int, seed: int) -> dict:
    """search.find_duplicates (all pairs, classify_pair per pair) on the same vectors."""
    root = Path(tempfile.mkdtemp(prefix="memdesk-consolidate-base-"))
    try:
        store, planted = generate_store(root, total=total, per_class=per_class, seed=seed)
        pool = [e for e in store.entries() if e.status in ("candidate", "confirmed")]
        started = time.perf_counter()
        texts = [e.search_text() for e in pool]
        embedder = LexicalEmbedder().fit(texts)
        pairs = find_duplicates(
            pool,
            embedder,
            settings=SearchSettings(model="none", contradiction_similarity=0.3),
        )
        elapsed = time.perf_counter() - started
        merges = [
            {"action": "merge", "entry_ids": [p.a, p.b]} for p in pairs if p.type != "contradiction"
        ]
        supersedes = [
            {"action": "supersede", "entry_ids": [p.a, p.b]}
            for p in pairs
            if p.type == "contradiction"
        ]
        found = recall(merges + supersedes, planted)
        return {
            "total": planted.total,
            "time_s": elapsed,
            "recall": {k: found[k] for k in ("exact", "near", "contradiction")},
            "pairs": len(pairs),
            "false_positives": false_positives(merges + supersedes, planted),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--total", type=int, default=10_000)
    parser.add_argument("--per-class", type=int, default=100)
    parser.add_argument("--baseline-total", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-apply", action="store_true")
    args = parser.parse_args(argv)

    ours = run_plan(args.total, args.per_class, args.seed, not args.no_apply)
    per = max(1, args.per_class * args.baseline_total // args.total)
    small = run_plan(args.baseline_total, per, args.seed, False)
    base = run_baseline(args.baseline_total, per, args.seed)

    print(
        f"consolidation on a generated store ({ours['total']} entries, {args.per_class} planted per class)"
    )
    runs = ", ".join(f"{t:.2f}" for t in ours["plan_runs"])
    print(
        f"  generate {ours['generate_s']:.1f} s · load {ours['load_s']:.1f} s · "
        f"plan {ours['plan_s']:.2f} s (median of {runs}) · {ours['proposals']} proposals · "
        f"false positives {ours['false_positives']}"
    )
    print("  plan phases (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in ours["phases"].items()))
    if "apply_s" in ours:
        print(
            f"  apply all {ours['apply_s']:.1f} s (one batch) · entries after "
            f"{ours['entries_after']} · compression ratio {ours['compression']:.3f}"
        )
    print()
    print(
        f"{'class':<14}{'recall @' + str(ours['total']):>16}{'recall @' + str(small['total']):>16}"
        f"{'baseline @' + str(base['total']):>18}"
    )
    for cls in CLASSES:
        hit, n = ours["recall"][cls]
        hit2, n2 = small["recall"][cls]
        cell = "-"
        if cls in base["recall"]:
            b, bn = base["recall"][cls]
            cell = f"{b}/{bn} ({b / bn:.0%})"
        print(
            f"{cls:<14}{f'{hit}/{n} ({hit / n:.0%})':>16}{f'{hit2}/{n2} ({hit2 / n2:.0%})':>16}{cell:>18}"
        )
    print()
    print(f"{'pair finding':<14}{'time':>16}{'false pos.':>16}")
    print(
        f"{'ours @' + str(small['total']):<14}{small['plan_s']:>15.2f}s{small['false_positives']:>16}"
        "   (whole plan: 4 phases)"
    )
    print(
        f"{'baseline @' + str(base['total']):<14}{base['time_s']:>15.2f}s{base['false_positives']:>16}"
        "   (find_duplicates only)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
