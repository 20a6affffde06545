"""Triggers (time, sessions, explicit), the state file and the session cache."""

from __future__ import annotations

import datetime as dt
import json

from consolidate_helpers import put
from memdesk.core.consolidate import (
    ConsolidationState,
    SessionMemoryCache,
    SessionSummary,
    is_explicit_request,
    load_state,
    save_state,
    should_consolidate,
)
from memdesk.core.consolidate.settings import ConsolidationSettings
from memdesk.core.entry import now
from memdesk.core.store import Store

S = ConsolidationSettings()


def test_explicit_phrases_in_both_languages():
    assert is_explicit_request("Please CONSOLIDATE the memory", S)
    assert is_explicit_request("ok, save   progress now", S)
    assert is_explicit_request("帮我整理记忆", S)
    assert is_explicit_request("先保存进度吧", S)
    assert not is_explicit_request("what did we decide about pnpm?", S)
    custom = ConsolidationSettings(explicit_phrases=("收工",))
    assert is_explicit_request("今天收工", custom) and not is_explicit_request("整理记忆", custom)


def test_empty_store_is_not_due(tmp_path):
    store = Store.init(tmp_path)
    decision = should_consolidate(store, ConsolidationState(), S)
    assert not decision.due and decision.reasons == []


def test_never_consolidated_store_is_due(tmp_path):
    store = Store.init(tmp_path)
    put(store, "a", "The docs use mkdocs")
    assert should_consolidate(store, ConsolidationState(), S).reasons == [
        "time: never consolidated"
    ]


def test_time_gate(tmp_path):
    store = Store.init(tmp_path)
    put(store, "a", "The docs use mkdocs", age=10)
    state = ConsolidationState(last_run=(now() - dt.timedelta(hours=3)).isoformat())
    assert not should_consolidate(store, state, S).due
    state.last_run = (now() - dt.timedelta(hours=25)).isoformat()
    decision = should_consolidate(store, state, S)
    assert decision.due and decision.reasons[0].startswith("time: 25.0 h")
    assert (
        should_consolidate(store, state, ConsolidationSettings(time_threshold_hours=48)).due
        is False
    )


def test_session_gate_counts_distinct_sessions_from_entries_flushes_and_cache(tmp_path):
    store = Store.init(tmp_path)
    last = now() - dt.timedelta(hours=2)
    state = ConsolidationState(last_run=last.isoformat())
    put(store, "old", "Old fact from before", age=3, session="s-old")
    put(store, "a", "Fact one", age=0.01, session="s1")
    put(store, "b", "Fact two", age=0.01, session="s1")
    put(store, "c", "Fact three", age=0.01, session="s2")
    store = Store.open(tmp_path)
    store.record_event("memory_flushed", {"session_id": "s3", "count": 0, "facts": []})
    cache = SessionMemoryCache(store.meta_dir)
    cache.record_session_summary(SessionSummary("wf", "s4", timestamp=now().timestamp()))
    decision = should_consolidate(store, state, S)
    assert sorted(decision.sessions_since) == ["s1", "s2", "s3", "s4"]
    assert not decision.due
    put(store, "d", "Fact four", age=0.01, session="s5")
    decision = should_consolidate(Store.open(tmp_path), state, S)
    assert decision.due and decision.reasons == ["sessions: 5 since the last run (threshold 5)"]


def test_explicit_trigger(tmp_path):
    store = Store.init(tmp_path)
    state = ConsolidationState(last_run=now().isoformat())
    assert should_consolidate(store, state, S, explicit=True).reasons == ["explicit: requested"]
    assert should_consolidate(store, state, S, message="请整理记忆").due


def test_state_round_trip_and_damaged_file(tmp_path):
    state = ConsolidationState(last_run="2026-11-01T00:00:00+00:00", consecutive_failures=2)
    state.runs.append({"latency_ms": 5.0})
    save_state(tmp_path, state)
    assert load_state(tmp_path) == state
    (tmp_path / "consolidation.json").write_text("{not json")
    assert load_state(tmp_path) == ConsolidationState()
    (tmp_path / "consolidation.json").write_text(json.dumps({"consecutive_failures": "x"}))
    assert load_state(tmp_path).consecutive_failures == 0


def test_session_cache_keeps_max_sessions_per_workflow(tmp_path):
    cache = SessionMemoryCache(tmp_path, max_sessions=3)
    for i in range(5):
        cache.record_session_summary(
            SessionSummary("a", f"a{i}", timestamp=100 + i, user_input=f"task {i}")
        )
    cache.record_session_summary(SessionSummary("b", "b0", timestamp=50))
    assert [s.session_id for s in cache.get_recent_sessions("a", 10)] == ["a2", "a3", "a4"]
    assert [s.session_id for s in cache.get_recent_sessions("a", 2)] == ["a3", "a4"]
    assert [s.session_id for s in cache.get_recent_sessions("b")] == ["b0"]
    cache.record_session_summary(SessionSummary("a", "a3", timestamp=200, user_input="again"))
    recent = cache.get_recent_sessions("a", 10)
    assert [s.session_id for s in recent] == ["a2", "a4", "a3"] and recent[-1].user_input == "again"
    with (tmp_path / "session_cache.jsonl").open("a") as handle:
        handle.write("{torn line\n")
    assert len(cache.all_sessions()) == 4


def test_orient_uses_the_session_cache(tmp_path):
    from memdesk.core.consolidate import build_plan

    store = Store.init(tmp_path)
    put(store, "a", "The docs use mkdocs", status="candidate")
    cache = SessionMemoryCache(store.meta_dir)
    cache.record_session_summary(
        SessionSummary(
            tmp_path.name, "s1", now().timestamp(), "修复 sitemap 斜杠", topics=["sitemap"]
        )
    )
    plan = build_plan(Store.open(tmp_path))
    assert plan.orientation["sessions"][0]["session_id"] == "s1"
    assert "sitemap" in plan.orientation["topics"]
