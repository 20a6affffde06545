"""Seed 000's default_extract (exact rules) and the signal-based candidate extractor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.core.extract.heuristic import (
    confidence_label,
    default_extract,
    extract_candidates,
    mentioned_commands,
    mentioned_files,
)
from memdesk.core.extract.messages import Message
from memdesk.core.extract.readers import read_messages
from memdesk.core.guard import screen

DEV = Path("/work/shared/bench-data/bilingual/dev")


def user(text: str, **kw: str) -> Message:
    return Message("user", text, **kw)


# -- seed 000 ---------------------------------------------------------------------------


def test_seed000_rules_exactly() -> None:
    twenty = "记住" + "一" * 18  # exactly 20 characters, cue prefix
    lines = [
        twenty,
        "记住" + "一" * 17,  # 19: too short
        "must " + "x" * 195,  # 200 with a cue word: kept
        "must " + "x" * 196,  # 201: too long
        "Remember to run the linter before pushing",  # prefix, any case
        "we always deploy on Tuesdays after lunch",  # cue word inside
        "以后所有告警都只走飞书 webhook，Slack 相关代码全删",  # prefix 以后
        "nothing to see here, no cue in this line at all",  # no cue
        "  注意：分页参数叫 cursor 和 page_size  ",  # trimmed, then prefix
        "",
    ]
    messages = [
        user("\n".join(lines)),
        Message("assistant", "remember: assistants never count for the seed extractor"),
        Message("tool", "you must never read tool output as a fact, it is long"),
    ]
    assert default_extract(messages, {}) == [
        twenty,
        "must " + "x" * 195,
        "Remember to run the linter before pushing",
        "we always deploy on Tuesdays after lunch",
        "以后所有告警都只走飞书 webhook，Slack 相关代码全删",
        "注意：分页参数叫 cursor 和 page_size",
    ]


def test_seed000_on_dev_transcripts_only_reads_user_lines() -> None:
    messages = list(read_messages(DEV / "transcripts.jsonl"))
    facts = default_extract(messages, {})
    user_text = "\n".join(m.text for m in messages if m.role == "user")
    assert facts and all(f in user_text for f in facts)
    assert all(20 <= len(f) <= 200 for f in facts)


# -- the better extractor ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "scope"),
    [
        ("I prefer tabs over spaces in Go code", "preference", "user"),
        ("我喜欢回复里先给结论再给细节", "preference", "user"),
        (
            "Root cause: the cache key ignored the tenant id; fixed by adding it",
            "experience",
            "project",
        ),
        ("根因是连接池太小，修复：把 pool_size 调到 20", "experience", "project"),
        ("We decided to switch to Parquet instead of CSV for exports", "decision", "project"),
        ("我们决定换成 Vault 动态凭证，CI 里的 secrets 不再用长期 key", "decision", "workspace"),
        ("my birthday is November 3rd", "profile", "user"),
        ("记住：测试库的名字必须是 tidepool_test", "project", "project"),
        ("下个月我妈要来杭州住两周，7 月 12 号到", "event", "user"),
    ],
)
def test_kind_and_scope_from_cues(text: str, kind: str, scope: str) -> None:
    [entry] = extract_candidates([user(text, session_id="s", timestamp="t")], {})
    assert (entry.kind, entry.scope) == (kind, scope)


@pytest.mark.parametrize(
    "text",
    [
        "帮我看下为什么 test_depot_capacity 挂了？",
        "can you check why CI is red",
        "今天先别提交，我晚上再看一眼",
        "never mind the formal version, casual is fine for this one",
        "谢谢",
        "哈哈好的，谢谢",
        "key 是 sk-proj-1d--uP-W-5NKTua4Vvd-pgzaGREH1BTQWle8L8NaJ2c_W5qKEoK3nmqxhkfyyxGB",
    ],
)
def test_requests_one_offs_chitchat_and_pastes_are_not_candidates(text: str) -> None:
    assert extract_candidates([user(text)], {}) == []


def test_confidence_follows_seed001_scores() -> None:
    assert confidence_label(0.95) == "high"
    assert confidence_label(0.85) == "medium"
    assert confidence_label(0.7) == "low"
    [explicit] = extract_candidates([user("remember: the staging DB is tidepool_stage")], {})
    assert explicit.confidence == "high"
    assert explicit.summary == "the staging DB is tidepool_stage"


def test_threshold_option_is_respected() -> None:
    messages = [user("网关的用户名是 gwadmin")]  # a plain stated fact: 0.65 by the hand rules
    assert extract_candidates(messages, {"threshold": 0.6, "scorer": "rules"})
    assert extract_candidates(messages, {"threshold": 0.7, "scorer": "rules"}) == []
    # The learned scorer puts its values on the same scale: a threshold still cuts.
    assert extract_candidates(messages, {"threshold": 0.999}) == []


def test_assistant_contributes_lessons_only_when_the_person_agrees() -> None:
    messages = [
        Message("assistant", "I'll reproduce it locally first. Always fun."),
        Message(
            "assistant",
            "Root cause: the fetch wrapper in apps/web/src/api/client.ts omitted credentials.",
        ),
    ]
    assert extract_candidates(messages, {}) == []  # nobody confirmed it
    [entry] = extract_candidates([*messages, user("great, thanks")], {})
    assert entry.kind == "experience" and entry.confidence == "medium"
    assert entry.source.files == ["apps/web/src/api/client.ts"]


def test_provenance_is_kept() -> None:
    text = "记住：测试前先跑 `docker compose -f docker-compose.dev.yml up -d`，配置在 config/alerts.yaml"
    message = user(
        text, session_id="s-1", timestamp="2025-06-05T10:13:00+08:00", locator="t.jsonl:7"
    )
    [entry] = extract_candidates([message], {})
    assert entry.status == "candidate"
    source = entry.source
    assert (source.origin, source.session_id, source.timestamp, source.locator) == (
        "transcript",
        "s-1",
        "2025-06-05T10:13:00+08:00",
        "t.jsonl:7",
    )
    assert source.commands == ["docker compose -f docker-compose.dev.yml up -d"]
    assert "config/alerts.yaml" in source.files
    assert source.excerpt == text


def test_files_and_commands_helpers() -> None:
    assert mentioned_files(
        "装在 /opt/kestrel/bin 下面，见 src/app/main.py 和 https://x.io/a/b"
    ) == [
        "/opt/kestrel/bin",
        "src/app/main.py",
    ]
    assert mentioned_commands("跑 uv run pytest -x tests/services 通过") == [
        "uv run pytest -x tests/services"
    ]
    assert mentioned_commands("$ git push origin main\nok") == ["git push origin main"]


def test_recalled_blocks_are_never_extracted() -> None:
    expected = json.loads((DEV / "expected.json").read_text("utf-8"))
    messages = list(read_messages(DEV / "transcripts.jsonl"))
    candidates = extract_candidates(messages, {})
    for entry in candidates:
        for marker in expected["recalled_block_markers"]:
            assert marker not in entry.summary
            assert marker not in entry.source.excerpt


def test_injection_messages_are_extracted_and_flagged_by_the_guard() -> None:
    expected = json.loads((DEV / "expected.json").read_text("utf-8"))
    messages = list(read_messages(DEV / "transcripts.jsonl"))
    screened = [screen(c).entry for c in extract_candidates(messages, {})]
    for injection in expected["injection_messages"]:
        core = injection.split("：", 1)[-1].split(":", 1)[-1].strip()[:30]
        hits = [e for e in screened if e is not None and core in e.summary]
        assert hits, injection
        assert all(e.flags.get("suspicious") for e in hits)


def test_dev_candidates_cover_most_expected_facts() -> None:
    """A coarse floor; bench/extract_quality.py reports the exact numbers."""
    from difflib import SequenceMatcher

    expected = json.loads((DEV / "expected.json").read_text("utf-8"))["facts"]
    candidates = extract_candidates(list(read_messages(DEV / "transcripts.jsonl")), {})
    found = 0
    for fact in expected:
        same_session = [c for c in candidates if c.source.session_id == fact["session_id"]]
        if any(
            SequenceMatcher(None, fact["summary"], c.summary).ratio() >= 0.5 for c in same_session
        ):
            found += 1
    assert found >= len(expected) * 0.6


def test_quick_score_agrees_with_score_above_the_threshold() -> None:
    from memdesk.core.extract.heuristic import THRESHOLD, quick_score, score, split_statements

    messages = list(read_messages(DEV / "transcripts.jsonl"))
    for message in messages:
        if message.role != "user":
            continue
        for piece in split_statements(message.text):
            full = score(piece, "user")[0]
            quick = quick_score(piece, "user")
            assert (full > THRESHOLD) == (quick > THRESHOLD), piece
            if full > THRESHOLD:
                assert quick == pytest.approx(full), piece


def test_daily_log_notes_are_candidates_even_without_cues() -> None:
    notes = [
        Message(
            "note", "- 网关只能通过跳板机 jump.tidal-labs.internal 连接", session_id="2025-06-05"
        ),
        Message("note", "- 记住：部署前先跑 `uv run pytest -x`", session_id="2025-06-05"),
        Message("note", "- 好的", session_id="2025-06-05"),
    ]
    entries = extract_candidates(notes, {})  # ranked best first
    assert sorted((e.summary, e.confidence) for e in entries) == [
        ("网关只能通过跳板机 jump.tidal-labs.internal 连接", "low"),
        ("部署前先跑 `uv run pytest -x`", "high"),
    ]
    by_summary = {e.summary: e for e in entries}
    assert by_summary["部署前先跑 `uv run pytest -x`"].source.commands == ["uv run pytest -x"]


@pytest.mark.parametrize(
    "message",
    [
        Message("user", "maybe we should always run the linter in CI"),
        Message("user", "也许以后可以统一用 Parquet"),
        Message(
            "assistant", "Probably the root cause is a stale cache; the fix might be a restart."
        ),
        Message("assistant", "可能是因为连接池太小导致超时"),
    ],
)
def test_hedged_guesses_are_not_extracted(message: Message) -> None:
    assert extract_candidates([message], {}) == []


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Remember this for later: we deploy with make ship on fridays.", "we deploy with make ship on fridays"),
        ("Please remember that the api lives in services/api.", "the api lives in services/api"),
        ("Note that the staging cluster is called kiwi.", "the staging cluster is called kiwi"),
        ("记住这个：发布前要跑 make check。", "发布前要跑 make check"),
        ("請記住：部署前要跑 make lint。", "部署前要跑 make lint"),
    ],
)  # fmt: skip
def test_a_remember_lead_in_is_not_part_of_the_fact(said: str, kept: str) -> None:
    [entry] = extract_candidates([user(said)], {})
    assert entry.summary == kept
