"""ingest_path(): incremental reading of inbox files and transcript globs."""

from __future__ import annotations

import json
import os
from pathlib import Path

from memdesk.core.extract.inbox import (
    ingest_path,
    ingest_sources,
    is_source,
    load_state,
    source_files,
)
from memdesk.core.store import Store
from memdesk.core.trust import allow, requests


def line(text: str, role: str = "user", session: str = "s1") -> str:
    return (
        json.dumps({"role": role, "content": text, "session_id": session}, ensure_ascii=False)
        + "\n"
    )


def settings(root: Path, extra: str) -> None:
    path = root / ".memdesk/settings.toml"
    path.write_text(path.read_text("utf-8") + "\n" + extra + "\n", "utf-8")


def test_appended_transcript_is_read_from_where_it_stopped(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    transcript = tmp_path / "logs" / "session.jsonl"
    transcript.parent.mkdir()
    transcript.write_text(line("记住：测试库的名字必须是 tidepool_test"), "utf-8")
    first = ingest_path(store, transcript)
    assert [e.summary for e in first.added] == ["测试库的名字必须是 tidepool_test"]
    assert first.added[0].source.locator.endswith("session.jsonl:1")
    state = load_state(store)["logs/session.jsonl"]
    assert state["offset"] == transcript.stat().st_size and state["line"] == 1

    again = ingest_path(store, transcript)
    assert again.unchanged and again.added == []

    with transcript.open("a", encoding="utf-8") as handle:
        handle.write(line("remember: releases are manual only"))
        handle.write('{"role": "user", "content": "记住：半行')  # still being written
    second = ingest_path(store, transcript)
    assert second.from_offset == first.to_offset
    assert [e.summary for e in second.added] == ["releases are manual only"]
    assert second.added[0].source.locator.endswith("session.jsonl:2")
    with transcript.open("a", encoding="utf-8") as handle:
        handle.write('写完了：部署用户是 gwadmin"}\n')
    third = ingest_path(store, transcript)
    assert [e.summary for e in third.added] == ["半行写完了：部署用户是 gwadmin"]
    assert len(store.entries()) == 3


def test_a_replaced_file_is_read_again_and_deduped(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        line("记住：测试库的名字必须是 tidepool_test")
        + line("remember: deploys go via the jump host"),
        "utf-8",
    )
    assert len(ingest_path(store, transcript).added) == 2
    transcript.unlink()
    transcript.write_text(
        line("记住：测试库的名字必须是 tidepool_test"), "utf-8"
    )  # shorter, new inode
    result = ingest_path(store, transcript)
    assert result.from_offset == 0 and result.added == [] and result.duplicates == 1


def test_inbox_files_and_candidate_records(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    inbox = tmp_path / ".memdesk" / "inbox"
    (inbox / "cands.jsonl").write_text(
        json.dumps(
            {"summary": "报表导出格式用 Parquet，不用 CSV", "kind": "decision", "scope": "project"},
            ensure_ascii=False,
        )
        + "\n",
        "utf-8",
    )
    (inbox / "2025-06-05.md").write_text("# 2025-06-05\n- 记住：网关只能通过跳板机连接\n", "utf-8")
    assert is_source(store, inbox / "cands.jsonl")
    results = ingest_sources(store)
    added = {e.summary: e for r in results for e in r.added}
    assert added["报表导出格式用 Parquet，不用 CSV"].kind == "decision"
    assert added["报表导出格式用 Parquet，不用 CSV"].source.origin == "inbox"
    assert "网关只能通过跳板机连接" in added
    assert all(r.unchanged for r in ingest_sources(store))


def test_transcript_globs_from_settings(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "a.jsonl").write_text(
        line("remember: the S3 bucket is tidal-reports-prod"), "utf-8"
    )
    (tmp_path / "sessions" / "ignored.txt").write_text(
        "User: remember: not matched by the glob\n", "utf-8"
    )
    settings(tmp_path, '[sources]\ntranscripts = ["sessions/*.jsonl"]\ninbox = false')
    assert [p.name for p in source_files(store)] == ["a.jsonl"]
    assert is_source(store, tmp_path / "sessions" / "a.jsonl")
    assert not is_source(store, tmp_path / "sessions" / "ignored.txt")
    [result] = ingest_sources(store)
    assert [e.summary for e in result.added] == ["the S3 bucket is tidal-reports-prod"]


def test_failing_plugin_does_not_advance_the_offset(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(line("remember: the staging DB is tidepool_stage"), "utf-8")
    settings(tmp_path, '[extractor]\ncommand = ["/nonexistent/llm-extract"]')
    allow(tmp_path, requests(store.settings, tmp_path))  # the person allowed it here
    result = ingest_path(store, transcript)
    assert result.error and result.added == []
    assert load_state(store) == {} and store.entries() == []
    settings_file = tmp_path / ".memdesk/settings.toml"
    settings_file.write_text(
        settings_file.read_text("utf-8").replace('command = ["/nonexistent/llm-extract"]', ""),
        "utf-8",
    )
    retry = ingest_path(store, transcript)
    assert [e.summary for e in retry.added] == ["the staging DB is tidepool_stage"]


def test_malformed_lines_are_reported(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{oops\n" + line("remember: releases are manual only"), "utf-8")
    result = ingest_path(store, transcript)
    assert result.skipped_lines == 1 and "t.jsonl:1" in result.warnings[0]
    assert len(result.added) == 1


def test_missing_path_is_a_no_op(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    result = ingest_path(store, tmp_path / "gone.jsonl")
    assert result.added == [] and not result.error
    assert not os.path.exists(tmp_path / ".memdesk" / "ingest_state.json")


def test_binary_files_in_the_inbox_are_skipped(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    image = tmp_path / ".memdesk" / "inbox" / "screenshot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    result = ingest_path(store, image)
    assert result.added == [] and "binary" in result.error
    assert store.entries() == []


def test_bad_settings_are_reported_not_raised(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(line("remember: releases are manual only"), "utf-8")
    settings(tmp_path, "[extractor]\ntimeout = 0")
    result = ingest_path(store, transcript)
    assert "extractor.timeout" in result.error and result.added == []


def test_watch_roots_cover_the_inbox_and_glob_folders(tmp_path: Path) -> None:
    from memdesk.core.extract.inbox import watch_roots

    store = Store.init(tmp_path)
    (tmp_path / "logs" / "a").mkdir(parents=True)
    settings(tmp_path, '[sources]\ntranscripts = ["logs/a/*.jsonl", "logs/**/*.md"]')
    assert watch_roots(store) == [
        (tmp_path / "logs").resolve(),  # covers logs/a too
        (tmp_path / ".memdesk" / "inbox").resolve(),
    ]


def test_watch_roots_for_a_single_file_is_its_folder(tmp_path: Path) -> None:
    from memdesk.core.extract.inbox import watch_roots

    store = Store.init(tmp_path)
    settings(tmp_path, '[sources]\ntranscripts = ["notes.md"]\ninbox = false')
    assert watch_roots(store) == [tmp_path.resolve()]
