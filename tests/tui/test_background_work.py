"""Long work runs in workers: progress shows, the UI keeps answering, errors reach the
one error dialog."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from memdesk.core.store import Store
from memdesk.tui.app import build_app
from memdesk.tui.screens.dialogs import ErrorDialog
from memdesk.tui.screens.help import HelpScreen
from memdesk.tui.services import Services
from textual.widgets import ProgressBar
from tui_helpers import SIZE, TODAY, ready, wait_for

pytestmark = pytest.mark.anyio


class SlowIndex(Services):
    """An index build that reports progress and waits until the test lets it finish."""

    def __init__(self, store: Store) -> None:
        super().__init__(store, load_model=True, today=lambda: TODAY)
        self.release = threading.Event()

    def build_search(self, progress=None, stage=None, cancelled=None) -> Any:  # type: ignore[no-untyped-def]
        stage("indexing entries…")
        progress(1, 4)
        assert self.release.wait(10)
        progress(4, 4)
        self.search_status = "search: hybrid (fake)"
        return None


class BrokenIndex(Services):
    def __init__(self, store: Store) -> None:
        super().__init__(store, load_model=True, today=lambda: TODAY)

    def build_search(self, progress=None, stage=None, cancelled=None) -> Any:  # type: ignore[no-untyped-def]
        raise RuntimeError("the model file is damaged: onnx graph is truncated")


async def test_indexing_shows_progress_and_keys_still_work(store: Store) -> None:
    services = SlowIndex(store)
    app = build_app(store, watch=False, services=services)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.progress == (1, 4))
        assert app.progress_label == "indexing entries…"
        assert app.screen.query_one(ProgressBar).display
        await pilot.press("question_mark")  # the UI answers while the worker runs
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        services.release.set()
        await wait_for(pilot, lambda: app.progress is None)
        assert not app.screen.query_one(ProgressBar).display


async def test_a_failing_worker_opens_the_error_dialog(store: Store) -> None:
    app = build_app(store, watch=False, services=BrokenIndex(store))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorDialog))
        dialog = app.screen
        assert isinstance(dialog.error, RuntimeError)
        assert "onnx graph is truncated" in str(dialog.query_one("#error-message").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ErrorDialog))
        assert app.is_running
