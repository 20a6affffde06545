"""Where gather's new facts come from (the pluggable LLM phase of issue 7):

1. A plug-in extractor configured (`[extractor] command`, or `callable`): the recent
   transcript messages go to it through the extraction package's runner
   (`memdesk.core.extract.run.run_extractor`: JSON messages on stdin, JSON candidates
   back, with its timeout). A failing, slow or garbage-answering plug-in is noted in the
   plan and the heuristics run instead: it never blocks consolidation.
2. No plug-in: the extraction heuristics run on the recent messages of the transcripts
   named in `[sources] transcripts`; the plan says "heuristic: no extractor configured".
3. No transcripts (or no extraction package installed): the candidates already in the
   store are what gather works with.

It also summarises each recent session for the session cache (seed 001).
"""

from __future__ import annotations

import datetime as dt
import glob
import importlib
import json
import logging
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.consolidate.session_cache import SessionSummary
from memdesk.core.consolidate.settings import ConsolidationSettings, extractor_command
from memdesk.core.entry import Entry, EntryError, Source, parse_timestamp

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

    def counts(self) -> dict[str, int]:
        return {name: len(items) for name, items in self.categories.items()}


def _extract_module(name: str) -> Any:
    try:
        return importlib.import_module(f"memdesk.core.extract.{name}")
    except ImportError:
        return None


def transcript_paths(root: Any, raw_settings: dict[str, Any]) -> list[str]:
    sources = raw_settings.get("sources", {})
    patterns = sources.get("transcripts", []) if isinstance(sources, dict) else []
    if isinstance(patterns, str):
        patterns = [patterns]
    found: list[str] = []
    for pattern in patterns if isinstance(patterns, list) else []:
        if not isinstance(pattern, str):
            continue
        full = pattern if pattern.startswith("/") else str(root / pattern)
        found.extend(sorted(glob.glob(full, recursive=True)))
    return list(dict.fromkeys(found))


def read_recent_messages(paths: list[str], since: dt.datetime | None) -> list[Any]:
    readers = _extract_module("readers")
    if readers is None:
        return []
    out: list[Any] = []
    for path in paths:
        try:
            for message in readers.read_messages(Path(path)):
                when = parse_timestamp(getattr(message, "timestamp", ""))
                if since is None or when is None or when > since:
                    out.append(message)
        except (OSError, ValueError) as exc:
            log.warning("consolidate: cannot read %s: %s", path, exc)
    return out[-_MAX_MESSAGES:]


def run_plugin(
    raw_settings: dict[str, Any], messages: list[Any], root: Path, timeout: float
) -> tuple[str, list[Entry] | None, str]:
    """(name, candidates, error) of the configured plug-in; ("", None, "") when none.

    Uses the extraction package's settings and runner when they are installed (they
    know every plug-in form); otherwise runs `[extractor] command` directly."""
    run = _extract_module("run")
    ext_settings = _extract_module("settings")
    if run is not None and ext_settings is not None:
        extractor = ext_settings.ExtractSettings.from_mapping(raw_settings).extractor
        if extractor.use not in ("command", "callable"):
            return "", None, ""
        name = " ".join(extractor.command) if extractor.use == "command" else extractor.callable
        result = run.run_extractor(messages, extractor, cwd=root)
        if result.error:
            return name, None, result.error
        for entry in result.candidates:
            entry.status = "candidate"
        return name, list(result.candidates), ""
    command = extractor_command(raw_settings)
    if command is None:
        return "", None, ""
    name = command if isinstance(command, str) else " ".join(command)
    try:
        return name, run_extractor_command(command, messages, timeout), ""
    except RuntimeError as exc:
        return name, None, str(exc)


def run_extractor_command(
    command: list[str] | str, messages: list[Any], timeout: float
) -> list[Entry]:
    """Messages as a JSON list on stdin; a JSON list of candidates (or {"candidates": [..]})
    on stdout. Raises RuntimeError with a one-line reason on any failure."""
    payload = json.dumps([m.to_json() for m in messages], ensure_ascii=False)
    try:
        done = subprocess.run(
            command,
            input=payload,
            capture_output=True,
            text=True,
            timeout=timeout,
            shell=isinstance(command, str),
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"extractor command timed out after {timeout:g} s") from exc
    except OSError as exc:
        raise RuntimeError(f"extractor command could not run: {exc}") from exc
    if done.returncode != 0:
        raise RuntimeError(
            f"extractor command exited {done.returncode}: {done.stderr.strip()[:200]}"
        )
    try:
        answer = json.loads(done.stdout)
    except ValueError as exc:
        raise RuntimeError(f"extractor command answered no JSON: {exc}") from exc
    if isinstance(answer, dict):
        answer = answer.get("candidates")
    if not isinstance(answer, list):
        raise RuntimeError("extractor command must answer a JSON list of candidates")
    out: list[Entry] = []
    for item in answer:
        if isinstance(item, str):
            item = {"summary": item}
        if not isinstance(item, dict):
            continue
        allowed = {"summary", "kind", "scope", "confidence", "facts", "tags", "valid_until"}
        data = {k: v for k, v in item.items() if k in allowed and v is not None}
        try:
            entry = Entry.from_dict(data)
        except EntryError as exc:
            log.warning("extractor candidate skipped: %s", exc)
            continue
        entry.status = "candidate"
        entry.source = Source(origin="extractor", **_source_of(item))
        out.append(entry)
    return out


def _source_of(item: dict[str, Any]) -> dict[str, str]:
    source = item.get("source") if isinstance(item.get("source"), dict) else {}
    return {
        key: str(source.get(key) or item.get(key) or "")
        for key in ("session_id", "timestamp", "locator", "excerpt")
    }


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
            summary.user_input = message.text.strip()[:200]
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
    table = raw_settings.get("extractor", {})
    configured = extractor_command(raw_settings) is not None or bool(
        isinstance(table, dict) and table.get("callable")
    )
    if not paths or _extract_module("readers") is None:
        if not configured:
            gathered.notes.append(NO_EXTRACTOR)
        gathered.notes.append(
            "gather: no transcripts configured ([sources] transcripts); using the candidate queue"
            if not paths
            else "gather: transcript readers not installed; using the candidate queue"
        )
        return gathered
    messages = read_recent_messages(paths, since)
    prefix = str(Path(root).resolve()) + "/"
    for message in messages:  # provenance relative to the project, like the demo's
        if getattr(message, "locator", "").startswith(prefix):
            message.locator = message.locator[len(prefix) :]
    name, entries, error = run_plugin(
        raw_settings, messages, root, settings.extractor_timeout_seconds
    )
    if entries is not None:
        gathered.source = "extractor"
        gathered.notes.append(f"extractor: {name}")
    elif error:
        log.warning("consolidate: extractor %s failed: %s; heuristics instead", name, error)
        gathered.notes.append(f"heuristic: extractor {name} failed ({error})")
    else:
        gathered.notes.append(NO_EXTRACTOR)
    if entries is None:
        heuristic = _extract_module("heuristic")
        if heuristic is None:
            gathered.notes.append(
                "gather: extraction heuristics not installed; using the candidate queue"
            )
            return gathered
        entries = heuristic.extract_candidates(messages)
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
