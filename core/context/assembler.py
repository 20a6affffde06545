"""Context assembly: what an agent is given under a budget, and why each entry is in or out.

Order of decisions (seed 004): scope filter, then status rules (superseded, expired, past
`valid_until`, suspicious, candidates, low confidence), then relevance to the query (a
search callable or the built-in lexical score over an entry and its headings, plus seed
001's `analyze_query` deciding which sections the query needs), then time decay, status
weight, what the text is (`weigh`: code or sample data low, a stressed rule high) and the
purpose's section order rank entries. The budget is filled in rank order (`fill`), each
entry with the headings and subject line it needs; the chosen entries are then laid out
under their headings in file order (`outline`). The final text is re-counted and
trimmed, so the budget is a hard limit.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from math import exp2
from typing import Any

from memdesk.core.context.fill import Filled, Layout, fill, render_within
from memdesk.core.context.outline import Item, order_key, subject_lines
from memdesk.core.context.query import (
    ContextRequirement,
    LexicalIndex,
    analyze_query,
    lexical_scores,
)
from memdesk.core.context.records import (
    EXHAUSTED,
    MIN_REMAINING,
    REASONS,
    Assembly,
    Excluded,
    Included,
    describe,
)
from memdesk.core.context.render import SECTION_TITLES
from memdesk.core.context.settings import FORMATS, UNITS, context_settings
from memdesk.core.context.tokens import TokenCounter, get_counter
from memdesk.core.context.weigh import Weight, weigh
from memdesk.core.entry import STATUSES, Entry

__all__ = [
    "EXHAUSTED",
    "MIN_REMAINING",
    "REASONS",
    "Assembly",
    "Excluded",
    "Included",
    "assemble",
    "section_of",
]

SearchFn = Callable[[str, Sequence[Entry]], dict[str, float]]

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

_CONFIDENCE_WEIGHT = {"high": 1.0, "medium": 0.85, "low": 0.6}
# Status weight x confidence weight, looked up once per entry.
_WEIGHT: dict[tuple[str, str], float] = {
    (status, confidence): (1.0 if status == "confirmed" else 0.6) * weight
    for status in STATUSES
    for confidence, weight in _CONFIDENCE_WEIGHT.items()
}


# Status weight x confidence weight (the name `quick.py` ranks kept rows with).
STATUS_WEIGHT = _WEIGHT


def section_of(entry: Entry) -> str:
    section = SECTION_OF_KIND.get(entry.kind, "project")
    if entry.kind == "project" and (
        entry.source.commands
        or (entry.tags and not COMMAND_TAGS.isdisjoint(map(str.lower, entry.tags)))
    ):
        return "commands"
    return section


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


# (entry, its kind-based section, query-independent score, what its text is)
Screened = tuple[Entry, str, float, str]


@dataclass
class _Prepared:
    excluded: list[Excluded]
    eligible: list[Screened]
    ranked: list[Item] | None = None  # no-query order
    subjects: dict[str, Item] | None = None  # no-query subject lines
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
    weights: Callable[[Entry], Weight] = weigh,
) -> tuple[list[Excluded], list[Screened]]:
    """Stage 1, independent of query and budget: who may be injected at all, and the
    query-independent part of each score. Memoised per store version by `assemble`."""
    now_ts = dt.datetime.combine(today, dt.time(12), tzinfo=dt.UTC).timestamp()
    per_second = 1.0 / (half_life_days * 86400.0)
    # 1. scope and status rules; sections the purpose does not have; the part of the
    # score that does not depend on a query (time decay x status weight x what the
    # text is).
    excluded: list[Excluded] = []
    eligible: list[Screened] = []
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
        # score factors: 2^(-age / half-life) x status weight x confidence weight x text
        weight = weights(entry)
        static = (
            exp2(min(0.0, ts - now_ts) * per_second)
            * _WEIGHT[entry.status, entry.confidence]
            * weight.factor
        )
        eligible.append((entry, section, static, weight.label))
    return excluded, eligible


def purpose_factor(rank: int, n_sections: int) -> float:
    """Earlier sections of the purpose weigh more: 1.0 for the first, down to 0.5."""
    return 1.0 - 0.5 * rank / max(1, n_sections)


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
    metadata: bool | None = None,
    weights: Callable[[Entry], Weight] = weigh,
) -> Assembly:
    """Assemble the memory block. Unset options come from `settings` ([context] table).

    `weights`: what an entry's text weighs (`weigh`, or the same through kept results:
    `kept_weights.KeptWeights`; it must give what `weigh` gives).

    `metadata`: write each entry's kind, scope, source and time into the block (off by
    default: `context.metadata`). `store_version` (e.g. `Store.version`): when given,
    the query- and budget-independent screening of `entries` is memoised under it, so a
    new query, budget or format on an unchanged store does not walk every entry again.
    It must change when entries do.
    """
    t0 = time.perf_counter()
    cs = context_settings(settings)
    purpose = purpose or cs.purpose
    budget = cs.budget if budget is None else budget
    unit = unit or cs.unit
    fmt = format or cs.format
    include_candidates = cs.include_candidates if include_candidates is None else include_candidates
    metadata = cs.metadata if metadata is None else metadata
    if unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}; allowed: {', '.join(UNITS)}")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; allowed: {', '.join(FORMATS)}")
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    order = cs.sections_for(purpose)
    rank_of_section = {s: i for i, s in enumerate(order)}
    n_sections = len(order)
    t_counter = time.perf_counter()
    counter = counter or get_counter(unit, cs.tokenizer)  # loads a vocabulary once per process
    loading = time.perf_counter() - t_counter
    t0 += loading  # reported apart (`counter_load`), not as assembly time
    load_ms = loading * 1000
    today = today or dt.date.today()
    scope_set = set(scopes) if scopes else None
    query = query.strip() if query and query.strip() else None

    # 1. scope and status rules, sections of the purpose, decay x status x text weight.
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
        prepared = _Prepared(*_screen(entries, *screen_args, weights))
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
    irrelevant: dict[str, tuple[Entry, str, str, str]] = {}
    if query is not None:
        requirement = analyze_query(query)
        if search is not None:
            raw = search(query, [e for e, *_ in eligible])
        elif store_version is None:
            raw = lexical_scores(query, (e for e, *_ in eligible))
        else:
            if prepared.lexical is None:
                prepared.lexical = LexicalIndex(e for e, *_ in eligible)
            raw = prepared.lexical.scores(query)
        top = max((s for s in raw.values() if s > 0), default=0.0)
        relevance = {k: v / top for k, v in raw.items() if v > 0} if top else {}
    t_relevance = time.perf_counter()

    # 3. rank: one float per entry (static score x the purpose's weight for its
    # section, times relevance when there is a query); ties keep file order.
    ranked: list[Item]
    if requirement is None:
        if prepared.ranked is None:
            prepared.ranked = _rank(
                (make_item(e, s, sc, label, rank_of_section) for e, s, sc, label in eligible),
                n_sections,
                rank_of_section,
            )
        ranked = prepared.ranked
        if prepared.subjects is None:
            prepared.subjects = subject_lines(i for i in ranked if i.entry.section)
        subject_of = prepared.subjects
    else:
        sectioned: list[Item] = []
        relevant: list[Item] = []
        needs = requirement.sections
        for entry, section, static, label in eligible:
            base = relevance.get(entry.id, 0.0) + (0.25 if section in needs else 0.0)
            if base > 0 or entry.section:  # an Item only where one is needed
                item = make_item(entry, section, base * static, label, rank_of_section)
                if entry.section:
                    sectioned.append(item)
                if base > 0:
                    relevant.append(item)
            if base <= 0:
                irrelevant[entry.id] = (entry, section, "irrelevant", REASONS["irrelevant"])
        ranked = _rank(relevant, n_sections, rank_of_section)
        subject_of = subject_lines(sectioned)
    t_rank = time.perf_counter()

    # 4. fill the budget (each item with its headings and subject line), then lay the
    # chosen out under their headings and re-count the whole text.
    layout = Layout(fmt, purpose, metadata)
    filler = fill(ranked, subject_of, layout, budget, counter)
    shown, text, used = render_within(filler, budget, counter)
    filled = filler.out
    t_fill = time.perf_counter()

    position_in_rank: dict[str, int] = {}
    shown_ids = {item.entry.id for item in shown}
    for n, item in enumerate(ranked, start=1):
        if len(position_in_rank) == len(shown_ids):
            break  # what is shown is near the top of the ranking
        if item.entry.id in shown_ids:
            position_in_rank[item.entry.id] = n
    included = [
        Included(
            item.entry.id,
            pos,
            filled.costs[item.entry.id],
            item.bucket,
            filled.facts_kept[item.entry.id] < len(item.entry.facts),
            item.score,
            list(item.path),
            _why_in(item, filled, position_in_rank, len(ranked), relevance, requirement, purpose),
            describe(item.entry, fmt),
            facts_kept=filled.facts_kept[item.entry.id],
        )
        for pos, item in enumerate(shown, start=1)
    ]
    for lead_id in filled.pulled:
        irrelevant.pop(lead_id, None)
    pending = list(irrelevant.values())

    def left_out() -> list[tuple[Entry, str, str, str]]:
        """Budget exclusions, built only when someone reads `Assembly.excluded`."""
        over, costs = filled.over, filled.costs
        return [
            (item.entry, item.bucket, "budget", over.get(item.entry.id, EXHAUSTED))
            for item in ranked
            if item.entry.id not in costs
        ]

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
        pending_later=left_out,
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
        chosen=[(item.path, item.entry) for item in shown],
        metadata=metadata,
    )


def make_item(
    entry: Entry, bucket: str, score: float, label: str, rank_of_section: dict[str, int]
) -> Item:
    return Item(entry, bucket, order_key(entry, rank_of_section[bucket], score), score, label)


def _rank(items: Iterable[Item], n_sections: int, rank_of_section: dict[str, int]) -> list[Item]:
    """Best first: score x the purpose's weight for the item's section; ties keep the
    items' block order (file order for memory-file entries)."""
    factor = {bucket: purpose_factor(rank, n_sections) for bucket, rank in rank_of_section.items()}
    return sorted(items, key=lambda i: (-i.score * factor[i.bucket], i.order))


def _why_in(
    item: Item,
    filled: Filled,
    position_in_rank: dict[str, int],
    n_ranked: int,
    relevance: dict[str, float],
    requirement: ContextRequirement | None,
    purpose: str,
) -> str:
    entry_id = item.entry.id
    if entry_id in filled.pulled:
        return f"subject line of its section, needed by {filled.pulled[entry_id]}"
    if requirement is None:
        why = f"ranked {position_in_rank.get(entry_id, 0)} of {n_ranked} for purpose {purpose!r}"
    elif entry_id in relevance:
        why = f"relevant to the query ({relevance[entry_id]:.2f})"
    else:
        why = f"the query needs {SECTION_TITLES.get(item.bucket, item.bucket)}"
    return why + (f"; {item.weight_label}" if item.weight_label else "")
