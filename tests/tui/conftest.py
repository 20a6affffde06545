"""Shared fixtures: a fresh copy of the demo project per test, and an app on it."""

from __future__ import annotations

from pathlib import Path

import pytest
from memdesk.core.demo import copy_demo_project
from memdesk.core.store import Store


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def demo_dir(tmp_path: Path) -> Path:
    return copy_demo_project(tmp_path / "demo")


@pytest.fixture
def store(demo_dir: Path) -> Store:
    return Store.open(demo_dir)
