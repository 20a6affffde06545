"""The queue asks only for pairs touching candidates: same pairs as the full list."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.pairs import open_pairs


def test_focused_pairs_are_the_full_list_restricted(tmp_path: Path) -> None:
    entries = [
        Entry(
            id="a1",
            summary="The web UI uses pnpm 9, lockfile pnpm-lock.yaml",
            kind="decision",
            status="confirmed",
        ),
        Entry(
            id="a2",
            summary="We switched the web UI to npm workspaces, dropping pnpm",
            kind="decision",
        ),
        Entry(
            id="b1",
            summary="Run tests with cargo nextest run --workspace",
            kind="workflow",
            status="confirmed",
        ),
        Entry(
            id="b2",
            summary="Always run cargo nextest run --workspace before pushing",
            kind="workflow",
            status="confirmed",
        ),
        Entry(id="c1", summary="使用 cargo nextest run --workspace 跑测试", kind="workflow"),
    ]
    every = open_pairs(entries, tmp_path)
    focus = {"a2", "c1"}
    focused = open_pairs(entries, tmp_path, focus=focus)
    expected = [(p.a, p.b, p.type) for p in every if p.a in focus or p.b in focus]
    assert [(p.a, p.b, p.type) for p in focused] == expected
    assert ("a1", "a2", "contradiction") in expected
    assert all(p.a in focus or p.b in focus for p in focused)
