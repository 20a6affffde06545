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


async def test_appended_duplicate_and_contradiction_rows_carry_flags_until_resolved(
    store: Store,
) -> None:
    """The queue's flags are kept between changes (only pairs of changed entries are
    looked for again): a new row must still arrive flagged, and a flag must go when its
    pair is resolved, also on a row that did not change itself."""
    from memdesk.tui.screens.conflicts import ConflictsScreen
    from memdesk.tui.screens.queue import QueueScreen

    root = store.root
    app = make_app(store, watch=True)
    contra = "The preview server now listens on port 5173 instead, with reloads over the WebSocket."
    twin_1 = "Snapshot tests use insta; run cargo insta review before every commit."
    twin_2 = "snapshot tests use insta, so run cargo insta review before each commit"

    def row(summary: str):  # type: ignore[no-untyped-def]
        return next((e for e in app.screen.rows if e.summary == summary), None)

    def flags(summary: str) -> list[str]:
        entry = row(summary)
        return app.screen.flags.get(entry.id, []) if entry else []

    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        with (root / "MEMORY.md").open("a", encoding="utf-8") as f:
            f.write(f"- {contra}\n- {twin_1}\n- {twin_2}\n")
        await wait_for(pilot, lambda: all(row(s) for s in (contra, twin_1, twin_2)))
        id_1, id_2 = row(twin_1).id, row(twin_2).id
        await wait_for(pilot, lambda: "contradicts lan-008" in flags(contra))
        await wait_for(pilot, lambda: f"dup of {id_2}" in flags(twin_1))
        assert f"dup of {id_1}" in flags(twin_2)
        table = app.screen.query_one("#queue-table")
        assert "contradicts lan-008" in str(table.get_cell(row(contra).id, "flags"))

        # Reject one twin with `r`: the other keeps its row and loses that flag.
        app.screen.query_one("#queue-table").move_cursor(row=app.screen.rows.index(row(twin_2)))
        await pilot.press("r")
        await wait_for(pilot, lambda: row(twin_2) is None and f"dup of {id_2}" not in flags(twin_1))
        assert row(twin_1) is not None
        assert "dup of lan-020" in flags(twin_1)  # its other pair still stands
        assert str(table.get_cell(id_1, "flags")) == "dup of lan-020"

        # Dismiss the contradiction on the conflict screen: the row stays, unflagged.
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, ConflictsScreen))
        screen = app.screen
        contra_id = row_id_of(app, contra)
        target = ["lan-008", contra_id]
        await wait_for(pilot, lambda: any(item.ids == target for item in screen.items))
        for _ in range(len(screen.items)):
            if screen.selected is not None and screen.selected.ids == target:
                break
            await pilot.press("down")
        assert screen.selected is not None and screen.selected.ids == target
        await pilot.press("d")
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, QueueScreen))
        await wait_for(pilot, lambda: row(contra) is not None and flags(contra) == [])
        assert row(contra).id == contra_id


def row_id_of(app, summary: str) -> str:  # type: ignore[no-untyped-def]
    return next(e.id for e in app.services.candidates() if e.summary == summary)


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


async def test_the_desks_own_memory_md_render_is_not_ingested_again(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Approving rewrites MEMORY.md; the watcher reports that write, and core's policy
    recognises it as memdesk's own: no ingest pass. An agent's append still is read."""
    import memdesk.core.live_ingest as live_ingest

    root = store.root
    passes: list[int] = []
    real_ingest = store.ingest_memory_md

    def counted_ingest():  # type: ignore[no-untyped-def]
        passes.append(1)
        return real_ingest()

    store.ingest_memory_md = counted_ingest  # type: ignore[method-assign]
    looked: list[bool] = []
    real_changed = live_ingest.memory_files_changed

    def counted_changed(s: Store) -> bool:
        looked.append(real_changed(s))
        return looked[-1]

    monkeypatch.setattr(live_ingest, "memory_files_changed", counted_changed)
    first = store.get("cand-001")
    app = make_app(store, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: passes == [1])  # the catch-up pass on opening
        await pilot.press("a")  # approve: MEMORY.md is rewritten by memdesk
        await wait_for(pilot, lambda: f"- {first.summary}" in (root / "MEMORY.md").read_text())
        await wait_for(pilot, lambda: len(looked) >= 1)  # the watcher saw the write
        await pilot.pause(0.3)
        await app.workers.wait_for_complete()
        assert looked and not any(looked) and passes == [1]
        with (root / "MEMORY.md").open("a", encoding="utf-8") as f:
            f.write("- remember: the preview port is 4400\n")
        await wait_for(pilot, lambda: "remember: the preview port is 4400" in summaries(app))
        # An append arrives as several events (modified, closed): each is someone
        # else's change, so each may read the file; memdesk's own write was read by none.
        assert len(passes) >= 2 and looked[-1] is True
