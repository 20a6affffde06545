"""Pick and run the configured extractor: heuristic, seed 000, a command or a callable."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from memdesk.core.entry import Entry
from memdesk.core.extract.heuristic import default_extract, extract_candidates
from memdesk.core.extract.messages import Message
from memdesk.core.extract.plugin import (
    PluginResult,
    failure,
    load_callable,
    run_callable,
    run_command,
    to_entry,
)
from memdesk.core.extract.settings import ExtractorSettings
from memdesk.core.guard import redact_across_messages
from memdesk.core.trust import extractor_request, is_allowed, refuse_once

Extractor = Callable[..., Any]


def run_extractor(
    messages: Sequence[Message],
    settings: ExtractorSettings | None = None,
    *,
    extract_fn: Extractor | None = None,
    ctx: Any = None,
    opts: Mapping[str, Any] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> PluginResult:
    """Candidates from `extract_fn` if given, else from what settings name.

    The built-in extractors run in-process (they cannot hang); plug-ins run through
    `run_callable`/`run_command`, which turn every failure into `PluginResult.error`.
    """
    settings = settings or ExtractorSettings()
    # A secret pasted over two messages is only visible when they are read together.
    messages = redact_across_messages(messages)
    options = {"threshold": settings.threshold, "scorer": settings.scorer, **dict(opts or {})}
    if extract_fn is not None:
        return run_callable(extract_fn, messages, options, ctx, timeout=settings.timeout)
    request = extractor_request(settings, None if cwd is None else Path(cwd))
    if request is not None and cwd is not None and not is_allowed(Path(cwd), request):
        # The working directory's settings name it, and the person has not allowed it
        # on this machine: it does not run; the built-in extractor does.
        notice = refuse_once(request, Path(cwd))
        found = PluginResult(extract_candidates(messages, options), "", "heuristic")
        found.notice = notice
        return found
    if settings.use == "command":
        return run_command(settings.command, messages, options, timeout=settings.timeout, cwd=cwd)
    if settings.use == "callable":
        try:
            fn = load_callable(settings.callable)
        except ValueError as exc:
            return failure(settings.callable, str(exc))
        return run_callable(
            fn, messages, options, ctx, timeout=settings.timeout, name=settings.callable
        )
    if settings.use in ("cue-lines", "seed000"):
        facts = default_extract(messages, options)
        base = [m for m in messages if m.role == "user"]
        return PluginResult([_cue_line_entry(f, base) for f in facts], "", "cue-lines")
    return PluginResult(extract_candidates(messages, options), "", "heuristic")


def _cue_line_entry(fact: str, messages: Sequence[Message]) -> Entry:
    """A cue-line fact with the provenance of the first user message that contains it."""
    source = next((m for m in messages if fact in m.text), None)
    entry = to_entry(fact)
    entry.source.origin = "transcript"
    if source is not None:
        entry.source.session_id = source.session_id
        entry.source.timestamp = source.timestamp
        entry.source.locator = source.locator
        entry.source.excerpt = fact
    return entry
