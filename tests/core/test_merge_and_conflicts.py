"""Optimistic versions: disjoint changes merge, overlapping ones become conflicts."""

from __future__ import annotations

import pytest
from memdesk.core.entry import Entry
from memdesk.core.merge import MergeConflict, merge_entry_dicts, resolve
from memdesk.core.store import Store


def test_disjoint_changes_merge_automatically(store: Store) -> None:
    entry = store.add(Entry(summary="use pnpm", tags=["web"]))
    # Someone else moved it to version 2 (scope and a tag) while we were editing v1.
    store.edit(entry.id, {"scope": "workspace", "tags": ["web", "ci"]}, actor="agent")
    merged = store.edit(
        entry.id, {"summary": "use pnpm 9", "tags": ["web", "frontend"]}, base_version=1
    )
    assert merged.version == 3
    assert merged.summary == "use pnpm 9"
    assert merged.scope == "workspace"
    assert merged.tags == ["web", "ci", "frontend"]


def test_overlapping_changes_raise_a_field_wise_conflict(store: Store) -> None:
    entry = store.add(Entry(summary="use pnpm"))
    store.edit(entry.id, {"summary": "use pnpm 8", "kind": "decision"}, actor="agent")
    with pytest.raises(MergeConflict) as err:
        store.edit(entry.id, {"summary": "use pnpm 9", "confidence": "high"}, base_version=1)
    conflict = err.value.conflict
    assert conflict.field_names == ["summary"]
    (field,) = conflict.fields
    assert (field.base, field.ours, field.theirs) == ("use pnpm", "use pnpm 9", "use pnpm 8")
    # nothing was overwritten on disk
    on_disk = store.get(entry.id)
    assert on_disk.summary == "use pnpm 8" and on_disk.version == 2
    # the clean part of the merge is offered with the conflict
    assert conflict.merged["confidence"] == "high" and conflict.merged["kind"] == "decision"


def test_saved_conflict_is_listed_and_resolution_clears_it(store: Store) -> None:
    entry = store.add(Entry(summary="use pnpm"))
    store.edit(entry.id, {"summary": "use pnpm 8"}, actor="agent")
    with pytest.raises(MergeConflict) as err:
        store.edit(entry.id, {"summary": "use pnpm 9"}, base_version=1)
    store.save_conflict(err.value.conflict)
    (listed,) = store.open_conflicts()
    assert listed.entry_id == entry.id and listed.kind == "concurrent-edit"
    resolved = store.resolve_conflict(listed, resolve(listed, {"summary": "both"}))
    assert resolved.summary == "use pnpm 8; use pnpm 9"
    assert store.open_conflicts() == []


def test_list_fields_merge_additions_and_removals() -> None:
    base = {"tags": ["a", "b", "c"]}
    ours = {"tags": ["a", "c", "d"]}  # removed b, added d
    theirs = {"tags": ["a", "b", "c", "e"]}  # added e
    result = merge_entry_dicts(base, ours, theirs)
    assert result.clean and result.merged["tags"] == ["a", "c", "e", "d"]


def test_same_change_on_both_sides_is_not_a_conflict() -> None:
    result = merge_entry_dicts({"summary": "a"}, {"summary": "b"}, {"summary": "b"})
    assert result.clean and result.merged["summary"] == "b"


def test_conflict_marker_file_is_offered_as_conflict_and_resolved(demo_dir) -> None:
    store = Store.open(demo_dir)
    assert [p.kind for p in store.problems] == ["conflict-markers"]
    (conflict,) = [c for c in store.open_conflicts() if c.kind == "conflict-markers"]
    assert conflict.entry_id == "lan-033"
    assert set(conflict.field_names) == {"summary", "confidence"}
    store.resolve_conflict(conflict, resolve(conflict, {"summary": "theirs", "confidence": "ours"}))
    fixed = store.get("lan-033")
    assert fixed.summary.startswith("草稿") and fixed.confidence == "medium"
    assert store.problems == []
    assert "<<<<<<<" not in (store.entries_dir / "lan-033.toml").read_text()
