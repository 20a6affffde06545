"""When to consolidate (seed 001 MemoryConsolidationTrigger / should_consolidate):

- time gate: more than `time_threshold_hours` since the last applied consolidation
  (a store never consolidated is due once it holds anything),
- session gate: at least `session_threshold` distinct sessions since then, counted from
  entries' source session ids, `memory_flushed` journal events and the session cache,
- explicit: the CLI/TUI asked, or a user message says consolidate / save progress /
  整理记忆 / 保存进度.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.consolidate.session_cache import SessionMemoryCache
from memdesk.core.consolidate.settings import ConsolidationSettings
from memdesk.core.consolidate.state import ConsolidationState
from memdesk.core.entry import normalise_text, now, parse_timestamp


@dataclass
class TriggerDecision:
    due: bool
    reasons: list[str] = field(default_factory=list)
    sessions_since: list[str] = field(default_factory=list)
    hours_since: float | None = None  # None: never consolidated

    def to_json(self) -> dict[str, Any]:
        return {
            "due": self.due,
            "reasons": self.reasons,
            "sessions_since": len(self.sessions_since),
            "hours_since": None if self.hours_since is None else round(self.hours_since, 2),
        }


def is_explicit_request(message: str, settings: ConsolidationSettings) -> bool:
    """Seed 001 check_explicit_lock, case-, width- and space-insensitive."""
    text = normalise_text(message or "")
    return any(normalise_text(phrase) in text for phrase in settings.explicit_phrases)


def sessions_since(store: Any, since: dt.datetime | None, cache_dir: Any = None) -> list[str]:
    """Distinct session ids seen after `since` (all of them when never consolidated):
    in new entries, `memory_flushed` events, the session cache and the messages of the
    transcripts named in `[sources] transcripts`."""
    from memdesk.core.consolidate.extractor import read_recent_messages, transcript_paths

    seen: dict[str, None] = {}
    for entry in store.entries():
        sid = entry.source.session_id
        if sid and (since is None or entry.created > since):
            seen.setdefault(sid, None)
    for record in store.journal.records():
        if record.op != "memory_flushed":
            continue
        sid = str(record.payload.get("session_id") or "")
        when = parse_timestamp(record.time or str(record.payload.get("occurred_at") or ""))
        if sid and (since is None or when is None or when > since):
            seen.setdefault(sid, None)
    for message in read_recent_messages(transcript_paths(store.root, store.settings), since):
        sid = getattr(message, "session_id", "")
        if sid:
            seen.setdefault(sid, None)
    cache = SessionMemoryCache(cache_dir or store.meta_dir)
    for summary in cache.all_sessions():
        when = dt.datetime.fromtimestamp(summary.timestamp, dt.UTC)
        if summary.session_id and (since is None or when > since):
            seen.setdefault(summary.session_id, None)
    return list(seen)


def should_consolidate(
    store: Any,
    state: ConsolidationState,
    settings: ConsolidationSettings,
    *,
    explicit: bool = False,
    message: str = "",
    at: dt.datetime | None = None,
) -> TriggerDecision:
    at = at or now()
    last = state.last_run_time
    sessions = sessions_since(store, last)
    decision = TriggerDecision(False, sessions_since=sessions)
    if explicit:
        decision.reasons.append("explicit: requested")
    if message and is_explicit_request(message, settings):
        decision.reasons.append(f"explicit: message {message.strip()[:60]!r}")
    if last is None:
        if store.entries():
            decision.reasons.append("time: never consolidated")
    else:
        hours = (at - last).total_seconds() / 3600
        decision.hours_since = hours
        if hours > settings.time_threshold_hours:
            decision.reasons.append(
                f"time: {hours:.1f} h since the last run (threshold {settings.time_threshold_hours:g} h)"
            )
    if len(sessions) >= settings.session_threshold:
        decision.reasons.append(
            f"sessions: {len(sessions)} since the last run (threshold {settings.session_threshold})"
        )
    decision.due = bool(decision.reasons)
    return decision
