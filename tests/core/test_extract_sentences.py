"""Sentence splitting: English, Chinese in both scripts, Markdown lists, glued parts."""

from __future__ import annotations

from memdesk.core.extract.sentences import split_sentences


def texts(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


def test_english_sentences_split_at_their_ends_only() -> None:
    text = (
        "We pin Python 3.12.7 for the API. Use pnpm, e.g. pnpm install, not npm! "
        "Config lives in config/app.toml. Why? Because CI reads it."
    )
    assert texts(text) == [
        "We pin Python 3.12.7 for the API.",
        "Use pnpm, e.g. pnpm install, not npm!",
        "Config lives in config/app.toml.",
        "Why?",
        "Because CI reads it.",
    ]


def test_simplified_chinese() -> None:
    assert texts("测试库必须是 tidepool_test。不要直接连生产库！为什么？因为会误删数据") == [
        "测试库必须是 tidepool_test。",
        "不要直接连生产库！",
        "为什么？",
        "因为会误删数据",
    ]


def test_traditional_chinese() -> None:
    assert texts(
        "go.mod 的 go 指令統一為 1.24。版本說明要寫進 README.zh-TW.md；也要寫進簡體版"
    ) == [
        "go.mod 的 go 指令統一為 1.24。",
        "版本說明要寫進 README.zh-TW.md；",
        "也要寫進簡體版",
    ]


def test_markdown_list_items_are_sentences_of_their_own() -> None:
    text = "Conventions\n- Tests live next to the code they test\n* Run `npm run lint -- --fix` after each batch\n1. Never commit .env files\n- [x] Use the # prefix for imports"
    sentences = split_sentences(text)
    assert [s.text for s in sentences] == [
        "Conventions",
        "Tests live next to the code they test",
        "Run `npm run lint -- --fix` after each batch",
        "Never commit .env files",
        "Use the # prefix for imports",
    ]
    assert [s.block for s in sentences[1:]] == ["list"] * 4


def test_lines_are_never_glued_without_a_space() -> None:
    # Two statements on two lines must stay two sentences ("version.Provide" was a bug).
    text = "Pin the Node version.\nProvide a .nvmrc file in the repository root."
    assert texts(text) == [
        "Pin the Node version.",
        "Provide a .nvmrc file in the repository root.",
    ]
    assert all("version.Provide" not in t for t in texts(text))


def test_hard_wrapped_prose_is_joined_with_a_space() -> None:
    text = "Build a small Rails app that reproduces the donation page, the part a\ndonor sees and interacts with."
    assert texts(text) == [
        "Build a small Rails app that reproduces the donation page, the part a donor sees and interacts with."
    ]


def test_code_fences_headings_and_tables_are_marked_or_dropped() -> None:
    text = "## Setup\n```bash\nnpm install\nnpm run dev\n```\n| name | value |\n|---|---|\nThe app uses Next.js 15."
    sentences = split_sentences(text)
    assert [(s.block, s.text) for s in sentences] == [
        ("heading", "Setup"),
        ("table", "| name | value |"),
        ("table", "|---|---|"),
        ("text", "The app uses Next.js 15."),
    ]


def test_short_list_items_are_read_with_their_lead_in() -> None:
    text = "Design style:\n- Clean white layouts\n- Glassmorphism cards\n\n## Agents (`.claude/agents/`)\n- game-designer\n- qa-lead"
    sentences = split_sentences(text)
    assert [(s.block, s.text) for s in sentences] == [
        ("group", "Design style: Clean white layouts; Glassmorphism cards"),
        ("group", "Agents (`.claude/agents/`): game-designer; qa-lead"),
    ]
