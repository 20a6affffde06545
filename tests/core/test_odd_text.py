"""Lone surrogates, odd timestamps and non-UTF-8 arguments never crash a verb."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from memdesk.core.entry import Entry, clean_text, text_hash
from memdesk.core.entry_files import read_entry_file
from memdesk.core.extract.inbox import ingest_sources
from memdesk.core.extract.messages import ReadStats
from memdesk.core.extract.readers import read_messages
from memdesk.core.store import Store

BROKEN_EMOJI = "We decided to always use pnpm instead of npm \ud83d because it is faster"


def test_clean_text_keeps_pairs_and_replaces_lone_surrogates() -> None:
    assert clean_text("ok \ud83d\ude00") == "ok 😀"
    assert clean_text("caf\udce9") == "caf\ufffd"
    assert clean_text("plain") == "plain"
    assert text_hash("x \ud83d") == text_hash("x \ufffd")


def test_entry_with_lone_surrogate_is_written_and_read_back(store: Store) -> None:
    added = store.add(Entry(summary=BROKEN_EMOJI, facts=["fact \udc80"]), actor="cli")
    item = read_entry_file(store.entries_dir / f"{added.id}.toml", store.root)
    assert isinstance(item, Entry)
    assert "\ufffd" in item.summary and item.facts == ["fact \ufffd"]


def test_inbox_file_with_lone_surrogate_does_not_block_the_others(store: Store) -> None:
    first = store.inbox_dir / "a.jsonl"
    second = store.inbox_dir / "b.jsonl"
    # json.dumps writes the lone surrogate as an escape, exactly as agents' logs do.
    first.write_text(json.dumps({"role": "user", "content": BROKEN_EMOJI}) + "\n")
    second.write_text(
        json.dumps({"role": "user", "content": "Remember: the deploy runs make release"}) + "\n"
    )
    results = ingest_sources(store)
    summaries = {e.summary for r in results for e in r.added}
    assert any("pnpm" in s for s in summaries), summaries
    assert any("make release" in s for s in summaries), summaries


def _export(tmp_path: Path, times: list[object]) -> Path:
    mapping = {
        f"n{i}": {
            "message": {
                "author": {"role": "user"},
                "create_time": when,
                "content": {"parts": [f"We decided to keep the release branch number {i}"]},
            }
        }
        for i, when in enumerate(times)
    }
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([{"title": "t", "mapping": mapping}]))
    return path


def test_chatgpt_export_with_huge_and_mixed_times(tmp_path: Path) -> None:
    path = _export(tmp_path, [1e300, "2024-01-01", None, 1_700_000_000, -5, True])
    stats = ReadStats(str(path))
    messages = list(read_messages(path, stats=stats))
    assert len(messages) == 6
    by_number = {m.text.rsplit(" ", 1)[1]: m.timestamp for m in messages}
    assert by_number["0"] == ""  # 1e300 is no time
    assert by_number["3"].startswith("2023-11-14")
    assert by_number["1"] == "2024-01-01"


def test_wrong_shaped_record_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    records = [
        {"type": "user", "message": {"role": "user", "content": 5}, "sessionId": "s"},
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": 7}]}},
        {"type": "user", "message": {"role": ["user"], "content": {"a": 1}}},
        {
            "type": "user",
            "message": {"role": "user", "content": "Remember: tests run with pytest -q"},
            "sessionId": "s",
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    stats = ReadStats(str(path))
    texts = [m.text for m in read_messages(path, stats=stats)]
    assert "Remember: tests run with pytest -q" in texts


def test_add_with_non_utf8_argument(tmp_path: Path) -> None:
    Store.init(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "memdesk.cli", "--dir", str(tmp_path), "add", b"caf\xe9 opens at 9"],
        capture_output=True,
    )
    assert result.returncode == 0, result.stderr
    entries = Store.open(tmp_path).entries()
    assert [e.summary for e in entries] == ["caf\ufffd opens at 9"]


def test_every_text_field_is_cleaned(tmp_path: Path) -> None:
    from memdesk.core.entry_files import entry_to_toml

    entry = Entry.from_dict(
        {
            "summary": "s",
            "flags": {"suspicious\udc80": "why \ud83d"},
            "superseded_by": "m-1\udc80",
            "tags": ["t\udc80"],
            "section": ["Build \ud83d"],
            "source": {"origin": "o\udc80", "files": ["f\udc80"]},
        }
    )
    entry_to_toml(entry)  # encodes: no lone surrogate left anywhere
