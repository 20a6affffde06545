"""docs/settings.md stays true: every key settings.toml accepts is on it, every value on
it is accepted, and the defaults it shows are the ones the code uses.

The accepted keys are read from the problem line an unknown key gets (what a person
sees), so a key added to a parser without a line on the page fails here.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

import pytest
from memdesk.core.settings import SECTIONS, MemdeskSettings, parse
from memdesk.tui.actions import ACTIONS, binding_ids
from memdesk.tui.keymap import load_keymap

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "settings.md"

_BLOCK = re.compile(r"```toml\n(.*?)```", re.S)
_HEADER = re.compile(r"^\[([A-Za-z_]+)\]", re.M)
# A line commented out: `# key = value` or `# [table.sub]` (prose comments never look so).
_COMMENTED = re.compile(r'^# ?(?=\[[A-Za-z_.]+\]|"?[A-Za-z0-9_.]+"?\s*=)', re.M)


def _blocks() -> dict[str, str]:
    """table name -> its ```toml block, in page order."""
    out: dict[str, str] = {}
    for block in _BLOCK.findall(PAGE.read_text("utf-8")):
        tables = {name.split(".")[0] for name in _HEADER.findall(block)}
        assert len(tables) == 1, f"a block should hold one table: {block[:80]!r}"
        (table,) = tables
        assert table not in out, f"[{table}] has two blocks"
        out[table] = block
    return out


def _uncommented(block: str) -> str:
    """The block with its commented-out examples switched on."""
    return _COMMENTED.sub("", block)


def _allowed(problem: str) -> list[str]:
    found = re.search(r"allowed: (.+)$", problem)
    assert found, problem
    return [key.strip() for key in found.group(1).split(",")]


def _plain(value: object) -> object:
    """Tuples as lists and mappings as dicts, as TOML reads them."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _shows(block: str, key: str) -> bool:
    """`key =`, `"key" =` or a `[table.key...]` header, commented out or not."""
    name = re.escape(key)
    return bool(
        re.search(rf'^(# ?)?(("{name}"|{name})\s*=|\[[A-Za-z_.]*\.{name}[.\]])', block, re.M)
    )


def test_one_block_per_table_in_the_order_of_the_settings_object() -> None:
    assert list(_blocks()) == list(SECTIONS)


@pytest.mark.parametrize("switch_examples_on", [False, True])
def test_every_block_is_accepted_as_it_stands_and_with_its_examples(
    switch_examples_on: bool,
) -> None:
    for table, block in _blocks().items():
        text = _uncommented(block) if switch_examples_on else block
        data = tomllib.loads(text)
        assert parse(data).problems == (), f"[{table}]: {text}"
        if table == "keys":  # the ids are the desk's to check
            assert load_keymap(data["keys"])[1] == []


def test_every_key_each_table_accepts_is_on_the_page() -> None:
    blocks = _blocks()
    for table in SECTIONS:
        if table == "keys":
            accepted = sorted(binding_ids())
        else:
            problem = parse({table: {"zz_unknown": 1}}).problem_with(table)
            accepted = _allowed(problem)
        missing = [key for key in accepted if not _shows(blocks[table], key)]
        assert missing == [], f"[{table}] lacks {missing}"
    nested = {
        "sources": {"homes": {"zz_unknown": "x"}},
        "context": {"purposes": {"review": {"zz_unknown": 1}}},
    }
    for table, data in nested.items():
        accepted = _allowed(parse({table: data}).problem_with(table))
        missing = [key for key in accepted if not _shows(blocks[table], key)]
        assert missing == [], f"[{table}] lacks {missing}"


def test_the_defaults_shown_are_the_real_ones() -> None:
    defaults = MemdeskSettings()
    compared = 0
    for table, block in _blocks().items():
        shown = tomllib.loads(block).get(table, {})
        if table == "keys":
            assert shown == defaults.keys
            continue
        for key, value in shown.items():
            assert _plain(getattr(getattr(defaults, table), key)) == value, f"{table}.{key}"
            compared += 1
    assert compared > 30


def test_the_keys_block_shows_each_binding_with_its_default_keys() -> None:
    shown = tomllib.loads(_uncommented(_blocks()["keys"]))["keys"]
    assert shown == {action.id: action.keys for action in ACTIONS if action.keys}
