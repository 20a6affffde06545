"""A tiny app that shows one screen on a store: the host for Pilot and snapshot tests."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memdesk.core.demo import copy_demo_project
from memdesk.core.store import Store
from textual.app import App
from textual.screen import Screen


class ScreenApp(App[None]):
    """Pushes `make_screen(store)` on mount; nothing else (no shell, no watcher)."""

    def __init__(self, store: Store, make_screen: Callable[[Store], Screen[Any]]) -> None:
        super().__init__()
        self.store = store
        self.make_screen = make_screen

    def on_mount(self) -> None:
        self.push_screen(self.make_screen(self.store))


def demo_store(tmp_path: Path) -> Store:
    """A fresh copy of the bundled demo, with a fixed path so snapshots match."""
    return Store.open(copy_demo_project(tmp_path / "demo"))


def fixed_demo_store(name: str) -> Store:
    """The demo at a fixed path (snapshots show the path), recreated every time, counting
    tokens with the built-in estimate (a real tokenizer may or may not be installed)."""
    root = Path("/tmp/memdesk-snapshots") / name
    shutil.rmtree(root, ignore_errors=True)
    copy_demo_project(root)
    settings = root / ".memdesk" / "settings.toml"
    text = settings.read_text("utf-8")
    settings.write_text(text.replace("[context]\n", '[context]\ntokenizer = "estimate"\n'), "utf-8")
    return Store.open(root)
