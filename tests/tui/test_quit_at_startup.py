"""`q` right after start-up: the catch-up ingestion and the flags' first pass, still
running then, hear that the desk is closing when `q` is handled (not only once Textual's
loop has ended) and return early, so quitting never waits for them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import memdesk.tui.app as app_module
import pytest
from memdesk.core.live_ingest import IngestReport, WatchedChanges
from memdesk.core.store import Store
from memdesk.tui.app import build_app
from memdesk.tui.services import Services
from tui_helpers import SIZE, TODAY, ready, wait_for

pytestmark = pytest.mark.anyio

CHECKS = 2000  # a stop that never comes gives up after these (each waits up to 10 ms)


class Job:
    """A long background job checking its stop callback; counts the checks."""

    def __init__(self) -> None:
        self.started, self.returned = threading.Event(), threading.Event()
        self.stop: Callable[[], bool] | None = None
        self.checks = 0
        self.stopped_early = False

    def run(self, stop: Callable[[], bool] | None) -> None:
        self.stop = stop
        self.started.set()
        gate = threading.Event()
        try:
            while self.checks < CHECKS:
                self.checks += 1
                if stop is not None and stop():
                    self.stopped_early = True
                    return
                gate.wait(0.01)
        finally:
            self.returned.set()


def stop_seen_at_exit(app: Any, job: Job) -> list[bool]:
    """What the job's stop callback says when the app is told to exit (after `q`,
    before its loop ends and Textual cancels the workers)."""
    seen: list[bool] = []
    exit_ = app.exit

    def exit_noting(*args: Any, **kwargs: Any) -> None:
        seen.append(job.stop is not None and job.stop())
        exit_(*args, **kwargs)

    app.exit = exit_noting
    return seen


async def test_q_stops_the_catch_up_ingestion(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = Job()
    real = app_module.ingest_changes

    def ingest(store: Store, changes: WatchedChanges, **kwargs: Any) -> IngestReport:
        if not kwargs.get("catch_up"):
            return real(store, changes, **kwargs)
        job.run(kwargs.get("stop"))
        return IngestReport(stopped=job.stopped_early)

    monkeypatch.setattr(app_module, "ingest_changes", ingest)
    app = build_app(store, watch=True, services=Services(store, load_model=False))
    seen = stop_seen_at_exit(app, job)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_for(pilot, job.started.is_set)
        await pilot.press("q")
    assert job.returned.wait(30)
    assert seen == [True]  # told when `q` was handled
    assert job.stopped_early and job.checks < CHECKS


async def test_q_stops_the_first_flags_pass(store: Store) -> None:
    job = Job()

    class Slow(Services):
        def sync_search(self, cancelled: Callable[[], bool] = lambda: False) -> bool:
            job.run(cancelled)
            return False

    app = build_app(store, watch=False, services=Slow(store, load_model=False, today=lambda: TODAY))
    seen = stop_seen_at_exit(app, job)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_for(pilot, job.started.is_set)
        await pilot.press("q")
    assert job.returned.wait(30)
    assert seen == [True]
    assert job.stopped_early and job.checks < CHECKS


def test_a_stopped_catch_up_reads_nothing(store: Store) -> None:
    memory_md = store.memory_file.path
    memory_md.write_text(memory_md.read_text("utf-8") + "- the deploy script lives in ops/\n")
    changes = WatchedChanges(memory_md=True)
    report = app_module.ingest_changes(store, changes, catch_up=True, stop=lambda: True)
    assert report.stopped and not report.fresh and not report.memory_files_read
    report = app_module.ingest_changes(store, changes, catch_up=True)  # the next start
    assert "the deploy script lives in ops/" in [e.summary for e in report.fresh]
