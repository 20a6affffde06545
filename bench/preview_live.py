"""Store change -> updated context preview, measured in a headless Textual app.

Approves the demo's candidates one by one (as the review queue would, through the store)
and times until the preview shows the new assembly; prints median and p95, and compares
with the cost of one assembly alone (the floor: debounce + worker + repaint are the rest).

    python bench/preview_live.py
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from memdesk.core.context import assemble, load_settings
from memdesk.core.demo import copy_demo_project
from memdesk.core.store import Store, StoreError
from memdesk.tui.screens.context_preview import DEBOUNCE_SECONDS, ContextPreviewScreen
from textual.app import App


class Host(App[None]):
    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store

    def on_mount(self) -> None:
        self.push_screen(ContextPreviewScreen(self.store))


async def run() -> None:
    store = Store.open(copy_demo_project(Path(tempfile.mkdtemp()) / "demo"))
    app = Host(store)
    timings: list[float] = []
    commits: list[float] = []  # the store commit itself (fsyncs, MEMORY.md render)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(0.5)
        await app.workers.wait_for_complete()
        screen = app.screen
        assert isinstance(screen, ContextPreviewScreen)
        screen.action_budget(100)  # room for everything
        await pilot.pause(0.5)
        await app.workers.wait_for_complete()
        candidates = [e.id for e in store.entries() if e.status == "candidate"]
        for entry_id in candidates:
            before = screen.assembly
            t0 = time.perf_counter()
            try:
                store.approve([entry_id], actor="cli")
            except StoreError:  # the guard refuses to confirm a guess ("Maybe ...")
                continue
            commits.append((time.perf_counter() - t0) * 1000)
            while screen.assembly is before:
                await asyncio.sleep(0.002)
            timings.append((time.perf_counter() - t0) * 1000)
    settings = load_settings(store.root)
    entries = store.entries()
    t0 = time.perf_counter()
    for _ in range(20):
        assemble(entries, settings=settings, budget=11200)
    alone = (time.perf_counter() - t0) * 1000 / 20
    timings.sort()
    p95 = timings[max(0, round(0.95 * len(timings)) - 1)]
    print(
        f"{'approvals':>9} {'median ms':>10} {'p95 ms':>8} {'commit ms':>10} "
        f"{'debounce ms':>12} {'assemble ms':>12}"
    )
    print(
        f"{len(timings):>9} {statistics.median(timings):>10.1f} {p95:>8.1f} "
        f"{statistics.median(commits):>10.1f} {DEBOUNCE_SECONDS * 1000:>12.0f} {alone:>12.2f}"
    )


if __name__ == "__main__":
    asyncio.run(run())
