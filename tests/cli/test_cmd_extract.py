"""`memdesk extract` and `memdesk flush` end to end, on the bilingual dev transcripts."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from memdesk.cli.main import main
from memdesk.core.store import Store

DEV = Path("/work/shared/bench-data/bilingual/dev")
EXPECTED = json.loads((DEV / "expected.json").read_text("utf-8"))


def all_files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and p.name != "lock"}


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    assert main(["--dir", str(tmp_path), "init"]) == 0
    return tmp_path


def test_extract_dev_transcripts_leaks_no_secret_anywhere(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["--dir", str(workdir), "extract", "--json", str(DEV / "transcripts.jsonl")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["added"]) >= 20
    for path, data in all_files(workdir).items():
        text = data.decode("utf-8", errors="replace")
        for secret in EXPECTED["secrets"]:
            assert secret not in text, f"{secret[:24]}... leaked into {path.relative_to(workdir)}"


def test_extract_flags_injections_and_never_reextracts_recalled_blocks(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--dir", str(workdir), "extract", str(DEV / "transcripts.jsonl")]) == 0
    entries = Store.open(workdir).entries()
    for injection in EXPECTED["injection_messages"]:
        core = injection.split("：", 1)[-1].split(":", 1)[-1].strip()[:30]
        hits = [e for e in entries if core in e.summary]
        assert hits and all(e.flags.get("suspicious") for e in hits), injection
    stored = "\n".join(
        p.read_text("utf-8", errors="replace")
        for p in (workdir / ".memdesk" / "entries").rglob("*")
        if p.is_file()
    )
    for marker in EXPECTED["recalled_block_markers"]:
        assert marker not in stored
    out = capsys.readouterr().out
    assert "[suspicious:" in out


def test_extract_keeps_provenance_and_kind(workdir: Path) -> None:
    assert main(["--dir", str(workdir), "extract", str(DEV / "transcripts.jsonl")]) == 0
    entries = {e.summary: e for e in Store.open(workdir).entries()}
    fact = entries[
        "测试库的名字必须是 tidepool_test，conftest 里有保护，连别的库会直接拒绝，防止误删开发数据"
    ]
    assert fact.status == "candidate" and fact.confidence == "high"
    assert fact.source.session_id == "9897d123-0c04-5e43-a6d0-d1af5671c092"
    assert fact.source.timestamp.startswith("2025-06-05T")
    assert fact.source.locator.endswith("transcripts.jsonl:5")
    assert fact.source.excerpt.startswith("哦对，要先起测试库")
    assert (
        entries[
            "I use basedpyright instead of pyright now, so always assume that when giving LSP advice"
        ].kind
        == "preference"
    )


def test_extract_is_idempotent(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--dir", str(workdir), "extract", str(DEV / "transcripts.jsonl")]) == 0
    count = len(Store.open(workdir).entries())
    capsys.readouterr()
    assert main(["--dir", str(workdir), "extract", str(DEV / "transcripts.jsonl")]) == 0
    assert len(Store.open(workdir).entries()) == count
    assert "added 0 candidate(s)" in capsys.readouterr().out


def test_dry_run_writes_nothing(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = all_files(workdir)
    assert (
        main(["--dir", str(workdir), "extract", "--dry-run", str(DEV / "transcripts.jsonl")]) == 0
    )
    out = capsys.readouterr().out
    assert "would add" in out and "tidepool_test" in out
    assert all_files(workdir) == before


def test_dry_run_works_without_a_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "--dir",
                str(tmp_path),
                "extract",
                "--dry-run",
                "--json",
                str(DEV / "transcripts.jsonl"),
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["dry_run"] is True
    assert not (tmp_path / ".memdesk").exists()


def test_failing_plugin_leaves_the_store_untouched_and_says_why(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = workdir / ".memdesk" / "settings.toml"
    settings.write_text(
        settings.read_text("utf-8") + '\n[extractor]\ncommand = ["false"]\n', "utf-8"
    )
    assert main(["--dir", str(workdir), "trust"]) == 0
    assert "allowed: extractor.command = false" in capsys.readouterr().out
    before = all_files(workdir)
    assert main(["--dir", str(workdir), "extract", str(DEV / "transcripts.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "extractor failed, nothing written" in err and "exit status 1" in err
    assert all_files(workdir) == before


def test_bad_extractor_setting_is_a_user_error(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = workdir / ".memdesk" / "settings.toml"
    settings.write_text(settings.read_text("utf-8") + "\n[extractor]\ntimeout = -1\n", "utf-8")
    assert main(["--dir", str(workdir), "extract", str(DEV / "transcripts.jsonl")]) == 1
    assert "extractor.timeout" in capsys.readouterr().err


def test_malformed_lines_warn_with_file_and_line(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = workdir / "bad.jsonl"
    bad.write_text(
        '{"role": "user", "content": "remember: releases are manual"}\nnot json\n', "utf-8"
    )
    assert main(["--dir", str(workdir), "extract", str(bad)]) == 0
    captured = capsys.readouterr()
    assert f"{bad}:2: malformed JSON" in captured.err
    assert "1 line(s) skipped" in captured.out


def test_flush_reads_messages_from_stdin(
    workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = [
        {"role": "user", "content": "记住：发布必须手动点，nightly 不自动发 release"},
        {"role": "assistant", "content": "好的"},
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(messages, ensure_ascii=False)))
    assert main(["--dir", str(workdir), "flush", "--session-id", "s-42", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["event"] == "memory_flushed"
    assert out["payload"]["count"] == 1 and out["payload"]["session_id"] == "s-42"
    jsonl = "\n".join(json.dumps(m, ensure_ascii=False) for m in messages)
    monkeypatch.setattr("sys.stdin", io.StringIO(jsonl))
    assert main(["--dir", str(workdir), "flush"]) == 0
    assert "flushed 0 fact(s); 1 duplicate(s)" in capsys.readouterr().out


def test_flush_rejects_non_messages(
    workdir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO('[{"hello": "world"}]'))
    assert main(["--dir", str(workdir), "flush"]) == 1
    assert "not a message" in capsys.readouterr().err
