"""The watcher's way into core ingestion (core/live_ingest.py): memory-file lines and
sources in one call, problems as lines naming the file, what to watch, and the typed
settings the caller holds."""

from __future__ import annotations

import json
from pathlib import Path

from memdesk.core.extract.settings import SourcesSettings
from memdesk.core.live_ingest import WatchedChanges, ingest_changes, watch_plan
from memdesk.core.settings import load
from memdesk.core.store import Store

NOTE = {"summary": "The API server listens on port 8080", "kind": "project"}


def drop_in_inbox(store: Store, name: str, record: dict[str, str]) -> Path:
    inbox = store.meta_dir / "inbox"
    inbox.mkdir(exist_ok=True)
    dropped = inbox / name
    dropped.write_text(json.dumps(record) + "\n", "utf-8")
    return dropped


def test_memory_md_lines_and_an_inbox_file_become_candidates(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    (tmp_path / "MEMORY.md").write_text("# Memory\n\n- Deploys go through `make ship`\n")
    dropped = drop_in_inbox(store, "notes.jsonl", NOTE)
    report = ingest_changes(store, WatchedChanges(memory_md=True, inbox={dropped}))
    summaries = {e.summary for e in report.fresh}
    assert any("make ship" in s for s in summaries)
    assert "The API server listens on port 8080" in summaries
    assert report.problems == []
    assert {e.id for e in report.fresh} <= {e.id for e in store.entries()}


def test_a_vanished_file_is_skipped_and_a_bad_one_is_a_line(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    inbox = store.meta_dir / "inbox"
    inbox.mkdir(exist_ok=True)
    binary = inbox / "blob.jsonl"
    binary.write_bytes(b"\x00\x01\x02" * 100)
    report = ingest_changes(store, WatchedChanges(inbox={inbox / "gone.jsonl", binary}))
    assert report.fresh == []
    assert report.problems == ["blob.jsonl: not a text file (binary content): skipped"]


def test_watch_plan_follows_sources(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    assert watch_plan(store).inbox is True
    plan = watch_plan(store, SourcesSettings(("logs/*.jsonl",), False))
    assert plan.transcript_globs == ["logs/*.jsonl"] and plan.inbox is False
    assert plan.memory_files == []


def test_a_bad_extractor_table_reads_nothing_until_it_is_fixed(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    dropped = drop_in_inbox(store, "notes.jsonl", NOTE)
    store.settings_path.write_text('[extractor]\nuse = "magic"\n', "utf-8")
    report = ingest_changes(store, WatchedChanges(inbox={dropped}))
    assert report.fresh == [] and store.entries() == []
    (line,) = report.problems
    assert line.startswith(f"notes.jsonl: not read: {store.settings_path}: extractor.use")

    store.settings_path.write_text('[extractor]\nuse = "heuristic"\n', "utf-8")
    held = load(store.root)  # what a desk holds, passed in rather than read again
    report = ingest_changes(store, WatchedChanges(inbox={dropped}), settings=held)
    assert [e.summary for e in report.fresh] == [NOTE["summary"]]
    assert report.problems == []
