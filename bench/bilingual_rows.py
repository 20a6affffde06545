"""The bilingual dev set as training rows and as a score, for bench/train_scorer.py.

`../shared/bench-data/bilingual/dev` (or $MEMDESK_BILINGUAL_DATA): twelve sessions in
Chinese, English and mixed lines, with the facts a good extractor keeps
(`expected.json`). Its matching rule is bench/extract_quality.py's (same session,
character-bigram Dice >= 0.5), not gold/README.md's: the facts there are written in the
person's words, so a sentence that says the fact shares most of its bigrams.

Rows: every sentence the default extractor would score (as for the real transcripts),
label 1 when it matches an expected fact of its session.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from extract_quality import bigrams, dice
from extract_quality import evaluate as evaluate_quality
from gold_match import Totals
from memdesk.core.extract.features import features
from memdesk.core.extract.heuristic import eligible_sentences, extract_candidates, in_transcript
from memdesk.core.extract.messages import Message
from memdesk.core.extract.readers import read_messages

MATCH = 0.5  # extract_quality.py's default --threshold


@dataclass
class BilingualRows:
    x: list[list[float]]
    y: list[float]
    facts: list[set[str]]  # per row: indexes (as text) of the expected facts it matches
    gold: int  # expected facts


def _load(data: Path) -> tuple[dict, list[Message]]:
    expected = json.loads((data / "expected.json").read_text("utf-8"))
    return expected, list(read_messages(data / "transcripts.jsonl"))


def collect_bilingual(data: Path) -> BilingualRows:
    expected, messages = _load(data)
    facts = expected["facts"]
    grams = [bigrams(fact["summary"]) for fact in facts]
    items = list(eligible_sentences(messages))
    repeats, contexts = in_transcript(items)
    rows = BilingualRows([], [], [], len(facts))
    for item, repeated, context in zip(items, repeats, contexts, strict=True):
        mine = bigrams(item.text)
        found = {
            str(index)
            for index, fact in enumerate(facts)
            if fact["session_id"] == item.message.session_id and dice(grams[index], mine) >= MATCH
        }
        rows.x.append(features(item.text, item.role, item.block, repeated, context))
        rows.y.append(1.0 if found else 0.0)
        rows.facts.append(found)
    return rows


def score_bilingual(data: Path, scorer: object) -> Totals:
    """extract_quality.py's figures for `extract_candidates` with this scorer (after the
    do-not-write guard), as Totals."""
    expected, messages = _load(data)
    candidates = extract_candidates(messages, {"scorer": scorer})
    row = evaluate_quality("heuristic", candidates, expected, MATCH, show=False)
    return Totals(
        candidates=row["candidates"],
        matched_candidates=row["matched"],
        gold=len(expected["facts"]),
        matched_gold=row["matched"],
    )
