"""Live ingestion (core's policy behind the desk's file watcher): memdesk's own writes
of a memory file are not read back; anyone else's change is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.live_ingest import WatchedChanges, ingest_changes, watch_plan
from memdesk.core.memfiles.adopt import adopt
from memdesk.core.store import Store
from memfiles_fixtures import NESTED

MEMORY_CHANGED = WatchedChanges(memory_md=True)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store.init(tmp_path)
    first = store.add(Entry(summary="Run the tests with pytest -x before each commit"))
    store.approve([first.id])  # MEMORY.md is rendered: memdesk's own write
    return store


def count_passes(store: Store) -> list[int]:
    """Calls of the memory-file ingest pass, counted on this store object."""
    calls: list[int] = []
    real = store.ingest_memory_md

    def counted() -> list[Entry]:
        calls.append(1)
        return real()

    store.ingest_memory_md = counted  # type: ignore[method-assign]
    return calls


def test_a_rendered_memory_md_is_not_ingested_again(store: Store) -> None:
    memory_md = store.root / "MEMORY.md"
    assert "pytest -x" in memory_md.read_text("utf-8")
    passes = count_passes(store)
    state_before = store.memory_file.state_path.stat().st_mtime_ns

    report = ingest_changes(store, MEMORY_CHANGED)

    assert report.fresh == [] and not report.memory_files_read
    assert passes == []  # no ingest pass at all, not just no candidate
    assert store.memory_file.state_path.stat().st_mtime_ns == state_before
    assert [e.status for e in store.entries()] == ["confirmed"]


def test_every_render_is_recognised_also_one_made_by_another_process(store: Store) -> None:
    other = Store.open(store.root)  # a CLI command next to the desk
    second = other.add(Entry(summary="Docs are built with mdBook 0.4"))
    other.approve([second.id])
    assert "mdBook" in (store.root / "MEMORY.md").read_text("utf-8")
    passes = count_passes(store)
    assert not ingest_changes(store, MEMORY_CHANGED).memory_files_read
    assert passes == []


def test_an_agents_append_after_the_render_is_read(store: Store) -> None:
    passes = count_passes(store)
    with open(store.root / "MEMORY.md", "a", encoding="utf-8") as handle:
        handle.write("- The staging database is reset every Monday\n")
    report = ingest_changes(store, MEMORY_CHANGED)
    assert report.memory_files_read and passes == [1]
    assert [e.summary for e in report.fresh] == ["The staging database is reset every Monday"]
    # Read once: the next report of the same file (nothing new) reads it again, finds nothing.
    assert ingest_changes(store, MEMORY_CHANGED).fresh == []


def test_an_atomic_save_by_another_tool_is_read(store: Store) -> None:
    memory_md = store.root / "MEMORY.md"
    text = memory_md.read_text("utf-8") + "- Releases go out on Thursdays\n"
    tmp = store.root / "MEMORY.md.editor-tmp"
    tmp.write_text(text, "utf-8")
    os.replace(tmp, memory_md)
    report = ingest_changes(store, MEMORY_CHANGED)
    assert [e.summary for e in report.fresh] == ["Releases go out on Thursdays"]


def test_catch_up_reads_even_an_untouched_file(store: Store) -> None:
    passes = count_passes(store)
    report = ingest_changes(store, MEMORY_CHANGED, catch_up=True)
    assert report.memory_files_read and passes == [1] and report.fresh == []


def test_a_managed_file_memdesk_rewrote_is_not_read_back(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(NESTED, "utf-8")
    store = Store.init(tmp_path)
    adopt(store, path)
    passes = count_passes(store)
    assert not ingest_changes(store, MEMORY_CHANGED).memory_files_read  # adopted as it is

    with open(path, "a", encoding="utf-8") as handle:
        handle.write("- Deploys need a green CI run\n")
    (candidate,) = ingest_changes(store, MEMORY_CHANGED).fresh
    assert passes == [1]
    store.approve([candidate.id])  # memdesk writes the line into the file
    assert "Deploys need a green CI run" in path.read_text("utf-8")
    assert not ingest_changes(store, MEMORY_CHANGED).memory_files_read
    assert passes == [1]


def test_the_watch_plan_follows_the_settings_and_the_managed_files(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("# Notes\n\n- Use uv, not pip\n", "utf-8")
    store = Store.init(tmp_path)
    adopt(store, path)
    with open(store.settings_path, "a", encoding="utf-8") as handle:
        handle.write('\n[sources]\ntranscripts = "logs/*.jsonl"\ninbox = false\n')
    plan = watch_plan(store)
    assert plan.transcript_globs == ["logs/*.jsonl"] and plan.inbox is False
    assert plan.memory_files == [path]
    store.settings_path.write_text("[sources]\ninbox = 3\n", "utf-8")
    broken = watch_plan(store)  # ingestion names the error; watching keeps the defaults
    assert broken.transcript_globs == [] and broken.inbox is True


def test_a_catch_up_with_nothing_appended_does_not_load_the_guard(store: Store) -> None:
    """The desk's start-up catch-up usually finds nothing: it must not spend ≈ 0.5 s of
    CPU compiling the guard's patterns for it (checked in a fresh interpreter)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from memdesk.core.store import Store\n"
        "from memdesk.core.live_ingest import WatchedChanges, ingest_changes\n"
        f"store = Store.open({str(store.root)!r})\n"
        "report = ingest_changes(store, WatchedChanges(memory_md=True), catch_up=True)\n"
        "print(len(report.fresh), 'memdesk.core.guard' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False"]
