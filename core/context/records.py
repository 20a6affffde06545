"""What an assembly returns: the block, and for every entry why it is in or out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.context.render import memory_md_text, metadata_text
from memdesk.core.entry import Entry

# Seed 001: after something does not fit, keep going only while this much is left.
MIN_REMAINING = 100

REASONS: dict[str, str] = {
    "scope": "scope not requested",
    "superseded": "superseded",
    "expired": "expired",
    "suspicious": "flagged suspicious",
    "status": "candidate, not confirmed",
    "low_confidence": "low-confidence candidate",
    "purpose": "section not part of this purpose",
    "irrelevant": "irrelevant to the query",
    "budget": "did not fit in the budget",
}

EXHAUSTED = f"budget exhausted: fewer than {MIN_REMAINING} left"


@dataclass
class Included:
    entry_id: str
    position: int  # 1-based, in output order
    tokens: int  # cost of this item in the assembly's unit (incl. its line break, and
    # the headings it was the first to need)
    section: str  # the kind-based section of the purpose ("project", "commands", ...)
    facts_dropped: bool = False  # summary kept, facts left out to fit
    score: float = 0.0
    path: list[str] = field(default_factory=list)  # the headings it is shown under
    reason: str = ""  # why it is in, for explanations
    metadata: str = field(default="", repr=False)  # kind, scope, source, time
    facts_kept: int = 0  # how many of its facts (the first ones) are in the block

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.entry_id,
            "position": self.position,
            "tokens": self.tokens,
            "section": self.section,
            "facts_dropped": self.facts_dropped,
            "score": round(self.score, 4),
            "path": self.path,
            "reason": self.reason,
            "facts_kept": self.facts_kept,
        }


@dataclass(slots=True)
class Excluded:
    entry_id: str
    reason: str  # a code from REASONS
    detail: str  # human explanation
    section: str = ""
    superseded_by: str = ""
    summary: str = field(default="", repr=False)  # for readable explanations

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.entry_id, "reason": self.reason, "detail": self.detail}
        if self.section:
            out["section"] = self.section
        if self.superseded_by:
            out["superseded_by"] = self.superseded_by
        return out


@dataclass
class Assembly:
    text: str
    tokens: int  # size of `text` in `unit`, counted by `counter`
    budget: int
    unit: str
    counter: str
    purpose: str
    format: str
    query: str | None
    included: list[Included] = field(default_factory=list)
    # Entries left out; budget exclusions (often thousands) are materialised on first
    # access of `excluded`, so a hook that only prints the text does not pay for them.
    excluded_early: list[Excluded] = field(default_factory=list, repr=False)
    # (entry, section, reason, detail) for irrelevant and budget exclusions, in order.
    pending: list[tuple[Entry, str, str, str]] = field(default_factory=list, repr=False)
    # Builds the budget exclusions on first access of `excluded`.
    pending_later: Callable[[], list[tuple[Entry, str, str, str]]] | None = field(
        default=None, repr=False
    )
    sections: list[str] = field(default_factory=list)  # the purpose's order
    needed_sections: list[str] = field(default_factory=list)  # from analyze_query
    relevance: str = ""  # which scorer ranked by relevance ("lexical", "search-hybrid", ...)
    timing_ms: dict[str, float] = field(default_factory=dict)
    # (heading path, entry) of each included item, in output order.
    chosen: list[tuple[tuple[str, ...], Entry]] = field(default_factory=list, repr=False)
    metadata: bool = False  # per-entry metadata written into the block

    @property
    def excluded(self) -> list[Excluded]:
        """Every entry left out, with its reason (status/scope/... first, then budget)."""
        if self.pending_later is not None:
            self.pending.extend(self.pending_later())
            self.pending_later = None
        if self.pending:
            self.excluded_early.extend(
                Excluded(entry.id, reason, detail, section, "", entry.summary)
                for entry, section, reason, detail in self.pending
            )
            self.pending = []
        return self.excluded_early

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "budget": self.budget,
            "unit": self.unit,
            "counter": self.counter,
            "purpose": self.purpose,
            "format": self.format,
            "query": self.query,
            "sections": self.sections,
            "needed_sections": self.needed_sections,
            "relevance": self.relevance,
            "metadata": self.metadata,
            "included": [i.to_json() for i in self.included],
            "excluded": [e.to_json() for e in self.excluded],
            "timing_ms": {k: round(v, 3) for k, v in self.timing_ms.items()},
        }

    def memory_md(self) -> str:
        """The included entries as MEMORY.md (same entries, same order, same headings)."""
        return memory_md_text(self.chosen)

    def explain_included(self) -> str:
        """Readable list of every entry put in and why, with its metadata."""
        if not self.included:
            return "Nothing was put in."
        lines = [f"Put in: {len(self.included)} entries"]
        summaries = {entry.id: entry.summary for _, entry in self.chosen}
        for item in self.included:
            where = " > ".join(item.path)
            gist = _gist(summaries.get(item.entry_id, ""))
            lines.append(
                f"  {item.position}. {item.entry_id}: {item.reason}; {item.tokens} "
                f"{'chars' if self.unit == 'chars' else 'tokens'}"
                + (f"; {item.facts_kept} of its facts kept to fit" if item.facts_dropped else "")
            )
            lines.append(f"     under {where} | {item.metadata}" + (f" | {gist}" if gist else ""))
        return "\n".join(lines)

    def explain(self, gist_for: Callable[[str], bool] | None = None) -> str:
        """Readable list of every entry left out and why, grouped by reason; the start of
        an entry's summary only where `gist_for(entry id)` says it may be shown (an
        entry the guard has not screened shows its id and why it is out only)."""
        if not self.excluded:
            return "Nothing was left out."
        lines = [f"Left out: {len(self.excluded)} entries"]
        by_reason: dict[str, list[Excluded]] = {}
        for item in self.excluded:
            by_reason.setdefault(item.reason, []).append(item)
        for reason in REASONS:
            items = by_reason.get(reason, [])
            if not items:
                continue
            lines.append("")
            lines.append(f"{reason} ({len(items)}): {REASONS[reason]}")
            for item in items:
                shown = gist_for is None or gist_for(item.entry_id)
                gist = _gist(item.summary) if shown else ""
                lines.append(f"  - {item.entry_id}: {item.detail}" + (f" | {gist}" if gist else ""))
        return "\n".join(lines)


def describe(entry: Entry, fmt: str) -> str:
    """The metadata an explanation shows next to an included entry."""
    return metadata_text(entry, fmt)


def _gist(text: str, width: int = 60) -> str:
    """First `width` characters of a summary, on one line (whole characters only)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
