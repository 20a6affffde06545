"""Candidates of one whole transcript: read, extract, screen, dedupe, rank and cap.

What `memdesk extract FILE` queues for one file, as a library call the benches share.
The extractor ranks each batch best first; batches are merged by confidence (stable, so a
batch's own order is kept within a label) and at most the transcript's cap is kept:
`[extractor] max_per_transcript`, or `cap_per_message` per message of the person or the
assistant when that is more (a long conversation holds more facts). What is left out is
counted in `over_cap`, never dropped silently.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.entry import CONFIDENCE_VALUE, Entry
from memdesk.core.extract.files import file_candidates
from memdesk.core.extract.flush import WriteResult, select_new
from memdesk.core.extract.messages import ReadStats
from memdesk.core.extract.readers import UnrecognisedFormat, detect_format
from memdesk.core.extract.settings import ExtractorSettings

_CONVERSATION_ROLES = frozenset({"user", "assistant"})


@dataclass
class TranscriptResult:
    path: str
    format: str = ""
    recognised: bool = False  # a reader took it as a conversation (not unknown, not empty)
    messages: int = 0
    entries: list[Entry] = field(default_factory=list)
    duplicates: int = 0
    refused: list[tuple[str, list[str]]] = field(default_factory=list)
    over_cap: int = 0  # candidates beyond the cap: counted, not queued
    cap: int = 0  # the cap this transcript had (settings.transcript_cap of its length)
    error: str = ""
    stats: ReadStats | None = None


def rank_and_cap(entries: list[Entry], cap: int) -> tuple[list[Entry], int]:
    """The best `cap` entries (by confidence, stable) and how many were left out."""
    ranked = sorted(entries, key=lambda e: -CONFIDENCE_VALUE[e.confidence])
    return ranked[:cap], max(0, len(ranked) - cap)


def transcript_candidates(
    path: Path | str,
    settings: ExtractorSettings | None = None,
    *,
    known: set[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    opts: Mapping[str, Any] | None = None,
    fmt: str | None = None,
) -> TranscriptResult:
    """Everything one transcript would queue. The cap is taken before `known` (text
    hashes already in the store) is consulted, so reading a file again queues nothing new
    rather than the next best; `known` is updated with what is kept."""
    path = Path(path)
    settings = settings or ExtractorSettings()
    stats = ReadStats(str(path))
    result = TranscriptResult(str(path), stats=stats)
    try:
        result.format = fmt or detect_format(path)
    except UnrecognisedFormat as exc:
        result.error = str(exc)
        return result
    known = known if known is not None else set()
    seen: set[str] = set()
    totals = WriteResult()
    roles: set[str] = set()
    chosen_all: list[Entry] = []
    batches = file_candidates(
        path, settings, stats=stats, cwd=cwd, roles=roles, opts=opts, fmt=result.format
    )
    for found in batches:
        if not found.ok:
            result.error = found.error
            return result
        chosen, written = select_new(found.candidates, seen)
        totals.duplicates += written.duplicates
        totals.refused += written.refused
        chosen_all += chosen
    result.cap = settings.transcript_cap(stats.said)
    capped, result.over_cap = rank_and_cap(chosen_all, result.cap)
    for entry in capped:
        digest = entry.text_hash
        if digest in known:
            totals.duplicates += 1
            continue
        known.add(digest)
        result.entries.append(entry)
    result.messages = stats.messages
    result.duplicates = totals.duplicates
    result.refused = totals.refused
    result.recognised = bool(roles & _CONVERSATION_ROLES)
    return result
