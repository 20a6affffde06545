"""The plan: every planted case on a small store, with its reason and evidence."""

from __future__ import annotations

import datetime as dt

import pytest
from consolidate_helpers import days_ago, put, small_store
from memdesk.core.consolidate import build_plan
from memdesk.core.consolidate.settings import ConsolidationSettings
from memdesk.core.consolidate.synthetic import CLASSES, false_positives, generate_store, recall


def by_action(plan) -> dict[str, list]:
    out: dict[str, list] = {}
    for p in plan.proposals:
        out.setdefault(p.action, []).append(p)
    return out


def test_small_store_plan_finds_each_case(tmp_path):
    plan = build_plan(small_store(tmp_path))
    actions = by_action(plan)
    merge = actions["merge"]
    assert [p.entry_ids for p in merge] == [["dup-a", "dup-b"]]
    assert "exact duplicate" in merge[0].reason
    assert [p.entry_ids for p in actions["supersede"]] == [["old-port", "new-port"]]
    assert "newer new-port supersedes older old-port" in actions["supersede"][0].reason
    assert any("9090" in line for line in actions["supersede"][0].evidence)
    expire = {p.entry_ids[0]: p for p in actions["expire"]}
    assert set(expire) == {"past", "unused"}
    assert expire["past"].safe and "has passed" in expire["past"].reason
    assert not expire["unused"].safe and "retention" in expire["unused"].reason
    delete = {p.entry_ids[0]: p.reason for p in actions["delete"]}
    assert set(delete) == {"shaky", "sess"}
    assert "low confidence" in delete["shaky"] and "session summary" in delete["sess"]
    touched = {i for p in plan.proposals for i in p.entry_ids}
    assert not touched & {"ok-1", "ok-2"}
    assert "heuristic: no extractor configured" in plan.notes


def test_thresholds_come_from_settings(tmp_path):
    store = small_store(tmp_path)
    relaxed = ConsolidationSettings(
        retention_days=365, low_confidence=0.1, session_max_age_days=365
    )
    plan = build_plan(store, settings=relaxed)
    touched = {i for p in plan.proposals for i in p.entry_ids}
    assert not touched & {"unused", "shaky", "sess"}
    assert "past" in touched


def test_entry_accessed_recently_is_not_unused(tmp_path):
    from memdesk.core.store import Store

    store = Store.init(tmp_path)
    put(store, "read", "Deploys go through the blue/green script", age=300, last_access=days_ago(3))
    put(store, "never", "The staging database is restored nightly", age=300)
    plan = build_plan(Store.open(tmp_path))
    assert [p.entry_ids for p in plan.proposals] == [["never"]]
    assert "never used; last updated 300 days ago" in plan.proposals[0].reason


def test_mixed_language_duplicates_and_contradictions(tmp_path):
    from memdesk.core.store import Store

    store = Store.init(tmp_path)
    put(store, "zh-a", "lantern 的预览服务端口是 4317", age=9)
    put(store, "zh-b", "lantern 的预览服务端口改为 4400", age=1)
    put(store, "zh-c", "构建前先运行 pnpm --dir web install", kind="workflow", age=8)
    put(store, "zh-d", "构建前先运行 pnpm --dir web install。", kind="workflow", age=1)
    plan = build_plan(Store.open(tmp_path))
    pairs = {(p.action, tuple(p.entry_ids)) for p in plan.proposals}
    assert ("supersede", ("zh-a", "zh-b")) in pairs
    assert ("merge", ("zh-c", "zh-d")) in pairs


def test_linked_entries_are_not_proposed_again(tmp_path):
    from memdesk.core.store import Store

    store = Store.init(tmp_path)
    put(
        store,
        "a",
        "The api server listens on port 8080",
        age=10,
        superseded_by="b",
        status="superseded",
    )
    put(store, "b", "The api server now listens on port 9090", supersedes=["a"])
    plan = build_plan(Store.open(tmp_path))
    assert [p for p in plan.proposals if p.action in ("supersede", "merge")] == []


def test_dry_run_writes_nothing(tmp_path):
    store = small_store(tmp_path)
    before = {e.id: e.to_json() for e in store.entries()}
    journal = store.journal.path.read_bytes()
    build_plan(store)
    assert {e.id: e.to_json() for e in store.entries()} == before
    assert store.journal.path.read_bytes() == journal
    assert not (store.meta_dir / "consolidation.json").exists()


def test_proposal_ids_are_stable_between_runs(tmp_path):
    store = small_store(tmp_path)
    assert [p.id for p in build_plan(store).proposals] == [
        p.id for p in build_plan(store).proposals
    ]


@pytest.mark.parametrize("seed", [3, 11])
def test_generated_store_recall_per_class(tmp_path, seed):
    store, planted = generate_store(tmp_path, total=600, per_class=12, seed=seed)
    plan = build_plan(store)
    found = recall([p.to_json() for p in plan.proposals], planted)
    assert set(found) == set(CLASSES)
    for cls, (hit, total) in found.items():
        assert total == 12
        assert hit == total, f"{cls}: {hit}/{total}"
    assert false_positives([p.to_json() for p in plan.proposals], planted) == 0


def test_orient_reports_topics_and_scope(tmp_path):
    from memdesk.core.store import Store

    store = Store.init(tmp_path)
    for i in range(4):
        put(
            store,
            f"c{i}",
            f"lantern sitemap fix number {i} for the web build",
            status="candidate",
            tags=["lantern", "sitemap"],
        )
    plan = build_plan(Store.open(tmp_path))
    assert plan.orientation["topics"][:2] == ["lantern", "sitemap"]
    assert plan.orientation["scope"] == "deep"
    assert plan.orientation["recent_entries"] == 4
    assert plan.gathered == {"facts": 4}


def test_plan_at_fixed_time(tmp_path):
    store = small_store(tmp_path)
    later = build_plan(store, at=dt.datetime.now(dt.UTC) + dt.timedelta(days=400))
    deleted = {p.entry_ids[0] for p in later.proposals if p.action == "delete"}
    assert {"shaky", "sess"} <= deleted
