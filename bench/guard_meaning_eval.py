"""Figures for the meaning stage's training (bench/train_guard_meaning.py) beyond its folds.

- Leave-one-writer-out recall: for each writer of attacks in the training data (a set
  written by one person at one sitting, a public corpus, or one register of the
  register set), the regression is fitted without that writer's rows and counted on
  them at the chosen cut-offs. It is the nearest the training data comes to a writer
  the detector has never seen (the blind rounds): their phrasing, their topics.
- False flags on the real files (`../shared/bench-data/real/`, never trained on): every
  memory-file line and transcript message read as the guard reads it, embedded once
  (cached), so that cut-offs can be compared against the <2% budget in seconds. This
  counts the meaning stage alone; `bench/guard_false_flags.py` counts the guard whole.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from guard_false_flags import memory_lines, transcript_messages
from guard_meaning_data import Row
from memdesk.core.guard.meaning import MIN_CHARS, split_units
from memdesk.core.guard.normalise import readings

# The public corpora and the sets written for the meaning stage: the rules were frozen
# before they were read.
UNSEEN_BY_RULES = ("aib", "bastioncorpus", "meaning_train:", "registers:", "meaning_writer5")
Fit = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
Probs = Callable[[np.ndarray, list[Any], np.ndarray, np.ndarray], np.ndarray]


@dataclass
class WriterFigure:
    writer: str
    attacks: int
    meaning: int  # caught by the meaning stage fitted without this writer
    rules: int  # caught by the rules (never tuned on most writers: see the docs)
    both: int  # caught by either: what the guard would flag
    benign: int
    benign_flagged: int  # this writer's ordinary rows flagged by the meaning stage
    composed: int = 0  # its attacks placed after an ordinary sentence
    composed_both: int = 0  # of those, caught by rules or meaning


@dataclass
class Composed:
    """Attacks of the training rows each placed after an ordinary sentence (`composed`),
    embedded as the guard embeds them: `rows` their rows' indices."""

    rows: np.ndarray
    x: np.ndarray
    spans: list[Any]
    moves: np.ndarray
    ruled: np.ndarray


def composed(rows: list[Row]) -> list[tuple[int, str]]:
    """(row index, text): each attack of up to 400 characters behind a line of this
    project's documentation, as an attack is often one sentence inside ordinary text
    (counted, never trained on)."""
    lines = [
        r.text
        for r in rows
        if r.group.startswith("docs:") and 40 <= len(r.text) <= 160 and r.text.endswith(".")
    ]
    return [
        (i, f"{lines[(i * 7) % len(lines)]} {r.text}")
        for i, r in enumerate(rows)
        if r.attack and len(r.text) <= 400
    ]


def leave_one_writer_out(
    rows: list[Row],
    x: np.ndarray,
    y_units: np.ndarray,
    unit_rows: np.ndarray,
    spans: list[Any],
    fit: Fit,
    probabilities: Probs,
    flagged: Callable[[np.ndarray, np.ndarray], np.ndarray],
    moves: np.ndarray,
    ruled: np.ndarray,
    mixed: Composed | None = None,
) -> list[WriterFigure]:
    """One figure per writer of attacks, each fitted without that writer's rows."""
    out = []
    for writer in sorted({r.writer for r in rows if r.attack}):
        held = np.array([i for i, r in enumerate(rows) if r.writer == writer])
        train = ~np.isin(unit_rows, held)
        coef, bias = fit(x[train], y_units[train])
        probs = probabilities(x, [spans[i] for i in held], coef, bias)
        caught = flagged(probs, moves[held])
        attack = np.array([rows[i].attack for i in held])
        extra = np.zeros(0, dtype=bool)
        if mixed is not None:
            mine = np.isin(mixed.rows, held)
            spans_mine = [s for s, m in zip(mixed.spans, mine, strict=True) if m]
            found = flagged(probabilities(mixed.x, spans_mine, coef, bias), mixed.moves[mine])
            extra = found | mixed.ruled[mine]
        out.append(
            WriterFigure(
                writer,
                int(attack.sum()),
                int((caught & attack).sum()),
                int((ruled[held] & attack).sum()),
                int(((caught | ruled[held]) & attack).sum()),
                int((~attack).sum()),
                int((caught & ~attack).sum()),
                len(extra),
                int(extra.sum()),
            )
        )
    return out


def print_writers(figures: list[WriterFigure]) -> None:
    print("leave one writer out (fitted without the writer, counted on it):")
    for f in figures:
        print(
            f"  {f.writer:<28} attacks {f.attacks:>3}: meaning {f.meaning:>3}, rules "
            f"{f.rules:>3}, either {f.both:>3}; ordinary flagged by meaning "
            f"{f.benign_flagged} of {f.benign}; after an ordinary sentence "
            f"{f.composed_both} of {f.composed}"
        )
    total = sum(f.attacks for f in figures)
    both = sum(f.both for f in figures)
    meaning = sum(f.meaning for f in figures)
    # Each writer weighs the same: a big set does not hide a writer the model misses.
    macro = np.mean([f.both / f.attacks for f in figures if f.attacks])
    print(
        f"  all writers: {both} of {total} ({100 * both / max(total, 1):.1f}%) by rules + "
        f"meaning, {meaning} by meaning alone; mean over writers {100 * macro:.1f}%"
    )
    unseen = [f for f in figures if f.writer.startswith(UNSEEN_BY_RULES)]
    print(
        f"  writers the rules were never tuned on: {sum(f.both for f in unseen)} of "
        f"{sum(f.attacks for f in unseen)} by rules + meaning ({sum(f.rules for f in unseen)} "
        f"by rules); after an ordinary sentence {sum(f.composed_both for f in unseen)} of "
        f"{sum(f.composed for f in unseen)}"
    )
    mixed = sum(f.composed for f in figures)
    mixed_both = sum(f.composed_both for f in figures)
    print(f"  after an ordinary sentence: {mixed_both} of {mixed} by rules + meaning")


def real_units(shared: Path) -> list[tuple[str, str, tuple[list[str], list[str]]]]:
    """(kind, text, passages) of every real memory line and transcript message, with the
    units the guard would embed (every reading, split as meaning.units splits it; none
    for a text too short to embed)."""
    real = shared / "bench-data" / "real"
    items = [("memory", loc, t) for loc, t in memory_lines(real / "memory")]
    items += [("transcripts", loc, t) for loc, t in transcript_messages(real / "transcripts")]
    out = []
    for kind, _, text in items:
        pieces = (
            split_units([r.text for r in readings(text)]) if len(text) >= MIN_CHARS else ([], [])
        )
        out.append((kind, text, pieces))
    return out
