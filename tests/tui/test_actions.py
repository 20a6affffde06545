"""The actions table: every binding, palette entry and remappable id comes from it, and
every action it names exists where it runs."""

from __future__ import annotations

import importlib
import re
import threading
from pathlib import Path

import pytest
from memdesk.core.store import Store, StoreError
from memdesk.tui.actions import ACTIONS, binding_ids, bindings_for, palette_actions
from memdesk.tui.app import SCREENS, MemdeskApp
from memdesk.tui.keymap import load_keymap
from memdesk.tui.write_queue import WriteQueue

ROOT = Path(__file__).resolve().parents[2]

SCREEN_CLASSES = {
    "app": MemdeskApp,
    "queue": ("memdesk.tui.screens.queue", "QueueScreen"),
    "browser": ("memdesk.tui.screens.browser", "BrowserScreen"),
    "consolidation": ("memdesk.tui.screens.consolidation", "ConsolidationScreen"),
    "help": ("memdesk.tui.screens.help", "HelpScreen"),
    "error": ("memdesk.tui.screens.dialogs", "ErrorDialog"),
    "edit_form": ("memdesk.tui.screens.dialogs", "EditScreen"),
    "pick": ("memdesk.tui.screens.dialogs", "PickEntryScreen"),
    **SCREENS,
}


def screen_class(scope: str) -> type:
    where = SCREEN_CLASSES[scope]
    if isinstance(where, type):
        return where
    module, name = where
    return getattr(importlib.import_module(module), name)


def test_every_scope_is_a_class_whose_bindings_come_from_the_table() -> None:
    scopes = {a.scope for a in ACTIONS}
    assert scopes <= set(SCREEN_CLASSES)
    for scope in scopes:
        cls = screen_class(scope)
        ids = [b.id for b in cls.BINDINGS]
        assert ids == [b.id for b in bindings_for(scope)], scope


def test_every_action_exists_where_it_runs() -> None:
    for action in ACTIONS:
        name = re.sub(r"\(.*\)$", "", action.action)
        cls = screen_class(action.scope)
        assert hasattr(cls, f"action_{name}") or hasattr(cls, f"_action_{name}"), action


def test_an_id_means_one_thing_and_is_unique_in_its_scope() -> None:
    seen: dict[tuple[str, str], str] = {}
    words: dict[str, str] = {}
    for action in ACTIONS:
        assert (action.scope, action.id) not in seen
        seen[(action.scope, action.id)] = action.action
        assert words.setdefault(action.id, action.description) == action.description


def test_the_palette_lists_each_titled_action_once() -> None:
    titles = [a.palette for a in palette_actions()]
    assert len(titles) == len(set(titles))
    assert {"Approve", "Clear guard flag", "Build search index", "Quit"} <= set(titles)
    assert titles[0] == "Review queue"


def test_the_readme_keys_are_table_ids_with_those_keys() -> None:
    text = (ROOT / "README.md").read_text("utf-8")
    start = text.index("| key | binding id |")
    rows = text[start : text.index("\n\n", start)].splitlines()[2:]
    keys_of = {(a.id): a.keys.split(",") for a in ACTIONS if a.keys}
    shown = {"question_mark": "?", "f1": "F1", "ctrl+z": "ctrl+z", "slash": "/"}
    assert len(rows) > 10
    for row in rows:
        key_cell, id_cell = row.split("|")[1:3]
        ids = re.findall(r"`([a-z_]+)`", id_cell)
        assert ids and all(i in keys_of for i in ids), row
        for key in re.findall(r"`([^`]+)`", key_cell):
            assert any(key in (k, shown.get(k)) for i in ids for k in keys_of[i]), row


def test_keymap_takes_any_table_id_and_names_the_rest() -> None:
    keymap, problems = load_keymap(
        {"approve": "y", "consolidation_apply": "A", "bogus": "z", "undo": ""}
    )
    assert keymap == {"approve": "y", "consolidation_apply": "A"}
    assert problems[0].startswith("keys.bogus: unknown binding id; allowed: ")
    assert problems[1] == 'keys.undo: must be a key string such as "A" or "ctrl+a"'
    assert "consolidation_apply" in binding_ids()


def test_write_queue_runs_in_order_and_sorts_outcomes(tmp_path: Path) -> None:
    queue = WriteQueue(Store.init(tmp_path), threading.RLock())
    order: list[str] = []
    outcomes = []

    def refused() -> None:
        raise StoreError("settings.toml:1: not valid TOML")

    def bug() -> None:
        raise KeyError("x")

    futures = [
        queue.submit("one", lambda: order.append("one") or 1, outcomes.append),
        queue.submit("two", refused, outcomes.append),
        queue.submit("three", bug, outcomes.append),
    ]
    queue.shutdown()
    assert [f.result().label for f in futures] == ["one", "two", "three"]
    one, two, three = outcomes
    assert (one.result, one.refused, one.bug) == (1, "", None)
    assert two.refused == "settings.toml:1: not valid TOML" and two.bug is None
    assert isinstance(three.bug, KeyError) and not three.refused
    assert order == ["one"]


@pytest.mark.parametrize("scope", ["app", "queue", "browser"])
def test_bindings_keep_their_footer_order(scope: str) -> None:
    rows = [a for a in ACTIONS if a.scope == scope and a.keys]
    assert [b.key for b in bindings_for(scope)] == [a.keys for a in rows]
