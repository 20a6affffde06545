"""Pilot tests: press keys in the review queue, then check the files on disk."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from memdesk.core.store import Store
from memdesk.tui.screens.dialogs import EditScreen, PickEntryScreen
from memdesk.tui.screens.queue import QueueScreen
from tui_helpers import SIZE, make_app, ready, wait_for

pytestmark = pytest.mark.anyio


def entry_file(root: Path, entry_id: str) -> dict:
    return tomllib.loads((root / ".memdesk" / "entries" / f"{entry_id}.toml").read_text("utf-8"))


def memory_md(root: Path) -> str:
    return (root / "MEMORY.md").read_text("utf-8")


def ids(queue: QueueScreen) -> set[str]:
    return {e.id for e in queue.rows}


def journal_ops(root: Path) -> list[str]:
    import json

    lines = (root / ".memdesk" / "journal.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line)["op"] for line in lines if line.strip()]


async def test_approve_writes_toml_journal_and_memory_md(store: Store) -> None:
    root = store.root
    first = store.get("cand-001")
    assert first.summary not in memory_md(root)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        assert queue.current_entry().id == "cand-001"  # oldest first
        await pilot.press("a")
        assert "cand-001" not in ids(queue)  # gone from the list at once
        await wait_for(pilot, lambda: entry_file(root, "cand-001")["status"] == "confirmed")
        await wait_for(pilot, lambda: app.counts.get("candidates") == len(queue.rows))
        on_disk = [e for e in Store.open(root).entries() if e.status == "candidate"]
        assert app.counts["candidates"] == len(on_disk) == len(queue.rows)
    assert entry_file(root, "cand-001")["status"] == "confirmed"
    assert f"- {first.summary}" in memory_md(root)
    assert "approve" in journal_ops(root)


async def test_multi_select_reject_then_undo_and_redo(store: Store) -> None:
    root = store.root
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        queue = app.screen
        await pilot.press("space", "space")  # select the first two (cursor moves down)
        assert queue.selected == {"cand-001", "cand-002"}
        await pilot.press("r")
        assert not {"cand-001", "cand-002"} & ids(queue)
        await wait_for(pilot, lambda: not (root / ".memdesk/entries/cand-001.toml").exists())
        assert not (root / ".memdesk/entries/cand-002.toml").exists()
        await pilot.press("u")
        await wait_for(pilot, lambda: {"cand-001", "cand-002"} <= ids(queue))
        assert entry_file(root, "cand-001")["status"] == "candidate"
        assert entry_file(root, "cand-002")["status"] == "candidate"
        await pilot.press("ctrl+y")
        await wait_for(pilot, lambda: not {"cand-001", "cand-002"} & ids(queue))
        await wait_for(pilot, lambda: not (root / ".memdesk/entries/cand-002.toml").exists())
    assert journal_ops(root)[-2:] == ["redo", "redo"]


async def test_expire_and_undo_with_ctrl_z(store: Store) -> None:
    root = store.root
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        queue = app.screen
        await pilot.press("down", "x")
        await wait_for(pilot, lambda: entry_file(root, "cand-002")["status"] == "expired")
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: "cand-002" in [e.id for e in queue.rows])
    assert entry_file(root, "cand-002")["status"] == "candidate"


async def test_supersede_picks_the_replaced_entry_by_similarity(store: Store) -> None:
    # cand-002 "switch the web UI to npm workspaces and drop pnpm" replaces lan-010.
    root = store.root
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        queue = app.screen
        await pilot.press("down", "S")
        await wait_for(pilot, lambda: isinstance(app.screen, PickEntryScreen))
        picker = app.screen
        top = [e.id for e in picker.suggestions[:5]]
        assert "lan-010" in top, top
        await pilot.press(*"lan-010", "enter")
        await wait_for(pilot, lambda: app.screen is queue)
        await wait_for(pilot, lambda: entry_file(root, "cand-002")["status"] == "confirmed")
    old, new = entry_file(root, "lan-010"), entry_file(root, "cand-002")
    assert old["status"] == "superseded" and old["superseded_by"] == "cand-002"
    assert new["status"] == "confirmed" and new["supersedes"] == ["lan-010"]
    assert "drop pnpm" in memory_md(root)
    assert "The web UI uses pnpm, not npm" not in memory_md(root)


async def test_merge_into_existing_entry(store: Store) -> None:
    # cand-003 repeats lan-003 (nextest); merging folds it into lan-003's facts.
    root = store.root
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        queue = app.screen
        await pilot.press("down", "down", "m")
        await wait_for(pilot, lambda: isinstance(app.screen, PickEntryScreen))
        picker = app.screen
        await pilot.press(*"lan-003")  # typing anywhere filters the suggestions
        options = picker.query_one("#pick-list")
        await wait_for(pilot, lambda: options.option_count == 1)
        assert options.get_option_at_index(0).id == "lan-003"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not (root / ".memdesk/entries/cand-003.toml").exists())
        assert "cand-003" not in ids(queue)
    assert any("nextest" in fact for fact in entry_file(root, "lan-003")["facts"])


async def test_edit_form_saves_fields(store: Store) -> None:
    root = store.root
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, EditScreen))
        form = app.screen
        form.query_one("#edit-tags").value = "lantern, e2e, playwright"
        form.query_one("#edit-valid-until").value = "2027-01-31"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: entry_file(root, "cand-001")["version"] == 2)
    data = entry_file(root, "cand-001")
    assert data["tags"] == ["lantern", "e2e", "playwright"]
    assert str(data["valid_until"]) == "2027-01-31"
    assert data["version"] == 2


async def test_edit_conflicting_with_a_change_on_disk_becomes_a_conflict(store: Store) -> None:
    root = store.root
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, EditScreen))
        # Meanwhile another writer (an agent, another memdesk) changes the summary.
        other = Store.open(root)
        other.edit("cand-001", {"summary": "e2e 测试前先 build web（agent 改写）"}, actor="agent")
        app.screen.query_one("#edit-summary").value = "Run `pnpm --dir web build` before e2e tests"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: (root / ".memdesk/conflicts/cand-001.json").exists())
        await wait_for(pilot, lambda: app.counts["conflicts"] == 2)
    # Nothing was overwritten: the file keeps the other writer's text.
    assert entry_file(root, "cand-001")["summary"] == "e2e 测试前先 build web（agent 改写）"
    conflicts = Store.open(root).open_conflicts()
    saved = next(c for c in conflicts if c.entry_id == "cand-001")
    assert "summary" in saved.field_names


def test_queue_flags_name_the_other_entry(store: Store) -> None:
    from memdesk.core.pairs import DuplicatePair
    from memdesk.tui.screens.queue import flags_by_id
    from memdesk.tui.services import Services

    services = Services(store, load_model=False)
    services.duplicates = [
        DuplicatePair("lan-010", "cand-002", "contradiction", 0.6, "change wording"),
        DuplicatePair("lan-003", "cand-003", "near", 0.96, "similarity 0.96"),
    ]
    candidates = services.candidates()
    flags = flags_by_id(services, candidates)
    assert flags["cand-002"] == ["contradicts lan-010"]
    assert flags["cand-003"] == ["dup of lan-003"]
    assert flags["cand-008"] == ["suspicious"]  # from the guard's entry flags
    assert flags["cand-001"] == []
