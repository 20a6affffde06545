"""Candidates from one file, batch by batch (shared by `memdesk extract` and the inbox)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from memdesk.core.entry import Entry
from memdesk.core.extract.messages import Message, ReadStats
from memdesk.core.extract.plugin import PluginResult, failure, to_entry
from memdesk.core.extract.readers import read_messages
from memdesk.core.extract.run import run_extractor
from memdesk.core.extract.settings import ExtractorSettings
from memdesk.core.jsonfile import loads

# Messages handed to the extractor at a time: bounds memory on very large transcripts.
BATCH_MESSAGES = 2000


def file_candidates(
    path: Path,
    settings: ExtractorSettings,
    *,
    stats: ReadStats,
    start_offset: int = 0,
    start_line: int = 0,
    complete_lines_only: bool = False,
    fmt: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    batch_messages: int = BATCH_MESSAGES,
    roles: set[str] | None = None,
    opts: Mapping[str, Any] | None = None,
) -> Iterator[PluginResult]:
    """One PluginResult per batch of messages; stop reading at the first failed batch.

    Records that already are candidates (JSON with a `summary`) are taken as they are;
    the rest goes through the configured extractor. `roles`, when given, collects the
    roles of the messages read (did the file hold a conversation at all?).
    """
    stream = read_messages(
        path,
        stats=stats,
        start_offset=start_offset,
        start_line=start_line,
        complete_lines_only=complete_lines_only,
        fmt=fmt,
    )
    batch: list[Message] = []
    for message in stream:
        if roles is not None:
            roles.add(message.role)
        batch.append(message)
        if len(batch) >= batch_messages:
            result = _batch_candidates(batch, settings, path, cwd, opts)
            yield result
            if not result.ok:
                return
            batch = []
    if batch:
        yield _batch_candidates(batch, settings, path, cwd, opts)


def _batch_candidates(
    batch: list[Message],
    settings: ExtractorSettings,
    path: Path,
    cwd: str | os.PathLike[str] | None,
    opts: Mapping[str, Any] | None = None,
) -> PluginResult:
    direct: list[Entry] = []
    talk: list[Message] = []
    for message in batch:
        if message.kind != "candidate":
            talk.append(message)
            continue
        try:
            entry = to_entry(loads(message.text, f"{path}:{message.locator}"))
        except (ValueError, TypeError) as exc:
            return failure(str(path), f"{message.locator}: candidate record is not usable: {exc}")
        entry.source.origin = entry.source.origin or "inbox"
        entry.source.locator = entry.source.locator or message.locator
        direct.append(entry)
    if not talk:
        return PluginResult(direct, "", "candidates")
    found = run_extractor(talk, settings, cwd=cwd, opts=opts)
    if not found.ok:
        return found
    return PluginResult(direct + found.candidates, "", found.name, notice=found.notice)
