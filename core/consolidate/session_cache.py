"""Seed 001's SessionMemoryCache: recent session summaries, one JSON line each, in
`.memdesk/session_cache.jsonl`, at most `max_sessions` kept per workflow.

Unlike the seed (which trims to the last N lines of every workflow together) the limit
applies per workflow, so a busy workflow never pushes out a quiet one's sessions, and a
session recorded twice replaces its older line instead of taking two places.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.atomic import atomic_write_text
from memdesk.core.jsonfile import loads

CACHE_FILE = "session_cache.jsonl"


@dataclass
class SessionSummary:
    workflow_id: str
    session_id: str = ""
    timestamp: float = field(default_factory=time.time)  # seconds since the epoch
    user_input: str = ""  # the session's first request
    key_outputs: list[str] = field(default_factory=list)
    decisions_made: list[str] = field(default_factory=list)
    errors_encountered: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionSummary | None:
        if not isinstance(data, dict) or not isinstance(data.get("workflow_id"), str):
            return None
        try:
            stamp = float(data.get("timestamp") or 0.0)
        except (TypeError, ValueError):
            stamp = 0.0

        def texts(key: str) -> list[str]:
            value = data.get(key)
            return [str(v) for v in value] if isinstance(value, list) else []

        return cls(
            workflow_id=data["workflow_id"],
            session_id=str(data.get("session_id") or ""),
            timestamp=stamp,
            user_input=str(data.get("user_input") or ""),
            key_outputs=texts("key_outputs"),
            decisions_made=texts("decisions_made"),
            errors_encountered=texts("errors_encountered"),
            topics=texts("topics"),
        )


class SessionMemoryCache:
    def __init__(self, meta_dir: Path, max_sessions: int = 10) -> None:
        if max_sessions < 1:
            raise ValueError("max_sessions must be >= 1")
        self.path = Path(meta_dir) / CACHE_FILE
        self.max_sessions = max_sessions

    def _read(self) -> list[SessionSummary]:
        try:
            lines = self.path.read_text("utf-8").splitlines()
        except FileNotFoundError:
            return []
        out: list[SessionSummary] = []
        for line in lines:
            try:
                item = SessionSummary.from_json(loads(line, str(self.path)))
            except ValueError:
                continue  # a torn or hand-edited line costs that line only
            if item is not None:
                out.append(item)
        return out

    def _write(self, items: list[SessionSummary]) -> None:
        text = "".join(json.dumps(i.to_json(), ensure_ascii=False) + "\n" for i in items)
        atomic_write_text(self.path, text)

    def record_session_summary(self, summary: SessionSummary) -> None:
        """Add (or replace, same workflow + session id) and trim the workflow to max_sessions."""
        items = [
            i
            for i in self._read()
            if not (
                summary.session_id
                and i.workflow_id == summary.workflow_id
                and i.session_id == summary.session_id
            )
        ]
        items.append(summary)
        self._write(self._pruned(items))

    def record_many(self, summaries: list[SessionSummary]) -> None:
        for summary in summaries:
            self.record_session_summary(summary)

    def _pruned(self, items: list[SessionSummary]) -> list[SessionSummary]:
        items.sort(key=lambda i: i.timestamp)
        kept: list[SessionSummary] = []
        counts: dict[str, int] = {}
        for item in reversed(items):  # newest first: keep the last max_sessions
            counts[item.workflow_id] = counts.get(item.workflow_id, 0) + 1
            if counts[item.workflow_id] <= self.max_sessions:
                kept.append(item)
        kept.reverse()
        return kept

    def get_recent_sessions(self, workflow_id: str, count: int = 5) -> list[SessionSummary]:
        """The workflow's latest `count` sessions, oldest first."""
        sessions = sorted(
            (i for i in self._read() if i.workflow_id == workflow_id), key=lambda i: i.timestamp
        )
        return sessions[-count:] if count > 0 else []

    def all_sessions(self) -> list[SessionSummary]:
        return sorted(self._read(), key=lambda i: i.timestamp)
