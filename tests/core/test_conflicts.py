"""Listing and resolving every kind of open conflict (core/conflicts.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from memdesk.core.conflicts import (
    ConflictError,
    dismiss,
    keep_one,
    list_conflicts,
    merge_edit_text,
    merge_pair,
    parse_edit_text,
    resolve_fields,
    take_side,
)
from memdesk.core.demo import copy_demo_project
from memdesk.core.entry import Entry
from memdesk.core.merge import MergeConflict
from memdesk.core.pairs import Dismissals, find_pairs, lexical_pairs
from memdesk.core.store import Store


@pytest.fixture
def demo(tmp_path: Path) -> Store:
    return Store.open(copy_demo_project(tmp_path / "demo"))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.init(tmp_path)


def test_demo_lists_marker_conflict_contradiction_and_near_duplicate(demo: Store) -> None:
    items = list_conflicts(demo)
    by_kind = {i.kind: i for i in items}
    assert [i.kind for i in items] == ["conflict-markers", "contradiction", "near-duplicate"]
    marker = by_kind["conflict-markers"]
    assert marker.ids == ["lan-033"]
    assert marker.conflict is not None
    assert set(marker.conflict.field_names) == {"confidence", "summary"}
    assert set(by_kind["contradiction"].ids) == {"lan-010", "cand-002"}
    assert set(by_kind["near-duplicate"].ids) == {"lan-003", "cand-003"}


def test_take_ours_writes_valid_toml_and_clears_the_conflict(demo: Store) -> None:
    marker = list_conflicts(demo)[0]
    ours = marker.conflict.ours["summary"]
    take_side(demo, marker, "ours")
    path = demo.entries_dir / "lan-033.toml"
    data = tomllib.loads(path.read_text("utf-8"))
    assert data["summary"] == ours
    assert data["confidence"] == "medium"
    assert all(i.kind != "conflict-markers" for i in list_conflicts(demo))
    assert demo.get("lan-033").summary == ours


def _concurrent(store: Store, ours: dict, theirs: dict) -> str:
    e = store.add(Entry("Deploys run from the main branch", kind="workflow"))
    store.edit(e.id, theirs)
    with pytest.raises(MergeConflict) as info:
        store.edit(e.id, ours, base_version=1)
    store.save_conflict(info.value.conflict)
    return e.id


def test_take_both_joins_text_and_keeps_theirs_for_single_choice_fields(store: Store) -> None:
    entry_id = _concurrent(
        store,
        {"summary": "部署从 prod 分支发起", "confidence": "high"},
        {"summary": "Deploys run from the release branch", "confidence": "low"},
    )
    entry = take_side(store, list_conflicts(store)[0], "both")
    assert entry.id == entry_id
    assert "部署从 prod 分支发起" in entry.summary and "release branch" in entry.summary
    assert entry.confidence == "low"


def test_edited_merge_round_trips_through_toml(demo: Store) -> None:
    marker = list_conflicts(demo)[0]
    text = merge_edit_text(marker.conflict)
    assert "summary" in text and "confidence" in text
    edited = text.replace(marker.conflict.theirs["summary"], "只有 --drafts 才构建草稿 (edited)")
    choices = parse_edit_text(marker.conflict, edited)
    entry = resolve_fields(demo, marker, choices)
    assert entry.summary.startswith("只有 --drafts 才构建草稿 (edited)")
    on_disk = tomllib.loads((demo.entries_dir / "lan-033.toml").read_text("utf-8"))
    assert on_disk["summary"] == entry.summary


def test_parse_edit_text_rejects_bad_toml_and_unknown_fields(demo: Store) -> None:
    c = list_conflicts(demo)[0].conflict
    with pytest.raises(ConflictError, match="not valid TOML"):
        parse_edit_text(c, 'summary = "unterminated')
    with pytest.raises(ConflictError, match="unknown field"):
        parse_edit_text(c, 'kind = "event"')


def test_concurrent_edit_is_listed_and_resolved(store: Store) -> None:
    entry_id = _concurrent(
        store,
        {"summary": "Deploys run from the prod branch"},
        {"summary": "Deploys run from the release branch"},
    )
    items = list_conflicts(store)
    assert [i.kind for i in items] == ["concurrent-edit"]
    take_side(store, items[0], "ours")
    assert store.get(entry_id).summary == "Deploys run from the prod branch"
    assert list_conflicts(store) == []


def test_keep_one_supersedes_the_other(demo: Store) -> None:
    pair = next(i for i in list_conflicts(demo) if i.kind == "contradiction")
    kept = keep_one(demo, pair, "cand-002")
    assert kept.id == "cand-002" and kept.status == "confirmed"
    old = demo.get("lan-010")
    assert old.status == "superseded" and old.superseded_by == "cand-002"
    assert all(i.key != pair.key for i in list_conflicts(demo))


def test_merge_pair_folds_one_into_the_other(demo: Store) -> None:
    pair = next(i for i in list_conflicts(demo) if i.kind == "near-duplicate")
    merged = merge_pair(demo, pair, "lan-003")
    assert demo.find("cand-003") is None
    assert any("nextest" in f for f in merged.facts)
    assert all(i.key != pair.key for i in list_conflicts(demo))


def test_dismissed_pair_stays_away_until_a_text_changes(demo: Store) -> None:
    pair = next(i for i in list_conflicts(demo) if i.kind == "near-duplicate")
    dismiss(demo, pair)
    assert (demo.meta_dir / "dismissed.json").is_file()
    assert all(i.key != pair.key for i in list_conflicts(Store.open(demo.root)))
    demo.edit(
        "cand-003",
        {
            "summary": "Always run `cargo nextest run --workspace` before pushing; cargo test misses the snapshot tests."
        },
    )
    assert any(i.key == pair.key for i in list_conflicts(demo))


def test_dismissing_a_field_conflict_is_refused(demo: Store) -> None:
    with pytest.raises(ConflictError):
        dismiss(demo, list_conflicts(demo)[0])


def test_keep_one_with_a_foreign_id_is_refused(demo: Store) -> None:
    pair = next(i for i in list_conflicts(demo) if i.is_pair)
    with pytest.raises(ConflictError):
        keep_one(demo, pair, "usr-001")


def test_lexical_pairs_work_for_chinese(store: Store) -> None:
    a = store.add(Entry("前端用 pnpm 安装依赖，锁文件是 pnpm-lock.yaml", kind="decision"))
    b = store.add(Entry("前端用 PNPM 安装依赖，锁文件是  pnpm-lock.yaml", kind="decision"))
    c = store.add(Entry("前端改用 npm 安装依赖，锁文件是 package-lock.json", kind="decision"))
    d = store.add(Entry("周末在学日语", kind="profile", scope="user"))
    pairs = {frozenset((p.a, p.b)): p for p in find_pairs(store.entries())}
    assert pairs[frozenset((a.id, b.id))].type == "exact"
    assert pairs[frozenset((a.id, c.id))].type == "contradiction"
    assert not any(d.id in key for key in pairs)


def test_lexical_pairs_skip_linked_entries(store: Store) -> None:
    a = store.add(Entry("Run tests with cargo nextest run --workspace", kind="workflow"))
    b = store.add(Entry("Run tests with cargo nextest run --workspace please", kind="workflow"))
    assert lexical_pairs(store.entries())
    store.supersede(a.id, b.id)
    assert lexical_pairs([e for e in store.entries()]) == []


def test_dismissals_ignore_a_broken_file(store: Store) -> None:
    (store.meta_dir / "dismissed.json").write_text("{not json", "utf-8")
    assert Dismissals(store.meta_dir).load() == {}


def test_a_merged_away_candidate_does_not_come_back_from_memory_md(demo: Store) -> None:
    pair = next(i for i in list_conflicts(demo) if i.kind == "near-duplicate")
    merge_pair(demo, pair, "lan-003")
    demo.render_memory_md()
    assert not any(e.summary.startswith("Always run cargo nextest") for e in demo.entries())


def test_take_theirs_keeps_the_incoming_chinese_side(demo: Store) -> None:
    marker = list_conflicts(demo)[0]
    theirs = marker.conflict.theirs["summary"]
    take_side(demo, marker, "theirs")
    data = tomllib.loads((demo.entries_dir / "lan-033.toml").read_text("utf-8"))
    assert data["summary"] == theirs and data["confidence"] == "high"


def test_lexical_contradiction_needs_same_slot_and_a_cue_or_numbers(store: Store) -> None:
    from memdesk.core.pairs import lexical_contradiction

    port_a = Entry("The preview server listens on port 4317", kind="project")
    port_b = Entry("The preview server listens on port 8080", kind="project")
    assert "different numbers" in lexical_contradiction(port_a, port_b)
    other_kind = Entry("The preview server listens on port 8080", kind="workflow")
    assert lexical_contradiction(port_a, other_kind) == ""
    plain_a = Entry("Docs are built with mdbook and deployed by CI", kind="project")
    plain_b = Entry("Docs are built with mdbook and reviewed by Lin", kind="project")
    assert lexical_contradiction(plain_a, plain_b) == ""
