"""Where gather's new facts (and orient's topics) come from — the pluggable LLM phases
of issue 7:

1. A plug-in extractor configured (`[extractor] command`, or `callable`): the recent
   transcript messages go to it once, through the extraction package's runner
   (`memdesk.core.extract.run.run_extractor`: JSON messages on stdin, JSON candidates
   back), with consolidation's `extractor_timeout_seconds`. Its candidates are gather's
   new facts; an answer object's `"topics"` list is what orient reports first. A failing,
   slow or garbage-answering plug-in is noted in the plan and the heuristics run
   instead: it never blocks consolidation.
2. No plug-in: the extraction heuristics run on the recent messages of the transcripts
   named in `[sources] transcripts`; the plan says "heuristic: no extractor configured".
3. No transcripts: the candidates already in the store are what gather works with.

It also summarises each recent session for the session cache (seed 001).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.consolidate.session_cache import SessionSummary
from memdesk.core.consolidate.settings import ConsolidationSettings
from memdesk.core.entry import Entry, parse_timestamp
from memdesk.core.extract.heuristic import extract_candidates
from memdesk.core.extract.messages import Message
from memdesk.core.extract.plugin import PluginResult
from memdesk.core.extract.readers import read_messages
from memdesk.core.extract.run import run_extractor
from memdesk.core.extract.settings import ExtractSettings
from memdesk.core.extract.source_globs import expand_source
from memdesk.core.guard import redact_text
from memdesk.core.trust import extractor_request, is_allowed, refuse_once

log = logging.getLogger("memdesk.consolidate")
NO_EXTRACTOR = "heuristic: no extractor configured"
_MAX_MESSAGES = 5000  # per run: a consolidation looks at recent sessions, not all history


@dataclass
class Gathered:
    source: str = "store"  # "extractor" | "heuristic" | "store"
    categories: dict[str, list[Entry]] = field(default_factory=dict)
    new_entries: list[Entry] = field(default_factory=list)
    sessions: list[SessionSummary] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)  # from the plug-in, for orient

    def counts(self) -> dict[str, int]:
        return {name: len(items) for name, items in self.categories.items()}


def transcript_paths(root: Any, raw_settings: dict[str, Any]) -> list[str]:
    sources = raw_settings.get("sources", {})
    patterns = sources.get("transcripts", []) if isinstance(sources, dict) else []
    if isinstance(patterns, str):
        patterns = [patterns]
    found: list[str] = []
    for pattern in patterns if isinstance(patterns, list) else []:
        if isinstance(pattern, str):  # outside (text, link, linked file): only if allowed
            found += sorted(expand_source(Path(root), pattern).matches)
    return list(dict.fromkeys(found))


def read_recent_messages(paths: list[str], since: dt.datetime | None) -> list[Message]:
    out: list[Message] = []
    for path in paths:
        try:
            for message in read_messages(Path(path)):
                when = parse_timestamp(message.timestamp)
                if since is None or when is None or when > since:
                    out.append(message)
        except (OSError, ValueError) as exc:
            log.warning("consolidate: cannot read %s: %s", path, exc)
    return out[-_MAX_MESSAGES:]


def run_plugin(
    raw_settings: dict[str, Any], messages: list[Message], root: Path, timeout: float
) -> PluginResult:
    """The configured plug-in's answer; an empty, unnamed result when none is configured.

    The extraction package's settings and runner know every plug-in form (a command or a
    callable) and how a failure is reported. A consolidation run hands the plug-in many
    sessions at once, so it gets consolidation's own timeout."""
    extractor = ExtractSettings.from_mapping(raw_settings).extractor
    if extractor.use not in ("command", "callable"):
        return PluginResult()
    extractor = dataclasses.replace(extractor, timeout=timeout)
    request = extractor_request(extractor, root)
    if request is not None and not is_allowed(root, request):
        # Not allowed on this machine: not run; the gather phase uses its heuristics.
        return PluginResult([], refuse_once(request, root), request.value)
    result = run_extractor(messages, extractor, cwd=root)
    result.name = " ".join(extractor.command) if extractor.use == "command" else extractor.callable
    for entry in result.candidates:
        entry.status = "candidate"
    return result


def summarise_sessions(
    messages: list[Any], entries: list[Entry], workflow: str
) -> list[SessionSummary]:
    """One SessionSummary per session id among the messages (seed 001 record fields)."""
    sessions: dict[str, SessionSummary] = {}
    for message in messages:
        sid = getattr(message, "session_id", "") or ""
        if not sid:
            continue
        when = parse_timestamp(getattr(message, "timestamp", ""))
        summary = sessions.get(sid)
        if summary is None:
            summary = sessions[sid] = SessionSummary(
                workflow, sid, when.timestamp() if when else 0.0
            )
        elif when is not None:
            summary.timestamp = max(summary.timestamp, when.timestamp())
        if message.role == "user" and not summary.user_input and message.kind == "text":
            # Redacted before the cut: the session cache is a file on disk.
            summary.user_input = redact_text(message.text.strip())[0][:200]
    for entry in entries:
        summary = sessions.get(entry.source.session_id)
        if summary is None:
            continue
        if entry.kind == "decision":
            summary.decisions_made.append(entry.summary[:200])
        elif entry.kind == "experience":
            summary.errors_encountered.append(entry.summary[:200])
        else:
            summary.key_outputs.append(entry.summary[:200])
        for tag in entry.tags:
            if tag not in summary.topics:
                summary.topics.append(tag)
    return sorted(sessions.values(), key=lambda s: s.timestamp)


def gather_from_sources(
    root: Path,
    paths: list[str],
    raw_settings: dict[str, Any],
    since: dt.datetime | None,
    settings: ConsolidationSettings,
    workflow: str,
) -> Gathered:
    from memdesk.core.consolidate.phases import CATEGORY_OF_KIND

    gathered = Gathered()
    if not paths:
        if ExtractSettings.from_mapping(raw_settings).extractor.use not in ("command", "callable"):
            gathered.notes.append(NO_EXTRACTOR)
        gathered.notes.append(
            "gather: no transcripts configured ([sources] transcripts); using the candidate queue"
        )
        return gathered
    messages = read_recent_messages(paths, since)
    prefix = str(Path(root).resolve()) + "/"
    for message in messages:  # provenance relative to the project, like the demo's
        if message.locator.startswith(prefix):
            message.locator = message.locator[len(prefix) :]
    result = run_plugin(raw_settings, messages, root, settings.extractor_timeout_seconds)
    entries: list[Entry]
    if result.name and result.ok:
        gathered.source = "extractor"
        gathered.notes.append(f"extractor: {result.name}")
        gathered.topics = result.topics
        entries = list(result.candidates)
    else:
        if result.name:
            log.warning(
                "consolidate: extractor %s failed: %s; heuristics instead",
                result.name,
                result.error,
            )
            gathered.notes.append(f"heuristic: extractor {result.name} failed ({result.error})")
        else:
            gathered.notes.append(NO_EXTRACTOR)
        entries = extract_candidates(messages)
        gathered.source = "heuristic"
    gathered.new_entries = entries
    for entry in entries:
        gathered.categories.setdefault(CATEGORY_OF_KIND.get(entry.kind, "facts"), []).append(entry)
    gathered.sessions = summarise_sessions(messages, entries, workflow)
    gathered.notes.append(
        f"gather: {len(messages)} message(s) from {len(paths)} transcript(s) since "
        f"{since.isoformat() if since else 'the beginning'}, {len(entries)} item(s) found "
        f"({gathered.source})"
    )
    return gathered
