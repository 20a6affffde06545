"""One consolidation run (seed 001 MemoryConsolidationPipeline) -> a Plan of proposals.

Nothing is written here: the plan is reviewed, then `plan.apply` writes the accepted
part in one atomic batch. With `auto_apply_safe` the caller may apply `plan.safe`.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from memdesk.core.consolidate.phases import (
    ACTIVE,
    cached_sessions,
    consolidate,
    expired_by_date,
    gather,
    orient,
    prune,
)
from memdesk.core.consolidate.plan import Plan, Proposal
from memdesk.core.consolidate.settings import ConsolidationSettings, consolidation_settings
from memdesk.core.consolidate.similarity import WithSearch, similarity_for
from memdesk.core.consolidate.state import load_state
from memdesk.core.consolidate.triggers import should_consolidate
from memdesk.core.entry import Entry, now
from memdesk.core.guard import screen
from memdesk.core.pairs import Dismissals

_ACTION_ORDER = {"expire": 0, "merge": 1, "supersede": 2, "delete": 3, "add": 4}


def workflow_of(store: Any, settings: ConsolidationSettings) -> str:
    return settings.workflow or store.root.name


def build_plan(
    store: Any,
    services: WithSearch | None = None,
    *,
    settings: ConsolidationSettings | None = None,
    at: dt.datetime | None = None,
    explicit: bool = False,
    message: str = "",
) -> Plan:
    """Run orient, gather, consolidate and prune over the store; return the proposals.

    `services` may carry a loaded `search` (SearchService) whose model vectors are then
    used for near-duplicates and contradictions; without it lexical vectors are used.
    `at` fixes "now" (tests, benchmarks).
    """
    started = mark = time.perf_counter()
    phase_ms: dict[str, float] = {}

    def lap(name: str) -> None:
        nonlocal mark
        current = time.perf_counter()
        phase_ms[name] = (current - mark) * 1000
        mark = current

    settings = settings or consolidation_settings(store.settings)
    at = at or now()
    today = at.date()
    state = load_state(store.meta_dir)
    since = state.last_run_time
    workflow = workflow_of(store, settings)
    entries = store.entries()
    plan = Plan()
    decision = should_consolidate(store, state, settings, explicit=explicit, message=message, at=at)
    plan.trigger = decision.to_json()
    plan.session_ids = decision.sessions_since
    lap("load+trigger")

    gathered = gather(store, entries, since, settings, workflow)
    plan.notes.extend(gathered.notes)
    plan.sessions = gathered.sessions
    lap("gather")
    orientation = orient(
        entries,
        cached_sessions(store.meta_dir, settings, workflow),
        gathered.sessions,
        since,
        settings,
        workflow,
        plugin_topics=gathered.topics,
    )
    plan.orientation = orientation.to_json()
    plan.gathered = gathered.counts()
    lap("orient")

    new_entries = []
    for entry in [*gathered.new_entries, *_deferred(store, state, gathered.new_entries)]:
        verdict = screen(entry)
        if verdict.entry is None:
            plan.notes.append(f"gather: refused by the guard: {'; '.join(verdict.reasons)}")
            continue
        new_entries.append(verdict.entry)

    expiring = expired_by_date(entries, today)
    pool = [e for e in entries if e.status in ACTIVE and e.id not in expiring]
    sim = similarity_for(services, settings)
    plan.notes.append(f"similarity: {sim.source}")
    dismissals = Dismissals(store.meta_dir)
    merged, notes = consolidate(pool, new_entries, sim, settings, dismissals.contains_pair)
    plan.notes.extend(notes)
    lap("consolidate")
    claimed = {i for p in merged if p.action != "add" for i in p.entry_ids}
    pruned = prune(entries, claimed, settings, today, at)
    proposals: list[Proposal] = [*merged, *pruned]
    proposals.sort(key=lambda p: (_ACTION_ORDER[p.action], p.entry_ids))
    plan.proposals = proposals
    lap("prune")
    plan.phase_ms = phase_ms
    plan.plan_ms = (time.perf_counter() - started) * 1000
    return plan


def _deferred(store: Any, state: Any, gathered: list[Entry]) -> list[Entry]:
    """Additions left unticked by the last partial apply, unless known by now."""
    known = store.known_hashes() | {e.text_hash for e in gathered}
    out: list[Entry] = []
    for data in state.deferred:
        try:
            entry = Entry.from_dict({k: v for k, v in data.items() if v is not None})
        except ValueError:
            continue  # a damaged state file: that proposal is gone, nothing else
        if entry.text_hash not in known:
            known.add(entry.text_hash)
            out.append(entry)
    return out
