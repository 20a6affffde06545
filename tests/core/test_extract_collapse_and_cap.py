"""Near and quoted duplicates collapse with both sources; one transcript's cap, reported.

The hand rules (`scorer = "rules"`) give fixed values: these tests are about collapsing and
capping, not about what the shipped model's weights keep."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.cli.main import main
from memdesk.core.entry import Entry
from memdesk.core.extract.heuristic import extract_candidates
from memdesk.core.extract.inbox import ingest_path
from memdesk.core.extract.messages import Message
from memdesk.core.extract.settings import ExtractorSettings
from memdesk.core.extract.transcript import rank_and_cap, transcript_candidates
from memdesk.core.store import Store

RULES_ONLY = {"scorer": "rules"}
RULES = [
    "Always run `npm run lint -- --fix` after a batch of changes.",
    "Never create plain .js files; the project is TypeScript only.",
    "Tests must live next to their sources as src/**/*.test.ts files.",
    "Always use the # prefix for cross-module imports in src/.",
    "Never mock the server in integration tests under test/e2e/.",
]


def test_a_quoted_copy_collapses_into_one_candidate_with_both_sources() -> None:
    messages = [
        Message("user", RULES[0], origin="person", locator="t:1"),
        Message("assistant", "Noted.", origin="assistant", locator="t:2"),
        Message("user", f"> {RULES[0]}\nyes, exactly that", origin="person", locator="t:3"),
    ]
    [entry] = extract_candidates(messages, RULES_ONLY)
    assert sorted(entry.source.locator.split("; ")) == ["t:1", "t:3"]
    assert entry.source.role == "person"


def test_a_near_copy_from_the_assistant_keeps_both_roles() -> None:
    messages = [
        Message("user", RULES[0], origin="person", locator="t:1"),
        Message(
            "assistant",
            "Always run `npm run lint -- --fix` after each batch of changes.",
            origin="assistant",
            locator="t:2",
        ),
        Message("user", "perfect", origin="person", locator="t:3"),
    ]
    [entry] = extract_candidates(messages, RULES_ONLY)
    pairs = zip(entry.source.role.split("; "), entry.source.locator.split("; "), strict=True)
    assert sorted(pairs) == [("assistant", "t:2"), ("person", "t:1")]


def test_copies_of_one_sentence_are_one_candidate_listing_every_record() -> None:
    messages = [
        Message("user", RULES[1], origin="person", locator=f"t:{line}") for line in (1, 2, 3)
    ]
    [entry] = extract_candidates(messages, RULES_ONLY)
    assert entry.source.locator == "t:1; t:2; t:3"


def test_source_role_round_trips_and_is_left_out_when_empty() -> None:
    entry = Entry("x is y")
    assert "role" not in entry.to_dict()["source"]
    entry.source.role = "person; assistant"
    again = Entry.from_dict(entry.to_dict())
    assert again.source.role == "person; assistant"


def test_rank_and_cap_keeps_the_best_and_counts_the_rest() -> None:
    entries = [Entry(f"fact {i}", confidence=c) for i, c in enumerate(["low", "high", "medium"])]
    kept, over = rank_and_cap(entries, 2)
    assert [e.summary for e in kept] == ["fact 1", "fact 2"] and over == 1


def write_transcript(path: Path) -> Path:
    lines = [json.dumps({"role": "user", "content": rule}) for rule in RULES]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def test_one_transcript_queues_at_most_its_cap(tmp_path: Path) -> None:
    path = write_transcript(tmp_path / "t.jsonl")
    everything = transcript_candidates(path, ExtractorSettings(scorer="rules"))
    assert len(everything.entries) == len(RULES) and everything.over_cap == 0
    capped = transcript_candidates(path, ExtractorSettings(max_per_transcript=2, scorer="rules"))
    assert len(capped.entries) == 2 and capped.over_cap == len(RULES) - 2


def test_extract_reports_what_the_cap_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--dir", str(tmp_path), "init"]) == 0
    settings = tmp_path / ".memdesk/settings.toml"
    settings.write_text(
        settings.read_text("utf-8") + '\n[extractor]\nmax_per_transcript = 2\nscorer = "rules"\n',
        "utf-8",
    )
    path = write_transcript(tmp_path / "t.jsonl")
    capsys.readouterr()
    assert main(["--dir", str(tmp_path), "extract", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["added"]) == 2
    assert report["over_cap"] == 3 and report["files"][0]["over_cap"] == 3
    assert report["max_per_transcript"] == 2
    # Reading the same file again queues nothing new (not the next best three).
    assert main(["--dir", str(tmp_path), "extract", str(path)]) == 0
    out = capsys.readouterr().out
    assert "added 0 candidate(s)" in out
    assert "3 left out over the per-transcript cap ([extractor] max_per_transcript = 2)" in out


def test_the_cap_holds_across_incremental_reads_of_a_watched_file(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    settings = tmp_path / ".memdesk/settings.toml"
    settings.write_text(
        settings.read_text("utf-8") + '\n[extractor]\nmax_per_transcript = 3\nscorer = "rules"\n',
        "utf-8",
    )
    path = tmp_path / "session.jsonl"
    path.write_text(json.dumps({"role": "user", "content": RULES[0]}) + "\n", "utf-8")
    first = ingest_path(store, path)
    assert len(first.added) == 1
    with path.open("a", encoding="utf-8") as handle:
        for rule in RULES[1:]:
            handle.write(json.dumps({"role": "user", "content": rule}) + "\n")
    second = ingest_path(store, path)
    assert len(second.added) == 2 and second.over_cap == 2


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ({"max_per_transcript": 0}, "extractor.max_per_transcript"),
        ({"max_per_transcript": "ten"}, "extractor.max_per_transcript"),
        ({"scorer": "llm"}, "extractor.scorer"),
        ({"cap_per_message": -1}, "extractor.cap_per_message"),
        ({"cap_per_message": "more"}, "extractor.cap_per_message"),
    ],
)
def test_bad_cap_or_scorer_settings_are_named(table: dict, field: str) -> None:
    from memdesk.core.context.settings import SettingsError
    from memdesk.core.extract.settings import parse_extractor

    with pytest.raises(SettingsError, match=field.replace(".", r"\.")):
        parse_extractor(table)
    defaults = parse_extractor({})
    assert (defaults.max_per_transcript, defaults.scorer) == (30, "learned")


def test_a_long_conversation_may_queue_more_than_max_per_transcript() -> None:
    settings = ExtractorSettings(max_per_transcript=30, cap_per_message=0.3)
    assert settings.transcript_cap(0) == 30 and settings.transcript_cap(100) == 30
    assert settings.transcript_cap(160) == 48
    assert ExtractorSettings(cap_per_message=0).transcript_cap(1000) == 30


def write_conversation(path: Path, rules: list[str], filler: int) -> None:
    """The rules, then `filler` short exchanges (person and assistant messages)."""
    lines = [json.dumps({"role": "user", "content": rule}) for rule in rules]
    for index in range(filler):
        lines.append(json.dumps({"role": "assistant", "content": f"Step {index} done."}))
        lines.append(json.dumps({"role": "user", "content": "ok"}))
    path.write_text("\n".join(lines) + "\n", "utf-8")


def test_the_cap_grows_with_the_conversation_and_is_reported(tmp_path: Path) -> None:
    short, long = tmp_path / "short.jsonl", tmp_path / "long.jsonl"
    write_conversation(short, RULES, 0)
    write_conversation(long, RULES, 10)  # 25 messages of the conversation
    settings = ExtractorSettings(max_per_transcript=2, cap_per_message=0.2, scorer="rules")
    few = transcript_candidates(short, settings)
    assert (few.cap, len(few.entries), few.over_cap) == (2, 2, 3)
    more = transcript_candidates(long, settings)
    assert (more.cap, len(more.entries), more.over_cap) == (5, 5, 0)


def test_the_grown_cap_counts_the_conversation_across_incremental_reads(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    settings = tmp_path / ".memdesk/settings.toml"
    settings.write_text(
        settings.read_text("utf-8")
        + '\n[extractor]\nmax_per_transcript = 1\ncap_per_message = 0.25\nscorer = "rules"\n',
        "utf-8",
    )
    path = tmp_path / "session.jsonl"
    write_conversation(path, RULES[:1], 3)  # 7 messages: cap 2
    assert len(ingest_path(store, path).added) == 1
    with path.open("a", encoding="utf-8") as handle:
        for rule in RULES[1:]:  # 12 messages read in all: cap 3, one more to queue
            handle.write(json.dumps({"role": "user", "content": rule}) + "\n")
    second = ingest_path(store, path)
    assert len(second.added) == 2 and second.over_cap == 2
