"""The CLI reference page is generated from the parser and kept in step with it."""

from __future__ import annotations

import argparse
from pathlib import Path

from memdesk.cli.main import build_parser
from memdesk.cli.reference import render_reference

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli-reference.md"


def _verb_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the parser has no verbs")


def test_page_matches_the_parser() -> None:
    assert PAGE.read_text(encoding="utf-8") == render_reference(), (
        "docs/cli-reference.md is out of date: run python scripts/cli_reference.py"
    )


def test_every_verb_and_flag_is_on_the_page() -> None:
    page = render_reference()
    listed: set[int] = set()
    for verb, parser in _verb_parsers().items():
        if id(parser) in listed:  # an alias: its verb's section covers it
            continue
        listed.add(id(parser))
        assert f"## `{verb}`" in page, verb
        section = page.split(f"## `{verb}`", 1)[1].split("\n## ", 1)[0]
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:  # hidden on purpose, as in --help
                continue
            for flag in action.option_strings:
                if flag in ("-h", "--help"):
                    continue
                assert f"`{flag}" in section or f", {flag}" in section, (verb, flag)


def test_every_argument_says_what_it_is() -> None:
    """An empty meaning cell is a flag a user cannot learn about without the code."""
    rows = [line for line in render_reference().splitlines() if line.startswith("| `")]
    assert rows
    assert not [row for row in rows if row.endswith("|  |")]


def test_the_page_does_not_depend_on_the_terminal(monkeypatch) -> None:
    first = render_reference()
    monkeypatch.setenv("COLUMNS", "40")
    assert render_reference() == first
