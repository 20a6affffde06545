"""Small helpers for the per-format tests: write fixtures, read them back."""

from __future__ import annotations

import json
from pathlib import Path

from memdesk.core.extract.messages import Message, ReadStats
from memdesk.core.extract.readers import detect_format, read_messages


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def read_all(path: Path) -> tuple[str, list[Message], ReadStats]:
    """(detected format, messages, stats) of one file."""
    stats = ReadStats(str(path))
    return detect_format(path), list(read_messages(path, stats=stats)), stats


def said(messages: list[Message], origin: str) -> list[str]:
    return [m.text for m in messages if m.origin == origin]
