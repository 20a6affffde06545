"""Seed 001 ConsolidationMetrics: per-run latency, compression ratio (memory size after /
before), entries added / merged / superseded / expired / deleted; p95 latency over runs.

Runs are kept in `.memdesk/consolidation.json` (the last `metrics_history` of them), so
`memdesk stats --json` and the stats screen read them without recomputing anything.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from memdesk.core.consolidate.state import ConsolidationState, load_state
from memdesk.core.entry import Entry

ACTIVE: tuple[str, ...] = ("candidate", "confirmed")


@dataclass
class RunMetrics:
    time: str  # ISO, when the run was applied
    latency_ms: float  # planning + applying
    plan_ms: float
    apply_ms: float
    before_size: int  # bytes of active memory text before
    after_size: int
    before_entries: int
    after_entries: int
    proposals: int
    accepted: int
    added: int = 0
    merged: int = 0  # entries folded into another
    superseded: int = 0
    expired: int = 0
    deleted: int = 0

    @property
    def compression_ratio(self) -> float:
        return self.after_size / self.before_size if self.before_size > 0 else 1.0

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["compression_ratio"] = round(self.compression_ratio, 4)
        out["latency_ms"] = round(self.latency_ms, 2)
        out["plan_ms"] = round(self.plan_ms, 2)
        out["apply_ms"] = round(self.apply_ms, 2)
        return out


def memory_size(entries: Iterable[Entry]) -> tuple[int, int]:
    """(bytes of UTF-8 text, number of entries) of the active memory."""
    size = count = 0
    for entry in entries:
        if entry.status in ACTIVE:
            size += len(entry.search_text().encode("utf-8"))
            count += 1
    return size, count


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (defined for one value too, unlike statistics.quantiles)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summarise(state: ConsolidationState) -> dict[str, Any]:
    runs = state.runs
    latencies = [float(r.get("latency_ms", 0.0)) for r in runs]
    ratios = [float(r.get("compression_ratio", 1.0)) for r in runs]
    totals = {
        key: sum(int(r.get(key, 0)) for r in runs)
        for key in ("added", "merged", "superseded", "expired", "deleted")
    }
    return {
        "runs": len(runs),
        "last_run": state.last_run or None,
        "consecutive_failures": state.consecutive_failures,
        "last_error": state.last_error or None,
        "latency_ms": {
            "last": round(latencies[-1], 2) if latencies else None,
            "mean": round(statistics.fmean(latencies), 2) if latencies else None,
            "p95": round(percentile(latencies, 95), 2) if latencies else None,
        },
        "compression_ratio": {
            "last": round(ratios[-1], 4) if ratios else None,
            "mean": round(statistics.fmean(ratios), 4) if ratios else None,
        },
        "totals": totals,
        "last": runs[-1] if runs else None,
    }


def metrics_summary(store: Any) -> dict[str, Any]:
    """Consolidation metrics for `memdesk stats --json` and the stats screen."""
    return summarise(load_state(store.meta_dir))
