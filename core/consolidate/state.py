"""`.memdesk/consolidation.json`: when consolidation last ran, what it has seen, how
applying went (consecutive failures, seed 001 `consolidation_failed_count`) and the
metrics of past runs. Written atomically; a damaged file reads as a fresh state."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.atomic import atomic_write_text
from memdesk.core.jsonfile import read_json

STATE_FILE = "consolidation.json"


@dataclass
class ConsolidationState:
    last_run: str = ""  # ISO time of the last applied consolidation ("" = never)
    sessions_seen: list[str] = field(default_factory=list)  # session ids the last run covered
    consecutive_failures: int = 0
    last_error: str = ""
    runs: list[dict[str, Any]] = field(default_factory=list)  # RunMetrics.to_json(), oldest first
    # `add` proposals a person left unticked when applying part of a plan (entry JSON):
    # the run moved past the messages they came from, so the next plan offers them again.
    deferred: list[dict[str, Any]] = field(default_factory=list)

    @property
    def last_run_time(self) -> dt.datetime | None:
        if not self.last_run:
            return None
        try:
            parsed = dt.datetime.fromisoformat(self.last_run)
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> ConsolidationState:
        if not isinstance(data, dict):
            return cls()
        out = cls()
        if isinstance(data.get("last_run"), str):
            out.last_run = data["last_run"]
        if isinstance(data.get("sessions_seen"), list):
            out.sessions_seen = [s for s in data["sessions_seen"] if isinstance(s, str)]
        failures = data.get("consecutive_failures")
        if isinstance(failures, int) and not isinstance(failures, bool) and failures >= 0:
            out.consecutive_failures = failures
        if isinstance(data.get("last_error"), str):
            out.last_error = data["last_error"]
        if isinstance(data.get("runs"), list):
            out.runs = [r for r in data["runs"] if isinstance(r, dict)]
        if isinstance(data.get("deferred"), list):
            out.deferred = [d for d in data["deferred"] if isinstance(d, dict)]
        return out


def state_path(meta_dir: Path) -> Path:
    return Path(meta_dir) / STATE_FILE


def load_state(meta_dir: Path) -> ConsolidationState:
    try:
        return ConsolidationState.from_json(read_json(state_path(meta_dir)))
    except (OSError, ValueError):
        return ConsolidationState()


def save_state(meta_dir: Path, state: ConsolidationState) -> None:
    atomic_write_text(
        state_path(meta_dir), json.dumps(state.to_json(), ensure_ascii=False, indent=1) + "\n"
    )
