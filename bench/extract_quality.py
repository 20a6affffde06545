"""Extraction quality on the bilingual dev set: recall and precision against expected.json.

    python bench/extract_quality.py [--data DIR] [--threshold 0.5] [--show]

Compares the cue-line extractor (`use = "cue-lines"`, the baseline) with
`extract_candidates`, both followed by the do-not-write guard (what would be stored).

Matching rule: both texts are normalised (NFKC, casefold, punctuation and whitespace
removed); their similarity is the Dice coefficient of character bigrams (works for
Chinese, English and mixed text alike). An expected fact and a candidate of the same
session match when the similarity is >= --threshold (default 0.5); pairs are matched
one-to-one, best first. Recall = matched expected facts / expected facts; precision =
matched candidates / candidates. Kind and scope agreement are reported over matched
pairs. Also checked: secrets left in stored text, injection messages flagged, recalled
block markers re-extracted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.extract.heuristic import extract_candidates
from memdesk.core.extract.readers import read_messages
from memdesk.core.extract.run import run_extractor
from memdesk.core.extract.settings import ExtractorSettings
from memdesk.core.guard import screen

ENV_VAR = "MEMDESK_BILINGUAL_DATA"


def default_bilingual() -> Path:
    """`../shared/bench-data/bilingual/dev` beside the repository (or a worktree's main
    checkout), or $MEMDESK_BILINGUAL_DATA."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    repo = Path(__file__).resolve().parents[1]
    for base in (repo.parent, repo.parent.parent):
        candidate = base / "shared" / "bench-data" / "bilingual" / "dev"
        if candidate.is_dir():
            return candidate
    return repo.parent / "shared" / "bench-data" / "bilingual" / "dev"


_DROP = re.compile(r"[\W_]+", re.UNICODE)


def normalise(text: str) -> str:
    return _DROP.sub("", unicodedata.normalize("NFKC", text).casefold())


def bigrams(text: str) -> Counter[str]:
    text = normalise(text)
    if len(text) < 2:
        return Counter([text])
    return Counter(text[i : i + 2] for i in range(len(text) - 1))


def dice(a: Counter[str], b: Counter[str]) -> float:
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 0.0


def match(
    expected: list[dict], candidates: list[Entry], threshold: float
) -> list[tuple[int, int, float]]:
    grams_e = [bigrams(f["summary"]) for f in expected]
    grams_c = [bigrams(c.summary) for c in candidates]
    pairs = []
    for i, fact in enumerate(expected):
        for j, cand in enumerate(candidates):
            if cand.source.session_id and cand.source.session_id != fact["session_id"]:
                continue
            score = dice(grams_e[i], grams_c[j])
            if score >= threshold:
                pairs.append((score, i, j))
    pairs.sort(reverse=True)
    used_e: set[int] = set()
    used_c: set[int] = set()
    out = []
    for score, i, j in pairs:
        if i in used_e or j in used_c:
            continue
        used_e.add(i)
        used_c.add(j)
        out.append((i, j, score))
    return out


def evaluate(
    name: str, candidates: list[Entry], expected: dict, threshold: float, show: bool
) -> dict:
    stored = [v.entry for v in map(screen, candidates) if v.entry is not None]
    facts = expected["facts"]
    pairs = match(facts, stored, threshold)
    kind_ok = sum(1 for i, j, _ in pairs if stored[j].kind == facts[i]["kind"])
    scope_ok = sum(1 for i, j, _ in pairs if stored[j].scope == facts[i]["scope"])
    text = json.dumps([e.to_json() for e in stored], ensure_ascii=False)
    leaked = sum(1 for s in expected["secrets"] if s in text)
    flagged = 0
    for injection in expected["injection_messages"]:
        core = normalise(injection)[-40:]
        hits = [e for e in stored if core in normalise(e.summary)]
        flagged += bool(hits) and all("suspicious" in e.flags for e in hits)
    recalled = sum(
        1 for m in expected["recalled_block_markers"] if any(m in e.summary for e in stored)
    )
    if show:
        matched_c = {j for _, j, _ in pairs}
        matched_e = {i for i, _, _ in pairs}
        print(f"\n[{name}] missed expected facts:")
        for i, fact in enumerate(facts):
            if i not in matched_e:
                print(f"   - {fact['summary'][:90]}")
        print(f"[{name}] unmatched candidates:")
        for j, entry in enumerate(stored):
            if j not in matched_c:
                print(f"   + {entry.summary[:90]}")
    return {
        "extractor": name,
        "candidates": len(stored),
        "matched": len(pairs),
        "recall": len(pairs) / len(facts),
        "precision": len(pairs) / len(stored) if stored else 0.0,
        "kind": kind_ok / len(pairs) if pairs else 0.0,
        "scope": scope_ok / len(pairs) if pairs else 0.0,
        "leaked": leaked,
        "flagged": f"{flagged}/{len(expected['injection_messages'])}",
        "recalled": recalled,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help=f"default: ${ENV_VAR} or ../shared")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--show", action="store_true", help="list misses and extras")
    args = parser.parse_args()
    args.data = args.data or default_bilingual()
    expected = json.loads((args.data / "expected.json").read_text("utf-8"))
    messages = list(read_messages(args.data / "transcripts.jsonl"))
    seed = run_extractor(messages, ExtractorSettings(use="cue-lines")).candidates
    rows = [
        evaluate("cue lines (baseline)", seed, expected, args.threshold, args.show),
        evaluate(
            "heuristic", extract_candidates(messages, {}), expected, args.threshold, args.show
        ),
    ]
    header = (
        "extractor",
        "candidates",
        "matched",
        "recall",
        "precision",
        "kind",
        "scope",
        "leaked",
        "flagged",
        "recalled",
    )
    print(
        f"\nexpected facts: {len(expected['facts'])}; match: same session, bigram Dice >= {args.threshold}"
    )
    print(" | ".join(f"{h:>10}" if h != "extractor" else f"{h:<20}" for h in header))
    for row in rows:
        cells = []
        for h in header:
            value = row[h]
            if h == "extractor":
                cells.append(f"{value:<20}")
            elif isinstance(value, float):
                cells.append(f"{value:>10.2f}")
            else:
                cells.append(f"{value!s:>10}")
        print(" | ".join(cells))
    return 0 if all(r["leaked"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
