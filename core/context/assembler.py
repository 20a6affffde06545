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
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from math import exp2
from operator import itemgetter
from typing import Any

from memdesk.core.context.query import (
    ContextRequirement,
    LexicalIndex,
    analyze_query,
    lexical_scores,
)
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
from memdesk.core.entry import STATUSES, Entry

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
    "status": "candidate, not confirmed",
    "low_confidence": "low-confidence candidate",
    "purpose": "section not part of this purpose",
    "irrelevant": "irrelevant to the query",
    "budget": "did not fit in the budget",
}

EXHAUSTED = f"budget exhausted: fewer than {MIN_REMAINING} left"
_CONFIDENCE_WEIGHT = {"high": 1.0, "medium": 0.85, "low": 0.6}
# Status weight x confidence weight, looked up once per entry.
_WEIGHT: dict[tuple[str, str], float] = {
    (status, confidence): (1.0 if status == "confirmed" else 0.6) * weight
    for status in STATUSES
    for confidence, weight in _CONFIDENCE_WEIGHT.items()
}


def section_of(entry: Entry) -> str:
    section = SECTION_OF_KIND.get(entry.kind, "project")
    if entry.kind == "project" and (
        entry.source.commands
        or (entry.tags and not COMMAND_TAGS.isdisjoint(map(str.lower, entry.tags)))
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
    sections: list[str] = field(default_factory=list)  # the purpose's order
    needed_sections: list[str] = field(default_factory=list)  # from analyze_query
    relevance: str = ""  # which scorer ranked by relevance ("lexical", "search-hybrid", ...)
    timing_ms: dict[str, float] = field(default_factory=dict)
    chosen: list[tuple[Entry, str, bool]] = field(default_factory=list, repr=False)

    @property
    def excluded(self) -> list[Excluded]:
        """Every entry left out, with its reason (status/scope/... first, then budget)."""
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
        """Readable list of every entry left out and why, grouped by reason."""
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
                gist = _gist(item.summary)
                lines.append(f"  - {item.entry_id}: {item.detail}" + (f" | {gist}" if gist else ""))
        return "\n".join(lines)


def _gist(text: str, width: int = 60) -> str:
    """First `width` characters of a summary, on one line (whole characters only)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


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
            return Excluded(
                entry.id,
                "status",
                f"candidate ({entry.confidence} confidence); include_candidates is off",
            )
        if entry.confidence == "low":
            return Excluded(entry.id, "low_confidence", REASONS["low_confidence"])
    return None


@dataclass
class _Prepared:
    excluded: list[Excluded]
    eligible: list[tuple[Entry, str, float]]
    ranked: list[tuple[float, Entry, str, float]] | None = None  # no-query order
    lexical: LexicalIndex | None = None  # built on the first query


_PREPARED: dict[tuple[Any, ...], _Prepared] = {}
_PREPARED_MAX = 8


def _screen(
    entries: Iterable[Entry],
    scope_set: set[str] | None,
    include_candidates: bool,
    today: dt.date,
    half_life_days: float,
    rank_of_section: dict[str, int],
    purpose: str,
) -> tuple[list[Excluded], list[tuple[Entry, str, float]]]:
    """Stage 1, independent of query and budget: who may be injected at all, and the
    query-independent part of each score. Memoised per store version by `assemble`."""
    now_ts = dt.datetime.combine(today, dt.time(12), tzinfo=dt.UTC).timestamp()
    per_second = 1.0 / (half_life_days * 86400.0)
    # 1. scope and status rules; sections the purpose does not have; the part of the
    # score that does not depend on a query (time decay x status weight).
    excluded: list[Excluded] = []
    eligible: list[tuple[Entry, str, float]] = []
    for entry in entries:
        # Fast path for the common case (a plain confirmed entry in scope); the rest go
        # through _gate, which says why.
        if (
            entry.status != "confirmed"
            or entry.superseded_by
            or entry.valid_until is not None
            or entry.flags
            or (scope_set is not None and entry.scope not in scope_set)
        ):
            refused = _gate(entry, scope_set, include_candidates, today)
            if refused is not None:
                refused.summary = entry.summary
                excluded.append(refused)
                continue
        section = section_of(entry) if entry.kind == "project" else SECTION_OF_KIND[entry.kind]
        if section not in rank_of_section:
            excluded.append(
                Excluded(
                    entry.id,
                    "purpose",
                    f"{SECTION_TITLES.get(section, section)} is not a section of purpose {purpose!r}",
                    section,
                    summary=entry.summary,
                )
            )
            continue
        ts = entry.updated.timestamp()
        if entry.last_access is not None:
            ts = max(ts, entry.last_access.timestamp())
        # score factors: 2^(-age / half-life) x status weight x confidence weight
        static = exp2(min(0.0, ts - now_ts) * per_second) * _WEIGHT[entry.status, entry.confidence]
        eligible.append((entry, section, static))
    return excluded, eligible


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
    store_version: Hashable | None = None,
) -> Assembly:
    """Assemble the memory block. Unset options come from `settings` ([context] table).

    `store_version` (e.g. `Store.version`): when given, the query- and budget-independent
    screening of `entries` is memoised under it, so a new query, budget or format on an
    unchanged store does not walk every entry again. It must change when entries do.
    """
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
    t_counter = time.perf_counter()
    counter = counter or get_counter(unit, cs.tokenizer)  # loads a vocabulary once per process
    loading = time.perf_counter() - t_counter
    t0 += loading  # reported apart (`counter_load`), not as assembly time
    load_ms = loading * 1000
    today = today or dt.date.today()
    scope_set = set(scopes) if scopes else None
    query = query.strip() if query and query.strip() else None

    # 1. scope and status rules, sections of the purpose, decay x status weight.
    screen_args = (
        scope_set,
        include_candidates,
        today,
        cs.half_life_days,
        rank_of_section,
        purpose,
    )
    prepared = None
    if store_version is not None:
        memo_key = (
            store_version,
            tuple(sorted(scope_set)) if scope_set else None,
            *screen_args[1:4],
            tuple(order),
            purpose,
        )
        prepared = _PREPARED.get(memo_key)
    if prepared is None:
        prepared = _Prepared(*_screen(entries, *screen_args))
        if store_version is not None:
            if len(_PREPARED) >= _PREPARED_MAX:
                _PREPARED.pop(next(iter(_PREPARED)))
            _PREPARED[memo_key] = prepared
    excluded = list(prepared.excluded)
    eligible = prepared.eligible
    t_filter = time.perf_counter()

    # 2. relevance: search score, or the section is one the query asks for.
    requirement: ContextRequirement | None = None
    relevance: dict[str, float] = {}
    irrelevant: list[tuple[Entry, str, str, str]] = []
    if query is not None:
        requirement = analyze_query(query)
        if search is not None:
            raw = search(query, [e for e, _, _ in eligible])
        elif store_version is None:
            raw = lexical_scores(query, (e for e, _, _ in eligible))
        else:
            if prepared.lexical is None:
                prepared.lexical = LexicalIndex(e for e, _, _ in eligible)
            raw = prepared.lexical.scores(query)
        top = max((s for s in raw.values() if s > 0), default=0.0)
        relevance = {k: v / top for k, v in raw.items() if v > 0} if top else {}
        kept: list[tuple[Entry, str, float]] = []
        needs = requirement.sections
        for item in eligible:
            if item[1] in needs or item[0].id in relevance:
                kept.append(item)
            else:
                irrelevant.append((item[0], item[1], "irrelevant", REASONS["irrelevant"]))
        eligible = kept
    t_relevance = time.perf_counter()

    # 3. rank, with one float sort key per entry. No query: the purpose's section order
    # decides what gets in first (key = section rank, then score in (0, 1]). A query: the
    # most relevant get in first (earlier sections weigh a bit more). The output is
    # grouped in the purpose's order either way.
    ranked: list[tuple[float, Entry, str, float]]
    if requirement is None:
        if prepared.ranked is None:
            prepared.ranked = sorted(
                ((rank_of_section[s] * 2.0 - sc, e, s, sc) for e, s, sc in eligible),
                key=itemgetter(0),
            )
        ranked = prepared.ranked
    else:
        n_sections = max(1, len(order))
        ranked = []
        for entry, section, static in eligible:
            base = relevance.get(entry.id, 0.0) + (0.25 if requirement.needs(section) else 0.0)
            score = base * static
            ranked.append(
                (
                    -score * (1.0 - 0.5 * rank_of_section[section] / n_sections),
                    entry,
                    section,
                    score,
                )
            )
    ranked.sort(key=itemgetter(0))  # stable: ties keep the caller's order
    t_rank = time.perf_counter()

    # 4. fill the budget entry by entry, then lay the chosen out in section order.
    chosen, costs, over = _fill(ranked, fmt, purpose, budget, counter)
    score_of = {
        entry.id: score
        for _, entry, _, score in ranked[: len(costs) + len(over)]
        if entry.id in costs
    }
    chosen.sort(key=lambda c: (rank_of_section[c[1]], -score_of[c[0].id]))
    text, used = _render_within(chosen, fmt, purpose, budget, counter, costs, over)
    t_fill = time.perf_counter()

    included = [
        Included(entry.id, pos, costs[entry.id], section, not with_facts, score_of[entry.id])
        for pos, (entry, section, with_facts) in enumerate(chosen, start=1)
    ]
    pending = irrelevant
    pending.extend(
        (entry, section, "budget", over.get(entry.id, EXHAUSTED))
        for _, entry, section, _ in ranked
        if entry.id not in costs
    )
    t_done = time.perf_counter()
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
        excluded_early=excluded,
        pending=pending,
        sections=list(order),
        needed_sections=sorted(requirement.sections) if requirement else [],
        relevance=(getattr(search, "__name__", "custom") if search else "lexical") if query else "",
        timing_ms={
            "filter": (t_filter - t0) * 1000,
            "relevance": (t_relevance - t_filter) * 1000,
            "rank": (t_rank - t_relevance) * 1000,
            "fill": (t_fill - t_rank) * 1000,
            "explain": (t_done - t_fill) * 1000,
            "total": (t_done - t0) * 1000,
            "counter_load": load_ms,
        },
        chosen=chosen,
    )


def _fill(
    ranked: list[tuple[float, Entry, str, float]],
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
        for _, entry, _, _ in ranked:
            over[entry.id] = f"budget {budget} is smaller than the block's frame"
        return [], costs, over
    open_sections: set[str] = set()
    stopped = False
    for _, entry, section, _ in ranked:
        entry_id = entry.id
        if stopped:
            break
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
