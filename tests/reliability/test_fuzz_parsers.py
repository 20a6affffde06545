"""Fuzz every parser a user's file meets (hypothesis): entry TOML, journal lines, each
transcript reader, settings, MEMORY.md, conflict markers, import files.

Brief by default (CI); long with `MEMDESK_FUZZ_EXAMPLES=20000`. See docs/reliability.md.
"""

from __future__ import annotations

import os

import pytest
from fuzz_targets import TARGETS, Target
from hypothesis import HealthCheck, given, settings

EXAMPLES = int(os.environ.get("MEMDESK_FUZZ_EXAMPLES", "25"))


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_parser_answers_or_refuses_in_one_line(target: Target, tmp_path) -> None:  # type: ignore[no-untyped-def]
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(target.strategy)
    def run(value) -> None:  # type: ignore[no-untyped-def]
        try:
            target.check(value, tmp_path)
        except target.allowed:
            pass  # a refusal the command line prints as one line

    run()


def test_a_marker_after_a_lone_carriage_return_is_not_a_candidate(tmp_path) -> None:
    # Found by the fuzz suite: b"- \r<<<<<<< HEAD" is two lines to Markdown.
    from fuzz_targets import check_memory_md

    check_memory_md(b"- \r<<<<<<< HEAD\n# Memory", tmp_path)


@pytest.mark.parametrize("separator", ["\x1e", "\x1c", "\x85", "\u2028", "\x0c"])
def test_a_marker_after_any_other_line_break_is_not_a_candidate(separator: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Found by the fuzz suite: b"- \x1e<<<<<<< HEAD" is two lines to str.splitlines.
    from fuzz_targets import check_memory_md

    check_memory_md(f"- {separator}<<<<<<< HEAD\n# Memory".encode(), tmp_path)


def test_a_chatgpt_tree_node_that_is_not_an_object_is_skipped(tmp_path) -> None:
    # Found by the fuzz suite: a mapping node that is `true` crashed the reader.
    target = next(t for t in TARGETS if t.name == "transcript_json")
    target.check(b'{"mapping":{"a":true},"current_node":"a"}', tmp_path)


_DEEP = [
    b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n",
    b"[" * 200_000 + b"]" * 200_000 + b"\n",
    b'[{"role": "user", "content": "x", "n": 1' + b"0" * 5000 + b"}]\n",
]


@pytest.mark.parametrize("raw", _DEEP, ids=["deep-object", "deep-array", "huge-int"])
@pytest.mark.parametrize("name", ["transcript_jsonl", "transcript_json", "import"])
def test_json_nested_too_deep_or_a_huge_number_is_refused_in_one_line(
    name: str, raw: bytes, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    # Found by the round-8 tester: RecursionError and the int-digit ValueError escaped.
    target = next(t for t in TARGETS if t.name == name)
    try:
        target.check(raw, tmp_path)
    except target.allowed:
        pass


def test_a_journal_line_nested_too_deep_costs_that_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from fuzz_targets import check_journal

    check_journal([_DEEP[0].decode().strip(), _DEEP[2].decode().strip()], tmp_path)


@pytest.mark.parametrize("name", ["entry_toml", "settings"])
def test_toml_nested_too_deep_is_refused_in_one_line(name: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Like deep JSON: tomllib's recursion ran out and "unexpected RecursionError" came out.
    target = next(t for t in TARGETS if t.name == name)
    raw = b'summary = "x"\ndeep = ' + b"[" * 5000 + b"]" * 5000 + b"\n"
    try:
        target.check(raw, tmp_path)
    except target.allowed:
        pass
