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

import numpy as np
from guard_false_flags import memory_lines, transcript_messages
from guard_meaning_data import Row
from memdesk.core.guard.meaning import MIN_CHARS, passages
from memdesk.core.guard.normalise import readings

Fit = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, float]]
Probs = Callable[[np.ndarray, list[range], np.ndarray, float], np.ndarray]


@dataclass
class WriterFigure:
    writer: str
    attacks: int
    meaning: int  # caught by the meaning stage fitted without this writer
    rules: int  # caught by the rules (never tuned on most writers: see the docs)
    both: int  # caught by either: what the guard would flag
    benign: int
    benign_flagged: int  # this writer's ordinary rows flagged by the meaning stage


def leave_one_writer_out(
    rows: list[Row],
    x: np.ndarray,
    y_units: np.ndarray,
    unit_rows: np.ndarray,
    spans: list[range],
    fit: Fit,
    probabilities: Probs,
    flagged: Callable[[np.ndarray, np.ndarray], np.ndarray],
    moves: np.ndarray,
    ruled: np.ndarray,
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
        out.append(
            WriterFigure(
                writer,
                int(attack.sum()),
                int((caught & attack).sum()),
                int((ruled[held] & attack).sum()),
                int(((caught | ruled[held]) & attack).sum()),
                int((~attack).sum()),
                int((caught & ~attack).sum()),
            )
        )
    return out


def print_writers(figures: list[WriterFigure]) -> None:
    print("leave one writer out (fitted without the writer, counted on it):")
    for f in figures:
        print(
            f"  {f.writer:<28} attacks {f.attacks:>3}: meaning {f.meaning:>3}, rules "
            f"{f.rules:>3}, either {f.both:>3}; ordinary flagged by meaning "
            f"{f.benign_flagged} of {f.benign}"
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


def real_units(shared: Path) -> list[tuple[str, str, list[str]]]:
    """(kind, text, passages) of every real memory line and transcript message, with the
    passages the guard would embed (every reading, split as meaning.py splits it; none
    for a text too short to embed)."""
    real = shared / "bench-data" / "real"
    items = [("memory", loc, t) for loc, t in memory_lines(real / "memory")]
    items += [("transcripts", loc, t) for loc, t in transcript_messages(real / "transcripts")]
    out = []
    for kind, _, text in items:
        units: list[str] = []
        if len(text) >= MIN_CHARS:
            for reading in readings(text):
                units += [
                    u for u in passages(reading.text) if len(u) >= MIN_CHARS and u not in units
                ]
        out.append((kind, text, units))
    return out
