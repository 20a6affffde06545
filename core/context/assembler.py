"""Context assembly: what an agent is given under a budget, and why each entry is in or out.

Order of decisions (seed 004): scope filter, then status rules (superseded, expired, past
`valid_until`, suspicious, candidates, low confidence), then relevance to the query (a
search callable or the built-in lexical score, plus seed 001's `analyze_query` deciding
which sections the query needs), then time decay and status weight rank entries inside
each section, and sections follow the purpose's order. The budget is filled entry by entry
(an entry is never cut; its facts may be dropped to keep its summary); after an entry does
not fit, smaller ones are still tried while at least `MIN_REMAINING` units are left (seed
001). The final text is re-counted and trimmed, so the budget is a hard limit.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.context.query import ContextRequirement, analyze_query, lexical_scores
from memdesk.core.context.render import (
    SECTION_TITLES,
    footer_lines,
    header_lines,
    heading_line,
    item_lines,
    memory_md_text,
)
from memdesk.core.context.settings import FORMATS, UNITS, context_settings
from memdesk.core.context.tokens import TokenCounter, get_counter
from memdesk.core.entry import Entry

SearchFn = Callable[[str, Sequence[Entry]], dict[str, float]]

# Seed 001: after something does not fit, keep going only while this much is left.
MIN_REMAINING = 100

SECTION_OF_KIND: dict[str, str] = {
    "project": "project",
    "decision": "project",
    "workflow": "commands",
    "experience": "experience",
    "profile": "preferences",
    "preference": "preferences",
    "event": "events",
    "session": "events",
    "resource": "resources",
}
# Project facts that are really about commands/environment (seed 004 "environment /
# command") go to the commands section: tagged so, or carrying a command in their source.
COMMAND_TAGS = frozenset({"command", "commands", "cmd", "env", "environment", "setup", "cli"})

REASONS: dict[str, str] = {
    "scope": "scope not requested",
    "superseded": "superseded",
    "expired": "expired",
    "suspicious": "flagged suspicious",
    "status": "candidate, not confirmed (include_candidates is off)",
    "low_confidence": "low-confidence candidate",
    "purpose": "section not part of this purpose",
    "irrelevant": "irrelevant to the query",
    "budget": "did not fit in the budget",
}

_CONFIDENCE_WEIGHT = {"high": 1.0, "medium": 0.85, "low": 0.6}


def section_of(entry: Entry) -> str:
    section = SECTION_OF_KIND.get(entry.kind, "project")
    if entry.kind == "project" and (
        entry.source.commands or COMMAND_TAGS.intersection(t.lower() for t in entry.tags)
    ):
        return "commands"
    return section


@dataclass
class Included:
    entry_id: str
    position: int  # 1-based, in output order
    tokens: int  # cost of this item in the assembly's unit (incl. its line break)
    section: str
    facts_dropped: bool = False  # summary kept, facts left out to fit
    score: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.entry_id,
            "position": self.position,
            "tokens": self.tokens,
            "section": self.section,
            "facts_dropped": self.facts_dropped,
            "score": round(self.score, 4),
        }


@dataclass
class Excluded:
    entry_id: str
    reason: str  # a code from REASONS
    detail: str  # human explanation
    section: str = ""
    superseded_by: str = ""

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
    excluded: list[Excluded] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)  # the purpose's order
    needed_sections: list[str] = field(default_factory=list)  # from analyze_query
    relevance: str = ""  # which scorer ranked by relevance ("lexical", "search-hybrid", ...)
    timing_ms: dict[str, float] = field(default_factory=dict)
    chosen: list[tuple[Entry, str, bool]] = field(default_factory=list, repr=False)

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
            "included": [i.to_json() for i in self.included],
            "excluded": [e.to_json() for e in self.excluded],
            "timing_ms": {k: round(v, 3) for k, v in self.timing_ms.items()},
        }

    def memory_md(self) -> str:
        """The included entries as MEMORY.md (same entries, same order)."""
        grouped: list[tuple[str, list[Entry]]] = []
        for entry, section, _ in self.chosen:
            if not grouped or grouped[-1][0] != section:
                grouped.append((section, []))
            grouped[-1][1].append(entry)
        return memory_md_text(grouped)

    def explain(self) -> str:
        """Readable list of every entry left out and why."""
        if not self.excluded:
            return "Nothing was left out."
        lines = [f"Left out ({len(self.excluded)}):"]
        lines.extend(f"- {e.entry_id}: {e.reason} — {e.detail}" for e in self.excluded)
        return "\n".join(lines)


def _gate(
    entry: Entry, scopes: set[str] | None, include_candidates: bool, today: dt.date
) -> Excluded | None:
    """Status and scope rules: why an entry may not be injected at all."""
    if scopes is not None and entry.scope not in scopes:
        return Excluded(
            entry.id, "scope", f"scope {entry.scope!r} not in {', '.join(sorted(scopes))}"
        )
    if entry.status == "superseded" or entry.superseded_by:
        by = entry.superseded_by
        return Excluded(
            entry.id,
            "superseded",
            f"superseded by {by}" if by else "status is superseded",
            superseded_by=by,
        )
    if entry.status == "expired":
        return Excluded(entry.id, "expired", "status is expired")
    if entry.valid_until is not None and entry.valid_until < today:
        return Excluded(entry.id, "expired", f"valid until {entry.valid_until} (past)")
    if "suspicious" in entry.flags:
        return Excluded(entry.id, "suspicious", f"flagged suspicious: {entry.flags['suspicious']}")
    if entry.status == "candidate":
        if not include_candidates:
            return Excluded(entry.id, "status", REASONS["status"])
        if entry.confidence == "low":
            return Excluded(entry.id, "low_confidence", REASONS["low_confidence"])
    return None


def _age_days(entry: Entry, now: dt.datetime) -> float:
    ref = entry.updated
    if entry.last_access is not None and entry.last_access > ref:
        ref = entry.last_access
    return max(0.0, (now - ref).total_seconds() / 86400.0)


def assemble(
    entries: Iterable[Entry],
    *,
    purpose: str | None = None,
    query: str | None = None,
    budget: int | None = None,
    unit: str | None = None,
    scopes: Iterable[str] | None = None,
    include_candidates: bool | None = None,
    settings: Any = None,
    search: SearchFn | None = None,
    today: dt.date | None = None,
    format: str | None = None,
    counter: TokenCounter | None = None,
) -> Assembly:
    """Assemble the memory block. Unset options come from `settings` ([context] table)."""
    t0 = time.perf_counter()
    cs = context_settings(settings)
    purpose = purpose or cs.purpose
    budget = cs.budget if budget is None else budget
    unit = unit or cs.unit
    fmt = format or cs.format
    include_candidates = cs.include_candidates if include_candidates is None else include_candidates
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; allowed: {', '.join(UNITS)}")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    order = cs.sections_for(purpose)
    rank_of_section = {s: i for i, s in enumerate(order)}
    counter = counter or get_counter(unit, cs.tokenizer)
    today = today or dt.date.today()
    now = dt.datetime.combine(today, dt.time(12), tzinfo=dt.UTC)
    scope_set = set(scopes) if scopes else None
    query = query.strip() if query and query.strip() else None

    # 1. scope and status rules; sections the purpose does not have.
    excluded: list[Excluded] = []
    eligible: list[tuple[Entry, str]] = []
    for entry in entries:
        refused = _gate(entry, scope_set, include_candidates, today)
        if refused is not None:
            excluded.append(refused)
            continue
        section = section_of(entry)
        if section not in rank_of_section:
            excluded.append(
                Excluded(
                    entry.id,
                    "purpose",
                    f"{SECTION_TITLES.get(section, section)} is not a section of purpose {purpose!r}",
                    section=section,
                )
            )
            continue
        eligible.append((entry, section))
    t_filter = time.perf_counter()

    # 2. relevance: search score, or the section is one the query asks for.
    requirement: ContextRequirement | None = None
    relevance: dict[str, float] = {}
    if query is not None:
        requirement = analyze_query(query)
        pool = [e for e, _ in eligible]
        raw = search(query, pool) if search is not None else lexical_scores(query, pool)
        top = max((s for s in raw.values() if s > 0), default=0.0)
        relevance = {k: v / top for k, v in raw.items() if v > 0} if top else {}
        kept: list[tuple[Entry, str]] = []
        for entry, section in eligible:
            if entry.id in relevance or requirement.needs(section):
                kept.append((entry, section))
            else:
                excluded.append(
                    Excluded(entry.id, "irrelevant", REASONS["irrelevant"], section=section)
                )
        eligible = kept
    t_relevance = time.perf_counter()

    # 3. rank: section order first, then relevance x time decay x status weight.
    half_life = cs.half_life_days
    ranked: list[tuple[int, float, str, Entry, str]] = []
    for entry, section in eligible:
        base = 1.0
        if requirement is not None:
            base = relevance.get(entry.id, 0.0) + (0.25 if requirement.needs(section) else 0.0)
        decay = 0.5 ** (_age_days(entry, now) / half_life)
        weight = (1.0 if entry.status == "confirmed" else 0.6) * _CONFIDENCE_WEIGHT.get(
            entry.confidence, 0.6
        )
        score = base * decay * weight
        ranked.append((rank_of_section[section], -score, entry.id, entry, section))
    if requirement is None:
        # No query: the purpose's section order decides what gets in first.
        ranked.sort(key=lambda r: (r[0], r[1], r[2]))
    else:
        # A query: the most relevant entries get in first (earlier sections weigh a bit
        # more), and the output is still grouped in the purpose's order.
        n = max(1, len(order))
        ranked.sort(key=lambda r: (r[1] * (1.0 - 0.5 * r[0] / n), r[0], r[2]))
    t_rank = time.perf_counter()

    # 4. fill the budget entry by entry, then lay the chosen out in section order.
    chosen, costs, over = _fill(ranked, fmt, purpose, budget, counter)
    position = {r[2]: (r[0], r[1], r[2]) for r in ranked}
    chosen.sort(key=lambda c: position[c[0].id])
    text, used = _render_within(chosen, fmt, purpose, budget, counter, costs, over)
    t_fill = time.perf_counter()

    chosen_ids = {entry.id for entry, _, _ in chosen}
    score_of = {r[2]: -r[1] for r in ranked}
    included = [
        Included(entry.id, pos, costs[entry.id], section, not with_facts, score_of[entry.id])
        for pos, (entry, section, with_facts) in enumerate(chosen, start=1)
    ]
    for _, _, entry_id, _entry, section in ranked:
        if entry_id not in chosen_ids:
            excluded.append(Excluded(entry_id, "budget", over.get(entry_id, ""), section=section))
    return Assembly(
        text=text,
        tokens=used,
        budget=budget,
        unit=unit,
        counter=counter.name,
        purpose=purpose,
        format=fmt,
        query=query,
        included=included,
        excluded=excluded,
        sections=list(order),
        needed_sections=sorted(requirement.sections) if requirement else [],
        relevance=(getattr(search, "__name__", "custom") if search else "lexical") if query else "",
        timing_ms={
            "filter": (t_filter - t0) * 1000,
            "relevance": (t_relevance - t_filter) * 1000,
            "rank": (t_rank - t_relevance) * 1000,
            "fill": (t_fill - t_rank) * 1000,
            "total": (t_fill - t0) * 1000,
        },
        chosen=chosen,
    )


def _fill(
    ranked: list[tuple[int, float, str, Entry, str]],
    fmt: str,
    purpose: str,
    budget: int,
    counter: TokenCounter,
) -> tuple[list[tuple[Entry, str, bool]], dict[str, int], dict[str, str]]:
    """Greedy fill in rank order; returns chosen items, their costs and why others are out."""
    newline = counter.count("\n")
    frame = header_lines(fmt, purpose) + footer_lines(fmt)
    remaining = budget - (counter.count("\n".join(frame)))
    chosen: list[tuple[Entry, str, bool]] = []
    costs: dict[str, int] = {}
    over: dict[str, str] = {}
    if remaining < 0:
        for r in ranked:
            over[r[2]] = f"budget {budget} is smaller than the block's frame"
        return [], costs, over
    open_sections: set[str] = set()
    stopped = False
    for _, _, entry_id, entry, section in ranked:
        if stopped:
            over[entry_id] = f"budget exhausted: fewer than {MIN_REMAINING} left"
            continue
        heading = (
            0 if section in open_sections else newline + counter.count(heading_line(section, fmt))
        )
        full = heading + newline + counter.count("\n".join(item_lines(entry, fmt)))
        if full <= remaining:
            chosen.append((entry, section, True))
            costs[entry_id] = full
            remaining -= full
            open_sections.add(section)
            continue
        if entry.facts:
            short = (
                heading
                + newline
                + counter.count("\n".join(item_lines(entry, fmt, with_facts=False)))
            )
            if short <= remaining:
                chosen.append((entry, section, False))
                costs[entry_id] = short
                remaining -= short
                open_sections.add(section)
                continue
        over[entry_id] = f"needs {full} {_unit(counter)}, {remaining} left"
        if remaining < MIN_REMAINING:
            stopped = True
    return chosen, costs, over


def _unit(counter: TokenCounter) -> str:
    return "chars" if counter.name == "chars" else "tokens"


def _render(chosen: list[tuple[Entry, str, bool]], fmt: str, purpose: str) -> str:
    lines = header_lines(fmt, purpose)
    open_section = ""
    for entry, section, with_facts in chosen:
        if section != open_section:
            lines.append(heading_line(section, fmt))
            open_section = section
        lines.extend(item_lines(entry, fmt, with_facts=with_facts))
    lines.extend(footer_lines(fmt))
    return "\n".join(lines)


def _render_within(
    chosen: list[tuple[Entry, str, bool]],
    fmt: str,
    purpose: str,
    budget: int,
    counter: TokenCounter,
    costs: dict[str, int],
    over: dict[str, str],
) -> tuple[str, int]:
    """Render and re-count the whole text; drop trailing items if a real tokenizer's
    merges across line breaks made the sum of parts an under-count."""
    if not chosen:
        return "", 0
    while chosen:
        text = _render(chosen, fmt, purpose)
        used = counter.count(text)
        if used <= budget:
            return text, used
        entry, _, _ = chosen.pop()
        costs.pop(entry.id, None)
        over[entry.id] = f"dropped after re-counting the whole block ({used} > {budget})"
    return "", 0
