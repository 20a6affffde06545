"""Candidates of one whole transcript: read, extract, screen, dedupe, rank and cap.

What `memdesk extract FILE` queues for one file, as a library call the benches share.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.extract.files import file_candidates
from memdesk.core.extract.flush import WriteResult, select_new
from memdesk.core.extract.messages import ReadStats
from memdesk.core.extract.readers import detect_format
from memdesk.core.extract.settings import ExtractorSettings

_CONVERSATION_ROLES = frozenset({"user", "assistant"})


@dataclass
class TranscriptResult:
    path: str
    format: str = ""
    recognised: bool = False  # a reader took it as a conversation (not notes, not empty)
    messages: int = 0
    entries: list[Entry] = field(default_factory=list)
    duplicates: int = 0
    refused: list[tuple[str, list[str]]] = field(default_factory=list)
    over_cap: int = 0
    error: str = ""
    stats: ReadStats | None = None


def transcript_candidates(
    path: Path | str,
    settings: ExtractorSettings | None = None,
    *,
    known: set[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> TranscriptResult:
    path = Path(path)
    settings = settings or ExtractorSettings()
    stats = ReadStats(str(path))
    result = TranscriptResult(str(path), detect_format(path), stats=stats)
    known = known if known is not None else set()
    totals = WriteResult()
    roles: set[str] = set()
    for found in file_candidates(path, settings, stats=stats, cwd=cwd, roles=roles):
        if not found.ok:
            result.error = found.error
            result.entries = []
            return result
        chosen, written = select_new(found.candidates, known)
        totals.duplicates += written.duplicates
        totals.refused += written.refused
        result.entries += chosen
    result.messages = stats.messages
    result.duplicates = totals.duplicates
    result.refused = totals.refused
    result.recognised = bool(roles & _CONVERSATION_ROLES)
    return result

