"""Adopting memory files: blocks, one entry per fact with its section, byte identity."""

from __future__ import annotations

from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.memfiles.adopt import adopt
from memdesk.core.memfiles.blocks import fact_lines, parse_blocks
from memdesk.core.memfiles.manifest import load_manifest
from memdesk.core.store import Store, StoreError
from memfiles_fixtures import NESTED, NESTED_FACTS, TOPIC


def facts_of(text: str) -> list[tuple[str, list[str]]]:
    return [(fact_lines(b)[0], b.section) for b in parse_blocks(text) if b.kind == "fact"]


def test_blocks_join_back_to_the_file() -> None:
    for text in (NESTED, TOPIC, NESTED.replace("\n", "\r\n"), NESTED.rstrip("\n"), ""):
        assert "".join(b.text for b in parse_blocks(text)) == text


def test_one_entry_per_fact_with_its_section() -> None:
    assert facts_of(NESTED) == NESTED_FACTS


def test_a_bullet_keeps_its_sub_bullets_and_code() -> None:
    first = next(b for b in parse_blocks(NESTED) if b.kind == "fact")
    assert first.text.splitlines() == [
        "- Run the tests with `make test`",
        "  - they need Docker running",
        "  ```bash",
        "  make test",
        "  ```",
    ]
    assert fact_lines(first) == [
        "Run the tests with `make test`",
        "they need Docker running",
        "make test",
    ]


def test_a_table_stays_with_the_paragraph_introducing_it() -> None:
    block = next(b for b in parse_blocks(NESTED) if b.text.startswith("Release steps:"))
    assert "| tag | git tag v1 |" in block.text
    assert fact_lines(block) == ["Release steps:", "| Step | Command |", "| tag | git tag v1 |"]


def test_layout_is_never_an_entry() -> None:
    roles = {b.role for b in parse_blocks(NESTED) if b.kind == "layout"}
    assert {"heading", "blank", "boilerplate", "label", "import"} <= roles
    for block in parse_blocks(NESTED):
        if block.kind == "fact":
            assert not block.text.lstrip().startswith(("#", "```", "|---", "@"))


def test_a_code_fence_after_a_paragraph_joins_it() -> None:
    text = "## Gate\n\nAfter changing code, run:\n\n```bash\npnpm check\n```\n"
    facts = [b for b in parse_blocks(text) if b.kind == "fact"]
    assert len(facts) == 1 and fact_lines(facts[0]) == ["After changing code, run:", "pnpm check"]


def test_setext_headings_and_front_matter_are_layout() -> None:
    text = "Title\n=====\n\nSub\n---\n\n- a fact\n"
    assert facts_of(text) == [("a fact", ["Title", "Sub"])]
    assert facts_of(TOPIC)[0][0].startswith("Always run the integration tests")


@pytest.mark.parametrize(
    "text",
    [
        NESTED,
        NESTED.replace("\n", "\r\n"),
        NESTED.rstrip("\n"),
        TOPIC,
        "## 构建\n\n- 用 pnpm，不用 npm\n\n### 测试\n- 跑 `pnpm test`\n",
    ],
    ids=["nested", "crlf", "no-final-newline", "front-matter", "chinese"],
)
def test_adopt_leaves_the_file_byte_identical(tmp_path: Path, text: str) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(text.encode("utf-8"))
    store = Store.init(tmp_path)
    result = adopt(store, path)
    assert result.unchanged
    assert path.read_bytes() == text.encode("utf-8")
    store.render_memory_md()
    assert path.read_bytes() == text.encode("utf-8")
    confirmed = [e for e in store.entries() if e.status == "confirmed"]
    assert result.entries == len(confirmed) == len(facts_of(text))


def test_adopted_entries_are_confirmed_and_keep_section_and_place(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(NESTED, encoding="utf-8")
    store = Store.init(tmp_path)
    result = adopt(store, path)
    assert result.format == "claude-md"
    assert result.sections == ["Project notes", "Build", "部署"]
    by_summary = {e.summary: e for e in store.entries()}
    deploy = by_summary["使用 `deploy.sh` 部署到生产环境"]
    assert deploy.status == "confirmed" and deploy.section == ["Project notes", "部署"]
    assert deploy.source.locator == "CLAUDE.md:30"
    manifest = load_manifest(store.meta_dir, path)
    assert manifest is not None and deploy.id in manifest.entry_ids()
    # MEMORY.md, rendered from the store, does not repeat what CLAUDE.md holds.
    store.add(Entry(summary="The staging host is stage-2", status="confirmed"))
    memory_md = (tmp_path / "MEMORY.md").read_text("utf-8")
    assert "stage-2" in memory_md and "deploy.sh" not in memory_md
    assert path.read_text("utf-8") == NESTED


def test_topic_front_matter_type_gives_the_kind(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    path = folder / "testing.md"
    path.write_text(TOPIC, encoding="utf-8")
    store = Store.init(tmp_path)
    adopt(store, path, "claude-memory-topic")
    assert {e.kind for e in store.entries()} == {"preference"}


def test_adopting_twice_or_a_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("- a rule\n", encoding="utf-8")
    store = Store.init(tmp_path)
    adopt(store, path)
    with pytest.raises(StoreError, match="already adopted"):
        adopt(store, path)
    with pytest.raises(StoreError, match="no such file"):
        adopt(store, tmp_path / "GEMINI.md")
    binary = tmp_path / "GEMINI.md"
    binary.write_bytes(b"- caf\xe9\n")
    with pytest.raises(StoreError, match="not UTF-8"):
        adopt(store, binary)


def test_init_adopts_an_existing_memory_md_instead_of_emptying_it(tmp_path: Path) -> None:
    text = "# Agent Memory\n\n## Build\n- uses make\n```bash\nmake all\n```\n- cache in /tmp/c\n"
    (tmp_path / "MEMORY.md").write_text(text, encoding="utf-8")
    store = Store.init(tmp_path)
    assert (tmp_path / "MEMORY.md").read_text("utf-8") == text
    entries = store.entries()
    assert sorted(e.summary for e in entries) == ["cache in /tmp/c", "uses make"]
    assert all(e.status == "confirmed" for e in entries)
    store.add(Entry(summary="another fact", status="confirmed"))
    store.render_memory_md()
    assert (tmp_path / "MEMORY.md").read_text("utf-8") == text  # not in this file's manifest


def test_a_secret_stays_in_the_file_but_is_not_an_entry(tmp_path: Path) -> None:
    text = "## Keys\n- deploy key: AKIAIOSFODNN7EXAMPLE\n- deploys go through CI\n"
    path = tmp_path / "CLAUDE.md"
    path.write_text(text, encoding="utf-8")
    store = Store.init(tmp_path)
    result = adopt(store, path)
    assert result.unchanged and path.read_text("utf-8") == text
    assert [e.summary for e in store.entries()] == ["deploys go through CI"]
    assert len(result.refused) == 1


def test_memdesks_own_memory_md_is_not_adopted(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    store.add(Entry(summary="uses pnpm", status="confirmed"))  # renders MEMORY.md
    with pytest.raises(StoreError, match="already writes this file"):
        adopt(store, tmp_path / "MEMORY.md")
