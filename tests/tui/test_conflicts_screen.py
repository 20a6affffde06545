"""Pilot tests of the conflict screen: keys in, files on disk checked."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from memdesk.tui.screens.conflicts import ConflictsScreen
from screen_app import ScreenApp, demo_store
from textual.widgets import OptionList, TextArea

pytestmark = pytest.mark.anyio


async def _settle(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _screen(app) -> ConflictsScreen:
    screen = app.screen
    assert isinstance(screen, ConflictsScreen)
    return screen


async def test_take_ours_resolves_the_demo_marker_conflict(tmp_path: Path) -> None:
    store = demo_store(tmp_path)
    app = ScreenApp(store, ConflictsScreen)
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        screen = _screen(app)
        assert [i.kind for i in screen.items] == [
            "conflict-markers",
            "contradiction",
            "near-duplicate",
        ]
        ours = screen.items[0].conflict.ours["summary"]
        await pilot.press("o")
        await _settle(pilot)
        data = tomllib.loads((store.entries_dir / "lan-033.toml").read_text("utf-8"))
        assert data["summary"] == ours and data["confidence"] == "medium"
        assert "<<<<<<<" not in (store.entries_dir / "lan-033.toml").read_text("utf-8")
        assert [i.kind for i in screen.items] == ["contradiction", "near-duplicate"]
        assert screen.query_one("#conflict-list", OptionList).option_count == 2


async def test_edited_merge_is_saved_with_ctrl_s(tmp_path: Path) -> None:
    store = demo_store(tmp_path)
    app = ScreenApp(store, ConflictsScreen)
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        await pilot.press("e")
        editor = app.screen.query_one("#merge-editor", TextArea)
        assert editor.display and "summary" in editor.text
        editor.load_text(
            'confidence = "high"\nsummary = "只有 lantern build --drafts 才会构建草稿"\n'
        )
        await pilot.press("ctrl+s")
        await _settle(pilot)
        entry = store.get("lan-033")
        assert entry.summary == "只有 lantern build --drafts 才会构建草稿"
        assert entry.confidence == "high"
        assert all(i.kind != "conflict-markers" for i in _screen(app).items)


async def test_pair_keep_right_supersedes_left_and_dismiss_is_remembered(
    tmp_path: Path,
) -> None:
    store = demo_store(tmp_path)
    app = ScreenApp(store, ConflictsScreen)
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        await pilot.press("down")  # the contradiction lan-010 / cand-002
        await pilot.pause()
        assert _screen(app).selected.kind == "contradiction"
        await pilot.press("2")
        await _settle(pilot)
        assert store.get("lan-010").status == "superseded"
        assert store.get("cand-002").status == "confirmed"
        items = _screen(app).items
        assert [i.kind for i in items] == ["conflict-markers", "near-duplicate"]
        await pilot.press("down", "d")
        await _settle(pilot)
        assert [i.kind for i in _screen(app).items] == ["conflict-markers"]
    assert (store.meta_dir / "dismissed.json").is_file()


async def test_a_store_change_elsewhere_updates_the_list(tmp_path: Path) -> None:
    store = demo_store(tmp_path)
    app = ScreenApp(store, ConflictsScreen)
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        store.merge_into("cand-003", "lan-003", actor="cli")
        await pilot.pause(0.3)
        await _settle(pilot)
        assert [i.kind for i in _screen(app).items] == ["conflict-markers", "contradiction"]


async def test_shift_m_merges_the_left_entry_into_the_right(tmp_path: Path) -> None:
    store = demo_store(tmp_path)
    app = ScreenApp(store, ConflictsScreen)
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        await pilot.press("down", "down")  # the near-duplicate lan-003 / cand-003
        await pilot.pause()
        assert _screen(app).selected.ids == ["lan-003", "cand-003"]
        await pilot.press("M")
        await _settle(pilot)
        assert store.find("lan-003") is None
        assert any("nextest" in fact for fact in store.get("cand-003").facts)
        assert all(i.kind != "near-duplicate" for i in _screen(app).items)


async def test_keeping_a_candidate_says_it_is_now_confirmed(tmp_path: Path) -> None:
    store = demo_store(tmp_path)
    app = ScreenApp(store, ConflictsScreen)
    said: list[str] = []
    real_notify = app.notify

    def notify(message: str, **kwargs) -> None:  # type: ignore[no-untyped-def]
        said.append(str(message))
        real_notify(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        await pilot.press("down")  # the contradiction lan-010 / cand-002 (a candidate)
        await pilot.pause()
        await pilot.press("2")
        await _settle(pilot)
    assert store.get("cand-002").status == "confirmed"
    assert any("cand-002" in s and "approved" in s for s in said), said
