"""flush(): seed 000's MemoryFlush against a real store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from memdesk.core.entry import Entry
from memdesk.core.extract.flush import flush
from memdesk.core.extract.messages import Message
from memdesk.core.store import Store


def store_at(tmp_path: Path) -> Store:
    return Store.init(tmp_path)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "lock"
    }


def test_flush_writes_candidates_and_emits_memory_flushed(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    seen: list[dict[str, Any]] = []
    messages = [
        Message("user", "记住：测试库的名字必须是 tidepool_test", session_id="s-7"),
        Message("user", "I prefer basedpyright over pyright for LSP"),
    ]
    result = flush(messages, tmp_path, listeners=[seen.append])
    assert not result.error
    assert [e.summary for e in result.added] == [
        "测试库的名字必须是 tidepool_test",
        "I prefer basedpyright over pyright for LSP",
    ]
    payload = result.payload
    assert payload is not None and seen == [payload]
    assert payload["count"] == 2 and payload["v"] == 1 and payload["session_id"] == "s-7"
    assert payload["facts"] == [e.summary for e in result.added]
    assert payload["file"] == "MEMORY.md" and payload["occurred_at"]
    journal = [
        json.loads(line)
        for line in (tmp_path / ".memdesk/journal.jsonl").read_text("utf-8").splitlines()
    ]
    events = [r for r in journal if r.get("op") == "memory_flushed"]
    assert len(events) == 1 and events[0]["payload"] == payload
    stored = {e.summary: e for e in store.entries()}
    assert stored["测试库的名字必须是 tidepool_test"].status == "candidate"
    assert stored["测试库的名字必须是 tidepool_test"].source.session_id == "s-7"


def test_flush_dedupes_by_sha256_against_the_store(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    store.add(Entry("测试库的名字必须是 tidepool_test"))
    result = flush([Message("user", "记住： 测试库的名字必须是  TIDEPOOL_test")], store=store)
    assert result.added == [] and result.duplicates == 1 and result.payload is None
    assert not any(
        json.loads(line).get("op") == "memory_flushed"
        for line in (tmp_path / ".memdesk/journal.jsonl").read_text("utf-8").splitlines()
    )


def test_flush_caps_at_max_facts_per_flush(tmp_path: Path) -> None:
    store_at(tmp_path)
    facts = [f"fact number {i} about the deploy pipeline" for i in range(15)]
    result = flush([Message("user", "x")], tmp_path, extract_fn=lambda m, o: facts)
    assert len(result.added) == 10 and result.over_cap == 5
    settings = tmp_path / ".memdesk/settings.toml"
    settings.write_text(
        settings.read_text("utf-8") + "\n[extractor]\nmax_facts_per_flush = 3\n", "utf-8"
    )
    more = [f"another fact {i} about the deploy pipeline" for i in range(5)]
    result = flush([Message("user", "x")], tmp_path, extract_fn=lambda m, o: more)
    assert len(result.added) == 3


def test_flush_refuses_secrets_and_recalled_blocks(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    answer = [
        "AWS_ACCESS_KEY_ID=AKIA2EX6H7CNDDFE6ZKD\nAWS_SECRET_ACCESS_KEY=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",
        "<agent_memory>\n- 用户叫林晓雯\n</agent_memory>",
        "deploy token is ghp_BcdB3fet3zU8zSpIBzVI92bkD1zGJ9j2dUZR for the CI bot",
    ]
    result = flush([Message("user", "x")], store=store, extract_fn=lambda m, o: answer)
    assert len(result.refused) == 2
    assert [e.summary for e in result.added] == [
        "deploy token is [REDACTED:github-token] for the CI bot"
    ]
    everything = b"".join(snapshot(tmp_path).values())
    assert b"AKIA2EX6H7CNDDFE6ZKD" not in everything and b"ghp_BcdB3fet3zU8" not in everything


def raises(messages: Any, opts: Any) -> Any:
    raise ValueError("LLM down")


@pytest.mark.parametrize(
    "fn", [raises, lambda m, o: {"error": "nope"}, lambda m, o: "garbage", lambda m, ctx, o: [None]]
)
def test_failing_extractor_leaves_the_store_untouched(tmp_path: Path, fn: Any) -> None:
    store = store_at(tmp_path)
    store.add(Entry("an existing fact about the project"))
    before = snapshot(tmp_path)
    called: list[Any] = []
    result = flush(
        [Message("user", "记住：这条不会被写入，因为提取器坏了")],
        store=store,
        extract_fn=fn,
        listeners=[called.append],
    )
    assert result.error and result.added == [] and called == []
    assert snapshot(tmp_path) == before


def test_a_broken_listener_does_not_break_the_flush(tmp_path: Path) -> None:
    def broken(payload: dict[str, Any]) -> None:
        raise RuntimeError("subscriber bug")

    result = flush([Message("user", "记住：部署用户是 gwadmin")], tmp_path, listeners=[broken])
    assert len(result.added) == 1


def test_flush_creates_the_store_when_missing(tmp_path: Path) -> None:
    result = flush([Message("user", "remember: releases are manual only")], tmp_path)
    assert (tmp_path / ".memdesk").is_dir() and len(result.added) == 1


def test_flush_accepts_plain_dicts(tmp_path: Path) -> None:
    result = flush(
        [
            {"role": "user", "content": "记住：发布必须手动点", "session_id": "s-1"},
            {"role": "assistant", "content": "ok"},
        ],
        tmp_path,
    )
    assert [e.summary for e in result.added] == ["发布必须手动点"]
    assert result.payload is not None and result.payload["session_id"] == "s-1"
    with pytest.raises(ValueError, match="message #0"):
        flush([{"hello": "world"}], tmp_path)


def test_a_store_refusal_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdesk.core.store import GuardRefused

    store = store_at(tmp_path)

    def refuse(*args: Any, **kwargs: Any) -> list[Entry]:
        raise GuardRefused(["a stricter guard said no"])

    monkeypatch.setattr(store, "add_many", refuse)
    seen: list[dict[str, Any]] = []
    result = flush(
        [Message("user", "记住：部署用户是 gwadmin")], store=store, listeners=[seen.append]
    )
    assert "stricter guard" in result.error and result.added == [] and result.payload is None
    assert seen == []
