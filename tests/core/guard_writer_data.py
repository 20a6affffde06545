"""Shared checks of a writer's training file for the meaning stage (guard_data/*.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

GUARD_DATA = Path(__file__).resolve().parent / "guard_data"
BENCH = Path(__file__).resolve().parents[2] / "bench"
FIELDS = {"id", "label", "category", "register", "lang", "split", "text"}


def writer_records(name: str) -> list[dict[str, str]]:
    text = (GUARD_DATA / name).read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def assert_shared_shape(records: list[dict[str, str]], split: str) -> None:
    """The record shape every data file shares, one split, and no id or text twice."""
    assert all(set(r) == FIELDS for r in records)
    assert {r["label"] for r in records} == {"attack", "benign"}
    assert {r["split"] for r in records} == {split}
    assert len({r["id"] for r in records}) == len(records)
    assert len({r["text"] for r in records}) == len(records)
