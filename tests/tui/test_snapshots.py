"""Snapshot tests (pytest-textual-snapshot) at a fixed size on a fresh demo copy.

Deterministic: fixed demo data, a fixed "today", the directory shown as ~/demo, no
model. Update after an intended change with `pytest tests/tui --snapshot-update`."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.demo import copy_demo_project
from memdesk.core.store import Store
from tui_helpers import SIZE, make_app, ready, settle, then_press, wait_for


def app_on_copy(tmp_path: Path):  # type: ignore[no-untyped-def]
    return make_app(Store.open(copy_demo_project(tmp_path / "demo")))


def test_queue(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(app_on_copy(tmp_path), terminal_size=SIZE, run_before=then_press())


def test_queue_with_selection_and_flags(snap_compare, tmp_path: Path) -> None:
    # rows 1 and 3 selected; the cursor on the suspicious candidate (cand-008)
    assert snap_compare(
        app_on_copy(tmp_path),
        terminal_size=SIZE,
        run_before=then_press("space", "down", "space", "down", "down", "down", "down"),
    )


def test_browser(snap_compare, tmp_path: Path) -> None:
    async def open_browser(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await pilot.press("b")
        await wait_for(pilot, lambda: bool(getattr(pilot.app.screen, "rows", None)))
        await settle(pilot)

    assert snap_compare(app_on_copy(tmp_path), run_before=open_browser, terminal_size=SIZE)


def test_browser_search(snap_compare, tmp_path: Path) -> None:
    async def search(pilot) -> None:  # type: ignore[no-untyped-def]
        await ready(pilot)
        await pilot.press("b")
        await wait_for(pilot, lambda: bool(getattr(pilot.app.screen, "rows", None)))
        await pilot.press("slash", *"pnpm")
        await wait_for(pilot, lambda: pilot.app.screen.search_ids is not None)
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(app_on_copy(tmp_path), run_before=search, terminal_size=SIZE)


def test_help(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(
        app_on_copy(tmp_path), terminal_size=SIZE, run_before=then_press("question_mark")
    )


def test_edit_form(snap_compare, tmp_path: Path) -> None:
    async def open_form(pilot) -> None:  # type: ignore[no-untyped-def]
        await then_press("e")(pilot)
        # A still picture: a blinking cursor is caught on or off depending on timing.
        pilot.app.screen.query_one("#edit-summary").cursor_blink = False
        await settle(pilot)

    assert snap_compare(app_on_copy(tmp_path), terminal_size=SIZE, run_before=open_form)


def test_supersede_picker(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(
        app_on_copy(tmp_path), terminal_size=SIZE, run_before=then_press("down", "S")
    )
