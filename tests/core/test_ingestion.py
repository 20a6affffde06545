"""The watcher's way into core ingestion: memory-file lines and sources in one call,
problems as lines naming the file, and what to watch."""

from __future__ import annotations

import json
from pathlib import Path

from memdesk.core.extract.settings import SourcesSettings
from memdesk.core.ingestion import ingest_changes, watch_plan
from memdesk.core.store import Store


def test_memory_md_lines_and_an_inbox_file_become_candidates(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    (tmp_path / "MEMORY.md").write_text("# Memory\n\n- Deploys go through `make ship`\n")
    inbox = store.meta_dir / "inbox"
    inbox.mkdir(exist_ok=True)
    dropped = inbox / "notes.jsonl"
    record = {"summary": "The API server listens on port 8080", "kind": "project"}
    dropped.write_text(json.dumps(record) + "\n", "utf-8")
    report = ingest_changes(store, memory_files=True, sources=[dropped])
    summaries = {e.summary for e in report.added}
    assert any("make ship" in s for s in summaries)
    assert "The API server listens on port 8080" in summaries
    assert report.problems == []
    assert {e.id for e in report.added} <= {e.id for e in store.entries()}


def test_a_vanished_file_is_skipped_and_a_bad_one_is_a_line(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    inbox = store.meta_dir / "inbox"
    inbox.mkdir(exist_ok=True)
    binary = inbox / "blob.jsonl"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    report = ingest_changes(store, sources=[inbox / "gone.jsonl", binary])
    assert report.added == []
    assert report.problems == ["blob.jsonl: not a text file (binary content): skipped"]


def test_watch_plan_follows_sources(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    assert watch_plan(store).inbox is True
    plan = watch_plan(store, SourcesSettings(("logs/*.jsonl",), False))
    assert plan.transcript_globs == ("logs/*.jsonl",) and plan.inbox is False
    assert plan.memory_files == ()
