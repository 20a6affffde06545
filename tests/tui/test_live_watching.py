"""Live watching: files changed by others show up in the open app."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memdesk.core.store import Store
from memdesk.tui.watcher import PathClassifier, WatchedChanges
from tui_helpers import SIZE, make_app, ready, wait_for

pytestmark = pytest.mark.anyio


def summaries(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.summary for e in app.screen.rows]


async def test_external_append_to_memory_md_becomes_a_candidate_row(store: Store) -> None:
    root = store.root
    app = make_app(store, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        with (root / "MEMORY.md").open("a", encoding="utf-8") as f:
            f.write("- remember: the docs site is built with mdBook 0.4\n")
        await wait_for(
            pilot, lambda: "remember: the docs site is built with mdBook 0.4" in summaries(app)
        )
        # and a notification said so
        assert any("new candidate" in (n.title or "") for n in app._notifications)
    data = (root / ".memdesk" / "entries").glob("*.toml")
    assert any("mdBook 0.4" in p.read_text("utf-8") for p in data)


async def test_atomic_save_by_another_tool_arrives_as_a_move(store: Store) -> None:
    root = store.root
    app = make_app(store, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        text = (root / "MEMORY.md").read_text(
            "utf-8"
        ) + "- 文档站点用 mdBook 构建，不用 Docusaurus\n"
        tmp = root / ".MEMORY.md.swp-tmp"
        tmp.write_text(text, "utf-8")
        os.replace(tmp, root / "MEMORY.md")
        await wait_for(pilot, lambda: "文档站点用 mdBook 构建，不用 Docusaurus" in summaries(app))


async def test_entry_file_edited_on_disk_is_reloaded(store: Store) -> None:
    root = store.root
    app = make_app(store, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        Store.open(root).edit("cand-001", {"confidence": "low"}, actor="agent")
        await wait_for(
            pilot,
            lambda: next(e for e in app.screen.rows if e.id == "cand-001").confidence == "low",
        )


def test_paths_are_classified_and_temp_files_ignored(tmp_path: Path) -> None:
    classifier = PathClassifier(
        tmp_path, ["transcripts/*.jsonl", str(tmp_path / "elsewhere/*/*.jsonl")]
    )
    changes = WatchedChanges()
    for name in (
        "MEMORY.md",
        ".memdesk/entries/a.toml",
        ".memdesk/entries/.memdesk-tmp-x1",
        ".memdesk/inbox/chat.json",
        "transcripts/s1.jsonl",
        "transcripts/notes.txt",
        "src/main.rs",
        "elsewhere/agent/s2.jsonl",
    ):
        classifier.add(changes, str(tmp_path / name))
    assert changes.memory_md
    assert changes.entries == {tmp_path / ".memdesk/entries/a.toml"}
    assert changes.inbox == {tmp_path / ".memdesk/inbox/chat.json"}
    assert changes.transcripts == {
        tmp_path / "transcripts/s1.jsonl",
        tmp_path / "elsewhere/agent/s2.jsonl",
    }


def test_bursts_are_coalesced_and_the_first_event_is_not_delayed(tmp_path: Path) -> None:
    import threading

    reports: list[WatchedChanges] = []
    got = threading.Event()

    def on_changes(changes: WatchedChanges) -> None:
        reports.append(changes)
        got.set()

    from memdesk.tui.watcher import Watcher

    watcher = Watcher(tmp_path, on_changes, coalesce=0.2)
    watcher.note(str(tmp_path / "MEMORY.md"))
    assert len(reports) == 1 and reports[0].memory_md  # reported at once
    got.clear()
    for i in range(20):  # a burst inside the window
        watcher.note(str(tmp_path / ".memdesk" / "entries" / f"e{i}.toml"))
    assert got.wait(5)
    assert len(reports) == 2 and len(reports[1].entries) == 20  # one report for the burst
    watcher.stop()


async def test_a_transcript_dropped_in_the_inbox_becomes_candidates(store: Store) -> None:
    import json

    root = store.root
    app = make_app(store, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        messages = [
            {"role": "user", "content": "记住：预览服务器的端口改成 4400 了，4317 不再使用"},
            {"role": "assistant", "content": "好的。"},
        ]
        drop = root / ".memdesk" / "inbox" / "chat.jsonl"
        drop.write_text("\n".join(json.dumps(m, ensure_ascii=False) for m in messages) + "\n")
        await wait_for(pilot, lambda: any("4400" in s for s in summaries(app)), timeout=20)
