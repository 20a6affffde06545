"""The held-out injection corpus (`guard_data/injections_heldout.jsonl`) and the fresh
attempts written in rounds while the scorer was tuned (`guard_data/injections_rounds.jsonl`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "guard_data"


@dataclass(frozen=True)
class Attempt:
    id: str
    label: str  # "attack" | "benign"
    category: str
    lang: str
    split: str  # "dev" | "test" (held-out corpus) or "round-N"
    text: str


def _load(name: str) -> list[Attempt]:
    rows = (DATA / name).read_text("utf-8").splitlines()
    return [Attempt(**json.loads(row)) for row in rows if row.strip()]


HELD_OUT_CORPUS = _load("injections_heldout.jsonl")
ROUNDS = _load("injections_rounds.jsonl")
