"""Injection detection on attempts the detector was not written against.

The held-out corpus was written before the detector's patterns were read; the scorer
was tuned on its `dev` half only. The `test` half and round 5 (written after the
detector was frozen) are floors here, against regressions (the figures are in
docs/security.md). The `dev` half and rounds 1-4 were tuned on and must all be caught,
and no hard negative (an ordinary rule that looks like an instruction) may be hidden.
"""

from __future__ import annotations

import pytest
from guard_heldout import HELD_OUT_CORPUS, ROUNDS, Attempt
from memdesk.core.entry import Entry
from memdesk.core.guard import find_injection, screen


def _suspicious(text: str) -> bool:
    finding = find_injection(text)
    return finding is not None and finding.suspicious


def _pick(rows: list[Attempt], label: str, split: str | None = None) -> list[Attempt]:
    return [r for r in rows if r.label == label and (split is None or r.split == split)]


def test_the_held_out_corpus_is_wide_enough() -> None:
    attacks = _pick(HELD_OUT_CORPUS, "attack")
    benign = _pick(HELD_OUT_CORPUS, "benign")
    assert len(attacks) >= 40 and len(benign) >= 40
    assert {r.lang for r in attacks} >= {"en", "zh-Hans", "zh-Hant"}
    assert {r.category for r in attacks} >= {
        "role", "override", "exfil", "authority", "hidden", "tool", "poison", "codeblock"
    }  # fmt: skip
    for split in ("dev", "test"):
        assert len(_pick(HELD_OUT_CORPUS, "attack", split)) >= 30
        assert len(_pick(HELD_OUT_CORPUS, "benign", split)) >= 25


TUNED_ROUNDS = [r for r in ROUNDS if r.split != "round-5"]
DEV_ATTACKS = _pick(HELD_OUT_CORPUS, "attack", "dev") + _pick(TUNED_ROUNDS, "attack")


@pytest.mark.parametrize("attempt", DEV_ATTACKS, ids=lambda a: a.id)
def test_every_development_attempt_is_flagged(attempt: Attempt) -> None:
    assert _suspicious(attempt.text), attempt.text


def test_the_unseen_half_stays_above_its_measured_floor() -> None:
    attacks = _pick(HELD_OUT_CORPUS, "attack", "test")
    caught = sum(_suspicious(r.text) for r in attacks)
    assert caught >= 31, f"{caught}/{len(attacks)}"  # 31 of 34 when first counted
    fresh = _pick(ROUNDS, "attack", "round-5")
    caught = sum(_suspicious(r.text) for r in fresh)
    assert caught >= 5, f"{caught}/{len(fresh)}"  # 5 of 12 when first counted


BENIGN = _pick(HELD_OUT_CORPUS, "benign") + _pick(ROUNDS, "benign")


@pytest.mark.parametrize("rule", BENIGN, ids=lambda a: a.id)
def test_no_hard_negative_is_hidden(rule: Attempt) -> None:
    verdict = screen(Entry(rule.text))
    assert verdict.entry is not None
    assert "suspicious" not in verdict.entry.flags, verdict.entry.flags
