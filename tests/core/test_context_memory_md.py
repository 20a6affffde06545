"""MEMORY.md and the default preview never disagree (demo store, its own settings)."""

from __future__ import annotations

from memdesk.core.context import assemble, render_memory_md
from memdesk.core.demo import copy_demo_project
from memdesk.core.memory_md import is_content_line, line_text
from memdesk.core.store import Store


def test_memory_md_lists_the_default_preview_in_order(tmp_path):
    store = Store.open(copy_demo_project(tmp_path / "demo"))
    entries, settings = store.entries(), store.settings
    preview = assemble(entries, settings=settings)
    text = render_memory_md(entries, settings)
    by_id = {e.id: e for e in entries}
    facts = [line_text(line) for line in text.splitlines() if is_content_line(line)]
    assert facts == [" ".join(by_id[i.entry_id].summary.split()) for i in preview.included]
    assert preview.budget == settings["context"]["budget"]
    # every content line is a seed-000 fact line
    assert all(line.startswith("- ") for line in text.splitlines() if is_content_line(line))


def test_memory_md_follows_a_settings_change(tmp_path):
    store = Store.open(copy_demo_project(tmp_path / "demo"))
    small = {"context": {"budget": 150}}
    big = {"context": {"budget": 5000}}
    entries = store.entries()
    small_lines = render_memory_md(entries, small).count("\n- ")
    big_lines = render_memory_md(entries, big).count("\n- ")
    assert 0 < small_lines < big_lines
