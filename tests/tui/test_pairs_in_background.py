"""The desk finds pairs in the background: the queue's rows come before their flags, the
conflict screen shows the pairs found meanwhile at once and follows later changes, and
a long conflict list is walked through a window of it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import memdesk.tui.conflict_list as conflict_list
import pytest
from memdesk.core.pairs import QueuePairs
from memdesk.core.store import Store
from memdesk.tui.screens.conflicts import ConflictsScreen
from memdesk.tui.screens.queue import QueueScreen
from screen_app import ScreenApp, demo_store
from textual.widgets import OptionList, Static
from tui_helpers import SIZE, make_app, ready, wait_for

pytestmark = pytest.mark.anyio

DEMO_KINDS = ["conflict-markers", "contradiction", "near-duplicate"]


def _kinds(screen: Any) -> list[str]:
    return [i.kind for i in screen.items]


async def test_queue_rows_show_before_their_flags_and_the_flags_follow(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = threading.Event()
    real_cover = QueuePairs.cover

    def held_cover(self: QueuePairs, *args: Any, **kwargs: Any) -> int:
        gate.wait(30)  # the pair finder is slow today
        return real_cover(self, *args, **kwargs)

    monkeypatch.setattr(QueuePairs, "cover", held_cover)
    app = make_app(store)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, QueueScreen))
            screen = app.screen
            await wait_for(pilot, lambda: any(e.id == "cand-002" for e in screen.rows))
            assert screen.flags["cand-002"] == []  # the rows did not wait for the pairs
            gate.set()
            await wait_for(pilot, lambda: "contradicts lan-010" in screen.flags["cand-002"])
            table = screen.query_one("#queue-table")
            assert "contradicts lan-010" in str(table.get_cell("cand-002", "flags"))
    finally:
        gate.set()


async def test_the_conflict_screen_shows_what_was_found_in_the_background_at_once(
    store: Store,
) -> None:
    app = make_app(store)
    gate = threading.Event()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            # Found after start-up, before anyone opened the screen.
            await wait_for(pilot, lambda: app.services.known_conflicts is not None)
            real_conflicts = app.services.conflicts

            def slow_conflicts(**kwargs: Any) -> Any:
                gate.wait(30)  # the screen's own look must not be what fills it
                return real_conflicts(**kwargs)

            app.services.conflicts = slow_conflicts  # type: ignore[method-assign]
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, ConflictsScreen))
            screen = app.screen
            await wait_for(pilot, lambda: screen.loaded)
            assert not gate.is_set()
            assert _kinds(screen) == DEMO_KINDS
            reason = str(screen.query_one("#conflict-reason", Static).render())
            assert "git markers" in reason
            assert screen.query_one("#conflict-sides").children  # the detail pane is filled
            gate.set()
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            assert _kinds(screen) == DEMO_KINDS
    finally:
        gate.set()


async def test_the_rows_of_what_was_found_are_made_off_the_ui_thread(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening the screen shows the background listing's rows as they were made with
    it (10k rows at 10k entries were ≈ 50 ms on the UI thread at every first open)."""
    made_on: list[str] = []
    real = conflict_list.shown_as

    def noted(item: Any) -> tuple[object, ...]:
        made_on.append(threading.current_thread().name)
        return real(item)

    monkeypatch.setattr(conflict_list, "shown_as", noted)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.services.known_conflicts is not None)
        await pilot.app.workers.wait_for_complete()
        assert made_on and threading.main_thread().name not in made_on
        made_on.clear()
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictsScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.loaded)
        assert _kinds(screen) == DEMO_KINDS
        assert threading.main_thread().name not in made_on


async def test_an_appended_near_duplicate_joins_the_open_conflict_list(store: Store) -> None:
    root = store.root
    app = make_app(store, watch=True)
    twin = "Snapshot tests use insta; review the changes with cargo insta review before commit"
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictsScreen))
        screen = app.screen
        await wait_for(pilot, lambda: _kinds(screen) == DEMO_KINDS)
        with (root / "MEMORY.md").open("a", encoding="utf-8") as f:
            f.write(f"- {twin}\n")

        def twin_id() -> str | None:
            return next((e.id for e in app.services.entries() if e.summary == twin), None)

        await wait_for(
            pilot, lambda: any(i.ids == ["lan-020", twin_id()] for i in screen.items), timeout=30
        )
        item = next(i for i in screen.items if "lan-020" in i.ids)
        assert item.kind == "near-duplicate"
        assert len(screen.items) == 4
        assert screen.query_one("#conflict-list", OptionList).option_count == 4
        # Resolved elsewhere (the twin rejected): it leaves the open list again.
        store.reject([twin_id()], actor="cli")
        await wait_for(pilot, lambda: _kinds(screen) == DEMO_KINDS, timeout=30)


async def test_a_list_longer_than_its_window_is_walked_through_by_the_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conflict_list, "WINDOW", 2)
    store = demo_store(tmp_path)
    app = ScreenApp(store, ConflictsScreen)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ConflictsScreen)
        options = screen.query_one("#conflict-list", OptionList)
        assert _kinds(screen) == DEMO_KINDS and options.option_count == 2
        seen = [screen.selected.kind]
        for _ in range(2):
            await pilot.press("down")
            seen.append(screen.selected.kind)
        assert seen == DEMO_KINDS
        assert options.option_count == 2
        assert "near-duplicate" in str(screen.query_one("#conflict-reason", Static).render())
        await pilot.press("up", "up")
        assert screen.selected.kind == "conflict-markers"
        await pilot.press("end")
        assert screen.selected.kind == "near-duplicate"
        await pilot.press("home")
        assert screen.selected.kind == "conflict-markers"
        # Acting on the last conflict works from a moved window too.
        await pilot.press("end", "d")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _kinds(screen) == DEMO_KINDS[:2]


async def test_opened_before_the_pairs_are_found_it_shows_the_field_conflicts_first(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdesk.tui.services import Services

    gate = threading.Event()
    real_pairs = Services.conflict_pairs

    def slow_pairs(self: Services, *args: Any, **kwargs: Any) -> Any:
        gate.wait(30)
        return real_pairs(self, *args, **kwargs)

    monkeypatch.setattr(Services, "conflict_pairs", slow_pairs)
    app = make_app(store)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, ConflictsScreen))
            screen = app.screen
            await wait_for(pilot, lambda: _kinds(screen) == ["conflict-markers"])
            assert not screen.loaded
            title = str(screen.query_one("#conflicts-title", Static).render())
            assert "finding pairs" in title
            assert "git markers" in str(screen.query_one("#conflict-reason", Static).render())
            gate.set()
            await wait_for(pilot, lambda: screen.loaded and _kinds(screen) == DEMO_KINDS)
            assert "3 open" in str(screen.query_one("#conflicts-title", Static).render())
    finally:
        gate.set()
