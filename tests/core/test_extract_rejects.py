"""What is never a candidate: one test per rejection class, in both Chinese scripts."""

from __future__ import annotations

import pytest
from memdesk.core.extract.heuristic import extract_candidates
from memdesk.core.extract.messages import Message
from memdesk.core.extract.rejects import is_request, reject_reason
from memdesk.core.extract.sentences import Sentence


@pytest.mark.parametrize(
    ("text", "block", "reason"),
    [
        ("Setup", "heading", "heading"),
        ("| pnpm | 9.1 |", "table", "table"),
        ("Uses pnpm", "text", "fragment"),
        ("The fix is in `src/app", "text", "fragment"),
        ("The settings for the build are these:", "text", "heading"),
        ("2025-07-13 06:56:18 ERROR failed to connect to the database", "text", "log"),
        ("CLI stderr: [2025-07-13T06:56:18.016Z] [ERROR] Failed to decrypt content", "text", "log"),
        ('File "backend/app.py", line 5, in load_config', "text", "traceback"),
        ("Traceback (most recent call last): something broke", "text", "traceback"),
        ("at process.emit [as emit] (~/app/node_modules/x/index.js:12:5)", "text", "traceback"),
        ("const server = createServer(app);", "text", "code"),
        ("def handler(event, context): return None", "text", "code"),
        ("[Request interrupted by user for tool use]", "text", "marker"),
        ("<command-name>/clear</command-name>", "text", "marker"),
        ("Is the dev server on port 3000 or 3001?", "text", "question"),
        ("部署用户是不是 gwadmin 吗", "text", "question"),
        ("maybe we should always run the linter in CI", "text", "hedge"),
        ("my api key is [REDACTED:openai-key], remember it", "text", "secret"),
        ("remember my token is ghp_BcdB3fet3zU8zSpIBzVI92bkD1zGJ9j2dUZR for CI", "text", "secret"),
        # test runner and web server output pasted into a message
        ("FAILED backend/tests/test_api.py::test_health - AssertionError: 405", "text", "log"),
        ("The run ended with 3 failed, 3 passed, 3 warnings in 23.70s overall", "text", "log"),
        ('the api reports: INFO: 127.0.0.1:56261 - "OPTIONS /health HTTP/1.1" 405', "text", "log"),
        # a shell command continued on the next line, an opaque key or hash
        ("curl 'http://localhost:8000/api/v1/auth/login' \\ -H 'Accept: json' \\", "text", "code"),
        ("the build hash was Gu86YxuNMowRinQjLT+SFKb92HrPqtRBd97mxakZI6ks for now", "text", "code"),
    ],
)
def test_rejection_classes(text: str, block: str, reason: str) -> None:
    assert reject_reason(Sentence(text, block), "person") == reason


@pytest.mark.parametrize(
    "text",
    [
        "I'll now run the test suite to check the fix",
        "Let me look at the config in config/app.toml first",
        "Now editing both migrations to add the unique index",
        "Perfect, the build passes with Next.js 15.5.2 now",
        "我来看一下 go.mod 里的版本",
        "讓我檢查一下 go.mod 的設定",
        "Rubocop ran clean across all 35 files",
        "I see the issue - it is still trying to use the old path /session/stream/",
        "I've successfully created a fully functional TODO app using Next.js",
        "The TODO app is now ready for use with a clean architecture",
    ],
)
def test_assistant_narration_and_status_are_rejected(text: str) -> None:
    assert reject_reason(Sentence(text), "assistant") == "narration"


@pytest.mark.parametrize(
    "text",
    [
        "fix this",
        "can you check why the build is red",
        "please update the readme with the new steps",
        "帮我查一下部署脚本为什么失败",  # Simplified
        "幫我查一下部署腳本為什麼失敗",  # Traditional
        "請幫我看看這個錯誤",
        "麻烦把日志发我",
        "也請你幫我上網找看看 golang 最新版是幾版",
    ],
)
def test_one_task_requests_in_english_and_both_chinese_scripts(text: str) -> None:
    assert is_request(text)
    assert extract_candidates([Message("user", text)], {}) == []


@pytest.mark.parametrize(
    "text",
    [
        "please always run the linter before you commit",
        "以后帮我统一用 pnpm，不要用 npm",
        "以後幫我統一用 pnpm，不要用 npm",
    ],
)
def test_a_request_that_sets_a_lasting_rule_is_not_a_request(text: str) -> None:
    assert not is_request(text)


def test_a_redacted_secret_is_never_kept_even_when_asked_to_remember() -> None:
    messages = [
        Message("user", "my api key is [REDACTED:openai-key], remember it"),
        Message(
            "user",
            "remember: my api key is sk-proj-1d--uP-W-5NKTua4Vvd-pgzaGREH1BTQWle8L8NaJ2c_W5qK",
        ),
    ]
    assert extract_candidates(messages, {}) == []


def test_interrupt_marker_glued_to_the_persons_words_is_cut_out() -> None:
    text = "[Request interrupted by user for tool use]the auth command should not exist, always show a QR code on start instead"
    [entry] = extract_candidates([Message("user", text)], {})
    assert "interrupted" not in entry.summary
    assert entry.summary.startswith("the auth command should not exist")


def test_prose_naming_a_command_is_not_code() -> None:
    text = "Their example uses CURL: curl -X POST https://openrouter.ai/api/v1/completions \\"
    assert reject_reason(Sentence(text), "person") == ""
