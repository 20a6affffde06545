"""Pilot tests of the stats screen."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from memdesk.tui.screens.stats import StatsScreen, bars
from screen_app import ScreenApp, demo_store
from textual.widgets import Static

pytestmark = pytest.mark.anyio


async def _settle(pilot) -> None:
    for _ in range(2):
        await pilot.pause(0.1)
        await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_shows_counts_latency_and_follows_store_changes(tmp_path: Path) -> None:
    store = demo_store(tmp_path)
    app = ScreenApp(store, lambda s: StatsScreen(s, SimpleNamespace(search=None)))
    async with app.run_test(size=(120, 36)) as pilot:
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        assert screen.stats is not None and screen.stats.entries == len(store.entries())
        assert screen.stats.assembly_latency_ms is not None  # measured on open
        status = str(screen.query_one("#stats-status", Static).render())
        assert "candidate" in status and "15" in status
        store.approve(["cand-001"], actor="cli")
        await _settle(pilot)
        # (the commit also ingests lines agents appended to the demo's MEMORY.md)
        candidates = sum(e.status == "candidate" for e in store.entries())
        assert store.get("cand-001").status == "confirmed"
        assert screen.stats.by_status["candidate"] == candidates
        assert screen.stats.by_status["confirmed"] == 40
        assert screen.stats.assembly_latency_ms is not None  # kept, not re-measured


def test_bars_scale_to_the_largest_count() -> None:
    text = bars({"a": 10, "bb": 5, "c": 0}, width=10).plain.splitlines()
    assert text[0] == "a     10 " + "█" * 10
    assert text[1] == "bb     5 " + "█" * 5 + "░" * 5
    assert text[2] == "c      0 " + "░" * 10
