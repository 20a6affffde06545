"""Time the conflict list's pair finding (no model: exact hashes + word overlap) at scale.

Entries are LoCoMo dialogue turns (../shared/bench-data/locomo, read in place) repeated
with suffixes up to N, plus the bilingual dev entries. Prints one table row per size and
compares with the all-pairs baseline on the smallest size (same pairs, slower).

    python bench/conflicts_scale.py [--sizes 1000,5000,10000]
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.pairs import find_pairs, lexical_pairs
from memdesk.core.pairs.features import cosine as _cosine
from memdesk.core.pairs.lexical import entry_token_counts as _token_counts

DATA = Path(__file__).resolve().parents[2] / "shared" / "bench-data"
if not DATA.is_dir():
    DATA = Path("/work/shared/bench-data")


def corpus() -> list[str]:
    texts: list[str] = []
    for path in sorted((DATA / "locomo").glob("*.json")):
        conv = json.loads(path.read_text("utf-8"))
        conv = conv.get("conversation", conv)
        for key, turns in conv.items():
            if key.startswith("session_") and isinstance(turns, list):
                texts.extend(t["text"] for t in turns if isinstance(t, dict) and t.get("text"))
    bilingual = json.loads((DATA / "bilingual" / "dev" / "entries.json").read_text("utf-8"))
    items = bilingual if isinstance(bilingual, list) else bilingual.get("entries", [])
    texts.extend(e["summary"] for e in items if isinstance(e, dict) and e.get("summary"))
    return texts


def entries(texts: list[str], n: int) -> list[Entry]:
    out = []
    for i in range(n):
        text = texts[i % len(texts)]
        if i >= len(texts):
            text = f"{text} (copy {i // len(texts)})"
        out.append(Entry(text, id=f"e{i:05d}", status="confirmed"))
    return out


def distinct(texts: list[str]) -> list[Entry]:
    out = []
    for i, text in enumerate(dict.fromkeys(texts)):
        out.append(Entry(text, id=f"d{i:05d}", status="confirmed"))
    return out


def all_pairs_count(pool: list[Entry]) -> int:
    vectors = {e.id: _token_counts(e) for e in pool}
    return sum(
        _cosine(vectors[a.id], vectors[b.id]) >= 0.45 for a, b in itertools.combinations(pool, 2)
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,5000,10000")
    args = parser.parse_args()
    texts = corpus()
    print(f"corpus: {len(texts)} texts")
    print(f"{'entries':>8} {'pairs':>6} {'find_pairs ms':>14}")
    for n in [int(s) for s in args.sizes.split(",")]:
        pool = entries(texts, n)
        t0 = time.perf_counter()
        pairs = find_pairs(pool)
        ms = (time.perf_counter() - t0) * 1000
        print(f"{n:>8} {len(pairs):>6} {ms:>14.1f}")
    small = entries(texts, int(args.sizes.split(",")[0]))
    t0 = time.perf_counter()
    candidates = all_pairs_count(small)
    base_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    lexical = lexical_pairs(small)
    ours_ms = (time.perf_counter() - t0) * 1000
    print(
        f"baseline all-pairs cosine at {len(small)}: {base_ms:.1f} ms "
        f"({candidates} pairs >= 0.45) vs inverted index {ours_ms:.1f} ms "
        f"({len(lexical)} pairs reported)"
    )


if __name__ == "__main__":
    main()
