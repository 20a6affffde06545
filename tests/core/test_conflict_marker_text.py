"""Text that looks like git conflict markers: an entry keeps it (never vanishes), and
a MEMORY.md git left markers in yields no marker candidates."""

from __future__ import annotations

from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.entry_files import entry_to_toml, read_entry_file
from memdesk.core.store import Store

MARKER_TEXTS = [
    "Resolve merges by hand\n<<<<<<< HEAD is where ours starts",
    "<<<<<<< HEAD at the start",
    "two lines\n=======\nthen theirs\n>>>>>>> main",
    "base marker\n||||||| base",
]


@pytest.mark.parametrize("text", MARKER_TEXTS)
def test_entry_with_marker_lines_survives(store: Store, text: str) -> None:
    added = store.add(Entry(summary=text, facts=[text]), actor="cli")
    data = entry_to_toml(added).decode()
    assert not any(
        line.startswith(("<<<<<<<", "=======", ">>>>>>>", "|||||||")) for line in data.splitlines()
    )
    item = read_entry_file(store.entries_dir / f"{added.id}.toml", store.root)
    assert isinstance(item, Entry), item
    assert item.summary == text.strip() and item.facts == [text]
    assert [e.id for e in Store.open(store.root).entries()] == [added.id]


CONFLICTED = """# Memory

- Run the tests with pytest -q
<<<<<<< HEAD
- Deploys go through make release
=======
- Deploys go through the CI pipeline
>>>>>>> feature
"""


def test_memory_md_conflict_markers_are_not_candidates(store: Store) -> None:
    (store.root / "MEMORY.md").write_text(CONFLICTED)
    added = store.ingest_memory_md()
    summaries = sorted(e.summary for e in added)
    assert summaries == [
        "Deploys go through make release",
        "Deploys go through the CI pipeline",
        "Run the tests with pytest -q",
    ]


def test_problems_reports_memory_md_conflict(tmp_path: Path, cli) -> None:
    assert cli("--dir", str(tmp_path), "init").returncode == 0
    (tmp_path / "MEMORY.md").write_text(CONFLICTED)
    out = cli("--dir", str(tmp_path), "problems").stdout
    assert "MEMORY.md:4: git conflict markers" in out
