"""Quitting never waits for the search model: its load is abandoned, not joined."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import memdesk.core.search.embedder as embedder_module
import pytest
from memdesk.core.abandon import Abandoned, run_abandonable
from memdesk.core.search.embedder import LoadedModel
from memdesk.core.store import Store
from memdesk.tui.app import build_app
from memdesk.tui.services import Services
from tui_helpers import SIZE, TODAY, ready, wait_for

pytestmark = pytest.mark.anyio


class Recorded(Services):
    """The real build, noting when it returns."""

    def __init__(self, store: Store) -> None:
        super().__init__(store, load_model=True, today=lambda: TODAY)
        self.returned = threading.Event()
        self.result: Any = "not returned"

    def build_search(self, progress=None, stage=None, cancelled=lambda: False) -> Any:  # type: ignore[no-untyped-def]
        try:
            self.result = super().build_search(progress, stage, cancelled)
        finally:
            self.returned.set()
        return self.result


async def test_q_while_the_model_loads_leaves_the_load_behind(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    started, release = threading.Event(), threading.Event()

    def slow_load(model: str, cache_dir: Path) -> LoadedModel:  # native code nothing stops
        started.set()
        release.wait(60)
        return LoadedModel(None, "no model (test)")

    monkeypatch.setattr(embedder_module, "load_embedder", slow_load)
    services = Recorded(store)
    app = build_app(store, watch=False, services=services)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await wait_for(pilot, started.is_set)
            await pilot.press("q")
        assert services.returned.wait(10), "the index worker still waits for the model"
        assert services.result is None
        assert not release.is_set()  # the model was still loading when the worker gave up
        assert services.search is None
    finally:
        release.set()


async def test_without_quitting_the_index_is_built(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        embedder_module, "load_embedder", lambda model, folder: LoadedModel(None, "text only")
    )
    services = Recorded(store)
    app = build_app(store, watch=False, services=services)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: services.search is not None)
        await wait_for(pilot, lambda: app.progress is None)
    assert services.search.model_status == "text only"


def test_run_abandonable_returns_raises_and_gives_up() -> None:
    assert run_abandonable(lambda: 42, lambda: False) == 42
    with pytest.raises(ZeroDivisionError):
        run_abandonable(lambda: 1 // 0, lambda: False)
    gate = threading.Event()
    with pytest.raises(Abandoned):
        run_abandonable(lambda: gate.wait(60), lambda: True)
    gate.set()
