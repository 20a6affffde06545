"""Plug-in extractors: both call forms, every result shape, and every way to fail safely."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from memdesk.core.entry import Entry
from memdesk.core.extract.messages import Message
from memdesk.core.extract.plugin import arity, run_callable, run_command
from memdesk.core.extract.run import run_extractor
from memdesk.core.extract.settings import ExtractorSettings, ExtractSettings

MESSAGES = [
    Message("user", "记住：发布必须手动点", session_id="s1", timestamp="t1", locator="f:1"),
    Message("assistant", "ok", session_id="s1", timestamp="t2", locator="f:2"),
]


def two(messages: list[Message], opts: dict[str, Any]) -> list[Any]:
    return ["text fact about the deploy", {"summary": "dict fact", "kind": "decision"}]


def three(messages: list[Message], ctx: Any, opts: dict[str, Any]) -> tuple[str, list[str]]:
    return ("ok", [f"tenant {ctx['tenant']} uses {len(messages)} messages"])


def test_two_and_three_argument_forms() -> None:
    assert arity(two) == 2 and arity(three) == 3
    result = run_callable(two, MESSAGES, {})
    assert result.ok
    assert [(e.summary, e.kind, e.status) for e in result.candidates] == [
        ("text fact about the deploy", "project", "candidate"),
        ("dict fact", "decision", "candidate"),
    ]
    # Provenance defaults come from the messages.
    assert result.candidates[0].source.session_id == "s1"
    assert result.candidates[0].source.origin == "plugin"
    result = run_callable(three, MESSAGES, {}, {"tenant": "acme"})
    assert [e.summary for e in result.candidates] == ["tenant acme uses 2 messages"]


def test_entries_and_ok_dicts_are_accepted() -> None:
    result = run_callable(
        lambda m, o: {"ok": [Entry("an entry", status="confirmed")]}, MESSAGES, {}
    )
    assert [(e.summary, e.status) for e in result.candidates] == [("an entry", "candidate")]


def boom(messages: list[Message], opts: dict[str, Any]) -> list[str]:
    raise RuntimeError("model unavailable")


@pytest.mark.parametrize(
    ("fn", "why"),
    [
        (boom, "RuntimeError: model unavailable"),
        (lambda m, o: {"error": "rate limited"}, "rate limited"),
        (lambda m, o: ("error", "quota"), "quota"),
        (lambda m, o: 42, "must be a list"),
        (lambda m, o: {"answer": []}, "without 'candidates'"),
        (lambda m, o: ["fine", {"summary": "x", "bogus": 1}], "candidate #1"),
        (lambda m, o: [""], "candidate #0"),
        (lambda m, o: [{"summary": "x", "kind": "nonsense"}], "unknown kind"),
    ],
)
def test_failures_return_an_error_and_no_candidates(fn: Any, why: str) -> None:
    result = run_callable(fn, MESSAGES, {})
    assert not result.ok and result.candidates == []
    assert why in result.error


def test_a_slow_callable_is_abandoned_after_the_timeout() -> None:
    release = threading.Event()

    def slow(messages: list[Message], opts: dict[str, Any]) -> list[str]:
        release.wait(30)
        return ["late fact"]

    result = run_callable(slow, MESSAGES, {}, timeout=0.2)
    release.set()
    assert not result.ok and "timed out" in result.error and result.candidates == []


def script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "extractor.py"
    path.write_text(body, "utf-8")
    return [sys.executable, str(path)]


def test_external_command_gets_json_messages_and_answers_candidates(tmp_path: Path) -> None:
    command = script(
        tmp_path,
        "import json, os, sys\n"
        "msgs = json.load(sys.stdin)\n"
        "opts = json.loads(os.environ['MEMDESK_EXTRACT_OPTS'])\n"
        "print(json.dumps([{'summary': m['content'] + ' / ' + str(opts['k']), 'kind': 'decision'}"
        " for m in msgs if m['role'] == 'user']))\n",
    )
    result = run_command(command, MESSAGES, {"k": 7})
    assert result.ok, result.error
    assert [(e.summary, e.kind) for e in result.candidates] == [
        ("记住：发布必须手动点 / 7", "decision")
    ]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("import sys; sys.stderr.write('no api key\\n'); sys.exit(3)", "exit status 3: no api key"),
        ("print('Sure! Here are the facts: ...')", "not JSON"),
        ('print(\'{"error": "model refused"}\')', "model refused"),
        ("print('[1, 2]')", "candidate #0"),
    ],
)
def test_external_command_failures(tmp_path: Path, body: str, why: str) -> None:
    result = run_command(script(tmp_path, body), MESSAGES, {})
    assert not result.ok and why in result.error and result.candidates == []


def test_external_command_timeout_kills_it(tmp_path: Path) -> None:
    result = run_command(script(tmp_path, "import time; time.sleep(30)"), MESSAGES, {}, timeout=0.5)
    assert not result.ok and "timed out" in result.error


def test_missing_command() -> None:
    result = run_command(["/nonexistent/extractor-binary"], MESSAGES, {})
    assert not result.ok and "could not start" in result.error


def test_settings_choose_the_extractor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_extractor.py").write_text(
        "def extract(messages, opts):\n    return ['a', 'b']\n", "utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    settings = ExtractSettings.from_mapping(
        {"extractor": {"command": f"{sys.executable} -c 'print(json := 1)'", "timeout": 5}}
    )
    assert settings.extractor.use == "command"
    assert ExtractSettings.from_mapping({}).extractor.use == "heuristic"
    seed = run_extractor(MESSAGES, ExtractorSettings(use="seed000"))
    assert seed.ok and seed.candidates == []  # "记住：发布必须手动点" is shorter than 20
    cue_lines = ExtractSettings.from_mapping({"extractor": {"use": "cue-lines"}}).extractor
    assert cue_lines.use == "cue-lines"
    assert run_extractor(MESSAGES, cue_lines).candidates == seed.candidates
    old_name = ExtractSettings.from_mapping({"extractor": {"use": "seed000"}}).extractor
    assert old_name.use == "seed000"  # settings files written before the rename still load
    callable_settings = ExtractSettings.from_mapping(
        {"extractor": {"callable": "my_extractor:extract"}}
    ).extractor
    result = run_extractor(MESSAGES, callable_settings)
    assert result.ok and len(result.candidates) == 2
    missing = run_extractor(MESSAGES, ExtractorSettings(use="callable", callable="no_such_mod:fn"))
    assert not missing.ok and "cannot import" in missing.error


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"extractor": {"timeout": 0}}, "extractor.timeout"),
        ({"extractor": {"max_facts_per_flush": "ten"}}, "extractor.max_facts_per_flush"),
        ({"extractor": {"use": "gpt"}}, "extractor.use"),
        ({"extractor": {"use": "command"}}, "extractor.use"),
        ({"extractor": {"callable": "nocolon"}}, "extractor.callable"),
        ({"extractor": {"colour": "red"}}, "extractor.colour"),
        ({"sources": {"transcripts": "*.jsonl", "inbox": "yes"}}, "sources.inbox"),
        ({"sources": {"transcripts": [1]}}, "sources.transcripts"),
    ],
)
def test_bad_settings_name_the_key(table: dict[str, Any], key: str) -> None:
    from memdesk.core.context.settings import SettingsError

    with pytest.raises(SettingsError) as caught:
        ExtractSettings.from_mapping(table)
    assert key in str(caught.value)
