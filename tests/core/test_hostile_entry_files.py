"""Entry files a hostile branch could commit: each is one problem naming the file, the
rest of the store loads (a 5000-digit number, a symbolic link to itself)."""

from __future__ import annotations

import os
import tomllib

import pytest
from memdesk.core.entry import Entry
from memdesk.core.entry_files import read_entry_file
from memdesk.core.entry_toml import loads_entry_toml
from memdesk.core.store import Store
from memdesk.core.toml_errors import describe_toml_error, loads_toml

HUGE = "9" * 5000


def test_a_number_too_long_for_python_is_a_toml_error_with_its_line() -> None:
    text = f'[context]\nmode = "x"\nbudget = {HUGE}\n'
    with pytest.raises(tomllib.TOMLDecodeError) as caught:
        loads_toml(text)
    line = describe_toml_error(".memdesk/settings.toml", caught.value)
    assert line.startswith(".memdesk/settings.toml:3: not valid TOML: a number of 5,000 digits")
    assert "\n" not in line


def test_an_entry_with_a_5000_digit_number_is_one_problem_and_the_rest_loads(
    store: Store,
) -> None:
    good = store.add(Entry(summary="a good entry"))
    other = store.add(Entry(summary="another entry"))
    path = store.entries_dir / f"{other.id}.toml"
    text = path.read_text("utf-8")
    assert "version = 1\n" in text
    hostile = text.replace("version = 1\n", f"version = {HUGE}\n")
    assert loads_entry_toml(hostile) is None  # the fast reader leaves it to tomllib
    path.write_text(hostile, "utf-8")
    line = hostile[: hostile.index(HUGE)].count("\n") + 1

    reopened = Store.open(store.root)
    assert [e.id for e in reopened.entries()] == [good.id]
    (problem,) = reopened.problems
    assert problem.path == f".memdesk/entries/{other.id}.toml"
    assert problem.line == line and problem.kind == "invalid"
    assert "5,000 digits" in problem.message
    assert isinstance(read_entry_file(path, store.root), type(problem))


def test_a_symlink_loop_in_entries_is_one_problem_and_the_rest_loads(store: Store) -> None:
    good = store.add(Entry(summary="a good entry"))
    os.symlink("loop.toml", store.entries_dir / "loop.toml")
    os.symlink("ring-b.toml", store.entries_dir / "ring-a.toml")
    os.symlink("ring-a.toml", store.entries_dir / "ring-b.toml")

    reopened = Store.open(store.root)
    assert [e.id for e in reopened.entries()] == [good.id]
    problems = {p.path: p for p in reopened.problems}
    assert set(problems) == {
        ".memdesk/entries/loop.toml",
        ".memdesk/entries/ring-a.toml",
        ".memdesk/entries/ring-b.toml",
    }
    for problem in problems.values():
        assert problem.kind == "symlink" and "loops back on itself" in problem.message
