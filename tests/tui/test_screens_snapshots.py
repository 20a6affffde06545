"""Snapshots of the conflict, context preview and stats screens on the demo (fixed size).

Regenerate after an intended change: pytest tests/tui/test_screens_snapshots.py --snapshot-update
"""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

from memdesk.tui.screens.conflicts import ConflictsScreen
from memdesk.tui.screens.context_preview import ContextPreviewScreen
from memdesk.tui.screens.stats import StatsScreen
from screen_app import ScreenApp, fixed_demo_store
from textual.widgets import TextArea

SIZE = (120, 36)
# Deterministic: no model, no index, and a fixed "today" (expiry and decay depend on it).
NO_SEARCH = SimpleNamespace(search=None, today=lambda: dt.date(2026, 11, 1))


async def _settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause(0.2)
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_conflicts_marker_conflict(snap_compare) -> None:
    app = ScreenApp(fixed_demo_store("conflicts"), lambda s: ConflictsScreen(s, NO_SEARCH))
    assert snap_compare(app, terminal_size=SIZE, run_before=_settle)


def test_conflicts_contradiction_pair(snap_compare) -> None:
    app = ScreenApp(fixed_demo_store("conflicts-pair"), lambda s: ConflictsScreen(s, NO_SEARCH))

    async def select_pair(pilot) -> None:
        await _settle(pilot)
        await pilot.press("down")
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=select_pair)


def test_conflicts_edited_merge(snap_compare) -> None:
    app = ScreenApp(fixed_demo_store("conflicts-edit"), lambda s: ConflictsScreen(s, NO_SEARCH))

    async def edit(pilot) -> None:
        await _settle(pilot)
        pilot.app.screen.query_one(TextArea).cursor_blink = False  # a still picture
        await pilot.press("e")
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=edit)


def test_context_preview(snap_compare) -> None:
    app = ScreenApp(fixed_demo_store("preview"), lambda s: ContextPreviewScreen(s, NO_SEARCH))
    assert snap_compare(app, terminal_size=SIZE, run_before=_settle)


def test_context_preview_small_budget(snap_compare) -> None:
    app = ScreenApp(fixed_demo_store("preview-small"), lambda s: ContextPreviewScreen(s, NO_SEARCH))

    async def shrink(pilot) -> None:
        await _settle(pilot)
        await pilot.press(*["minus"] * 9)
        await _settle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=shrink)


def test_stats(snap_compare) -> None:
    app = ScreenApp(fixed_demo_store("stats"), lambda s: StatsScreen(s, NO_SEARCH, measure=False))
    assert snap_compare(app, terminal_size=SIZE, run_before=_settle)
