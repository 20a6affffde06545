"""A consolidation plan: proposals a person accepts in whole or in part, applied as ONE
journaled, atomic store batch (seed 001 autoDream_consolidation with WAL rollback).

Why one batch: the store writes a pending-batch file before touching any entry file and
rolls it back on the next open if the process dies, and an exception inside the batch
discards every staged operation. So a plan is either applied entirely or not at all,
and one `store.undo()` reverses all of it.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.consolidate.metrics import RunMetrics, memory_size
from memdesk.core.consolidate.session_cache import SessionMemoryCache, SessionSummary
from memdesk.core.consolidate.settings import ConsolidationSettings, consolidation_settings
from memdesk.core.consolidate.state import load_state, save_state
from memdesk.core.entry import Entry, now, text_hash

log = logging.getLogger("memdesk.consolidate")

ACTIONS: tuple[str, ...] = ("add", "merge", "supersede", "expire", "delete")
# Order of application inside the batch: links and merges before removals.
_ORDER = {"add": 0, "supersede": 1, "merge": 2, "expire": 3, "delete": 4}


class ConsolidationError(Exception):
    """Applying a plan failed; nothing was written. `warning` is set after repeated failures."""

    def __init__(self, message: str, failures: int, warning: str = "") -> None:
        self.failures = failures
        self.warning = warning
        super().__init__(message)


class PlanStale(Exception):
    """An entry the plan is about changed or vanished since the plan was made."""


@dataclass
class Proposal:
    """One reviewable change.

    entry_ids: add -> [new id]; merge -> [kept, folded...]; supersede -> [older, newer];
    expire / delete -> [id].
    """

    action: str
    entry_ids: list[str]
    reason: str
    evidence: list[str] = field(default_factory=list)
    safe: bool = False
    phase: str = ""
    score: float | None = None
    versions: dict[str, int] = field(default_factory=dict)  # as planned (stale check)
    entry: Entry | None = None  # the new entry of an `add`
    id: str = ""

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown action {self.action!r}; allowed: {', '.join(ACTIONS)}")
        if not self.id:
            # Stable across runs on the same store, so `--dry-run` then `--apply --only ID`
            # (or a TUI selection) names the same proposal.
            key = self.action + "|" + "|".join(self.entry_ids)
            if self.entry is not None:  # a new entry's id is fresh each run; its text is not
                key = self.action + "|" + self.entry.text_hash
            self.id = "p-" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:8]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "action": self.action,
            "entry_ids": list(self.entry_ids),
            "reason": self.reason,
            "evidence": list(self.evidence),
            "safe": self.safe,
            "phase": self.phase,
        }
        if self.score is not None:
            out["score"] = round(self.score, 4)
        if self.entry is not None:
            out["entry"] = self.entry.to_json()
        return out


@dataclass
class Plan:
    proposals: list[Proposal] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. "heuristic: no extractor configured"
    orientation: dict[str, Any] = field(default_factory=dict)
    gathered: dict[str, int] = field(default_factory=dict)  # category -> count
    trigger: dict[str, Any] = field(default_factory=dict)
    sessions: list[SessionSummary] = field(default_factory=list)  # for the session cache
    session_ids: list[str] = field(default_factory=list)  # sessions this run covers
    plan_ms: float = 0.0
    phase_ms: dict[str, float] = field(default_factory=dict)
    created: str = field(default_factory=lambda: now().isoformat())

    def by_id(self, proposal_id: str) -> Proposal:
        for proposal in self.proposals:
            if proposal.id == proposal_id:
                return proposal
        raise KeyError(proposal_id)

    def select(self, ids: Iterable[str] | None) -> list[Proposal]:
        """Proposals with these ids (or unique id prefixes); None means all of them."""
        if ids is None:
            return list(self.proposals)
        chosen: list[Proposal] = []
        for wanted in ids:
            matches = [p for p in self.proposals if p.id == wanted or p.id.startswith(wanted)]
            if len(matches) != 1:
                what = "no proposal" if not matches else "more than one proposal"
                raise KeyError(f"{what} with id {wanted!r}")
            if matches[0] not in chosen:
                chosen.append(matches[0])
        return chosen

    @property
    def safe(self) -> list[Proposal]:
        return [p for p in self.proposals if p.safe]

    def counts(self) -> dict[str, int]:
        out = {action: 0 for action in ACTIONS}
        for proposal in self.proposals:
            out[proposal.action] += 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "notes": self.notes,
            "trigger": self.trigger,
            "orientation": self.orientation,
            "gathered": self.gathered,
            "counts": self.counts(),
            "plan_ms": round(self.plan_ms, 2),
            "phase_ms": {k: round(v, 2) for k, v in self.phase_ms.items()},
            "proposals": [p.to_json() for p in self.proposals],
        }


@dataclass
class ApplyResult:
    applied: list[Proposal]
    group: str  # journal group of the batch (what `undo` reverses); "" if nothing changed
    metrics: RunMetrics
    changed_ids: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "applied": [p.id for p in self.applied],
            "group": self.group,
            "changed_ids": self.changed_ids,
            "metrics": self.metrics.to_json(),
        }


def _check_current(store: Any, proposal: Proposal) -> None:
    for entry_id, version in proposal.versions.items():
        current = store.find(entry_id)
        if current is None:
            raise PlanStale(f"proposal {proposal.id}: entry {entry_id} no longer exists")
        if current.version != version:
            raise PlanStale(
                f"proposal {proposal.id}: entry {entry_id} changed since the plan was made "
                f"(version {version} -> {current.version}); make a new plan"
            )


def fold_into(store: Any, source_id: str, target_id: str, actor: str) -> None:
    """Like Store.merge_into, but a duplicate's text joins the facts only when it says
    something in other words: an exact copy (same normalised text) adds nothing."""
    source, target = store.get(source_id), store.get(target_id)
    facts = list(target.facts)
    seen = {text_hash(target.summary), *(text_hash(f) for f in facts)}
    for fact in [source.summary, *source.facts]:
        if text_hash(fact) not in seen:
            seen.add(text_hash(fact))
            facts.append(fact)
    tags = [*target.tags, *[t for t in source.tags if t not in target.tags]]
    related = [*target.related, *[r for r in source.related if r not in target.related]]
    related = [r for r in related if r not in (source_id, target_id)]
    store.edit(
        target_id, {"facts": facts, "tags": tags, "related": related}, actor=actor, op="merge"
    )
    store.remove([source_id], "merge", actor)  # journaled as a merge, like merge_into


def _apply_one(store: Any, proposal: Proposal, actor: str) -> None:
    _check_current(store, proposal)
    ids = proposal.entry_ids
    if proposal.action == "add":
        assert proposal.entry is not None, "an add proposal carries its entry"
        if proposal.entry.text_hash in store.known_hashes():
            raise PlanStale(f"proposal {proposal.id}: the store already knows this text")
        store.add_many([proposal.entry], actor=actor, label="consolidate")
    elif proposal.action == "merge":
        keep, *folded = ids
        for entry_id in folded:
            fold_into(store, entry_id, keep, actor)
    elif proposal.action == "supersede":
        older, newer = ids
        store.supersede(older, newer, actor=actor)
    elif proposal.action == "expire":
        store.expire(ids, actor=actor)
    elif proposal.action == "delete":
        store.delete(ids, actor=actor)


def apply(
    store: Any,
    plan: Plan,
    accepted_ids: Iterable[str] | None = None,
    *,
    actor: str = "user",
    settings: ConsolidationSettings | None = None,
    failpoint: Any = None,
) -> ApplyResult:
    """Apply the accepted proposals (None = all) as one atomic, undoable batch.

    On any failure nothing is written, the consecutive-failure count in
    `.memdesk/consolidation.json` grows (a warning is logged and carried on the error
    from `failure_warn_after` on) and `ConsolidationError` is raised. On success the
    trigger state restarts (last run = now, sessions counted afresh) and the run's
    metrics are recorded. `failpoint(index, proposal)` is a test hook called before each
    proposal is applied.
    """
    settings = settings or consolidation_settings(store.settings)
    chosen = sorted(plan.select(accepted_ids), key=lambda p: (_ORDER[p.action], p.id))
    state = load_state(store.meta_dir)
    before_entries = {e.id: e for e in store.entries()}
    before_size, before_count = memory_size(before_entries.values())
    groups: list[str] = []
    changed: list[str] = []

    def listen(change: Any) -> None:
        # Only our batch: a commit also re-renders MEMORY.md, which may ingest lines
        # agents appended there (a separate group by another actor).
        if change.op == "consolidate" and change.actor == actor:
            groups.append(change.group)
            changed.extend(change.ids)

    unsubscribe = store.subscribe(listen)
    started = time.perf_counter()
    try:
        with store.batch(actor, "consolidate"):
            for index, proposal in enumerate(chosen):
                if failpoint is not None:
                    failpoint(index, proposal)
                _apply_one(store, proposal, actor)
    except Exception as exc:
        state.consecutive_failures += 1
        state.last_error = f"{type(exc).__name__}: {exc}"
        warning = ""
        if state.consecutive_failures >= settings.failure_warn_after:
            warning = (
                f"consolidation failed {state.consecutive_failures} times in a row; "
                "check the store (memdesk doctor / the journal) before trying again"
            )
            log.warning(warning)
        save_state(store.meta_dir, state)
        raise ConsolidationError(
            f"consolidation not applied (nothing was changed): {exc}",
            state.consecutive_failures,
            warning,
        ) from exc
    finally:
        unsubscribe()
    apply_ms = (time.perf_counter() - started) * 1000
    # Size after = before, with the entries this batch touched replaced by their new state
    # (entries added meanwhile by others, e.g. MEMORY.md ingestion, are not ours to count).
    touched = set(changed)
    after_entries = [e for i, e in before_entries.items() if i not in touched]
    after_entries += [e for i in touched if (e := store.find(i)) is not None]
    after_size, after_count = memory_size(after_entries)
    counts = {action: 0 for action in ACTIONS}
    for proposal in chosen:
        counts[proposal.action] += 1 if proposal.action != "merge" else len(proposal.entry_ids) - 1
    metrics = RunMetrics(
        time=now().isoformat(),
        latency_ms=plan.plan_ms + apply_ms,
        plan_ms=plan.plan_ms,
        apply_ms=apply_ms,
        before_size=before_size,
        after_size=after_size,
        before_entries=before_count,
        after_entries=after_count,
        proposals=len(plan.proposals),
        accepted=len(chosen),
        added=counts["add"],
        merged=counts["merge"],
        superseded=counts["supersede"],
        expired=counts["expire"],
        deleted=counts["delete"],
    )
    state.last_run = metrics.time
    state.sessions_seen = list(plan.session_ids)  # what this run covered
    state.consecutive_failures = 0
    state.last_error = ""
    state.runs = [*state.runs, metrics.to_json()][-settings.metrics_history :]
    taken = {p.id for p in chosen}
    state.deferred = [
        p.entry.to_json()
        for p in plan.proposals
        if p.action == "add" and p.entry is not None and p.id not in taken
    ]
    save_state(store.meta_dir, state)
    if plan.sessions:
        SessionMemoryCache(store.meta_dir, settings.max_sessions).record_many(plan.sessions)
    return ApplyResult(chosen, groups[-1] if groups else "", metrics, list(dict.fromkeys(changed)))


def undo_apply(store: Any, result: ApplyResult, *, actor: str = "user") -> None:
    """Reverse an applied plan (one journal group), if it is still the latest change."""
    from memdesk.core.store import StoreError

    if not result.group:
        raise StoreError("nothing to undo: the plan changed nothing")
    records = [r for r in store.journal.records() if r.group == result.group and r.entry_id]
    actors = frozenset({records[0].actor}) if records else None
    applied, _ = store.undo_state(actors)
    if not applied or applied[-1][0] != result.group:
        raise StoreError("cannot undo the consolidation: later changes were made on top of it")
    store.undo(actors=actors, actor=actor)
