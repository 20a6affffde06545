"""Applying a plan: one atomic batch, partial acceptance, rollback on failure, undo."""

from __future__ import annotations

import logging

import pytest
from consolidate_helpers import small_store
from memdesk.core.consolidate import (
    ConsolidationError,
    apply,
    build_plan,
    load_state,
    metrics_summary,
    undo_apply,
)
from memdesk.core.consolidate.settings import ConsolidationSettings
from memdesk.core.store import Store, StoreError


def snapshot(store: Store) -> dict[str, dict]:
    return {e.id: {k: v for k, v in e.to_json().items() if k != "updated"} for e in store.entries()}


def test_apply_all_then_undo_restores_everything(tmp_path):
    store = small_store(tmp_path)
    before = snapshot(store)
    plan = build_plan(store)
    result = apply(store, plan)
    after = Store.open(tmp_path)
    assert after.get("dup-a").facts == []  # same text: nothing new to keep
    assert after.find("dup-b") is None
    assert after.get("old-port").status == "superseded"
    assert after.get("old-port").superseded_by == "new-port"
    assert after.get("new-port").status == "confirmed"
    assert after.get("past").status == "expired"
    assert after.get("unused").status == "expired"
    assert after.find("shaky") is None and after.find("sess") is None
    groups = {r.group for r in after.journal.records() if r.entry_id}
    assert groups == {result.group}  # one journaled batch
    undo_apply(after, result)
    assert {k: {**v, "version": 0} for k, v in snapshot(Store.open(tmp_path)).items()} == {
        k: {**v, "version": 0} for k, v in before.items()
    }


def test_store_undo_reverses_the_whole_plan(tmp_path):
    store = small_store(tmp_path)
    before = set(snapshot(store))
    apply(store, build_plan(store), actor="cli")
    store.undo()
    assert set(snapshot(Store.open(tmp_path))) == before


def test_accept_some_reject_others(tmp_path):
    store = small_store(tmp_path)
    plan = build_plan(store)
    merge = next(p for p in plan.proposals if p.action == "merge")
    expiry = next(p for p in plan.proposals if p.action == "expire" and p.safe)
    result = apply(store, plan, [merge.id, expiry.id[:6]])
    assert [p.id for p in result.applied] == sorted(
        [merge.id, expiry.id], key=lambda i: i != merge.id
    )
    store = Store.open(tmp_path)
    assert store.find("dup-b") is None and store.get("past").status == "expired"
    assert store.get("old-port").status == "confirmed"  # the supersede was not accepted
    assert store.find("shaky") is not None


def test_unknown_proposal_id_is_refused(tmp_path):
    store = small_store(tmp_path)
    with pytest.raises(KeyError, match="no proposal with id 'p-nope'"):
        apply(store, build_plan(store), ["p-nope"])


def test_failure_mid_apply_rolls_everything_back_and_counts(tmp_path, caplog):
    store = small_store(tmp_path)
    before = snapshot(store)
    journal = store.journal.path.read_bytes()
    plan = build_plan(store)

    def explode(index, proposal):
        if index == 3:
            raise OSError("disk full")

    settings = ConsolidationSettings(failure_warn_after=3)
    for attempt in (1, 2):
        with pytest.raises(ConsolidationError) as info:
            apply(store, plan, settings=settings, failpoint=explode)
        assert info.value.failures == attempt and info.value.warning == ""
    with (
        caplog.at_level(logging.WARNING, logger="memdesk.consolidate"),
        pytest.raises(ConsolidationError) as info,
    ):
        apply(store, plan, settings=settings, failpoint=explode)
    assert info.value.failures == 3
    assert "failed 3 times in a row" in info.value.warning
    assert "failed 3 times in a row" in caplog.text
    assert "nothing was changed" in str(info.value)
    assert snapshot(Store.open(tmp_path)) == before
    assert store.journal.path.read_bytes() == journal
    state = load_state(store.meta_dir)
    assert state.consecutive_failures == 3 and "disk full" in state.last_error
    assert state.last_run == ""
    apply(store, plan)  # a success resets the count
    assert load_state(store.meta_dir).consecutive_failures == 0


def test_stale_plan_fails_whole(tmp_path):
    store = small_store(tmp_path)
    plan = build_plan(store)
    store.edit("unused", {"summary": "The legacy importer moved to tools/old"})
    with pytest.raises(ConsolidationError, match="changed since the plan was made"):
        apply(store, plan)
    assert Store.open(tmp_path).find("dup-b") is not None


def test_metrics_recorded_per_run(tmp_path):
    store = small_store(tmp_path)
    result = apply(store, build_plan(store))
    m = result.metrics
    assert m.merged == 1 and m.superseded == 1 and m.expired == 2 and m.deleted == 2
    assert m.after_size < m.before_size and 0 < m.compression_ratio < 1
    assert m.before_entries == 10 and m.after_entries == 10 - 1 - 1 - 2 - 2
    summary = metrics_summary(store)
    assert summary["runs"] == 1
    assert summary["totals"]["merged"] == 1
    assert summary["latency_ms"]["p95"] == summary["latency_ms"]["last"]
    assert summary["compression_ratio"]["last"] == round(m.compression_ratio, 4)
    state = load_state(store.meta_dir)
    assert state.last_run and state.sessions_seen == []  # the small store names no sessions


def test_undo_refused_when_later_changes_exist(tmp_path):
    store = small_store(tmp_path)
    result = apply(store, build_plan(store))
    store.edit("ok-1", {"summary": "The docs site is built with mkdocs"}, actor="user")
    with pytest.raises(StoreError, match="later changes"):
        undo_apply(store, result)


def test_auto_apply_safe_selects_only_date_expiry(tmp_path):
    store = small_store(tmp_path)
    plan = build_plan(store)
    assert [p.entry_ids for p in plan.safe] == [["past"]]
    apply(store, plan, [p.id for p in plan.safe])
    store = Store.open(tmp_path)
    assert store.get("past").status == "expired" and store.get("unused").status == "confirmed"
