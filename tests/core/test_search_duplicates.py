"""Exact duplicates, near-duplicates and likely contradictions."""

from __future__ import annotations

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.pairs import find_duplicates
from search_fakes import CountingEmbedder


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, np.float32)
    return v / np.linalg.norm(v)


def test_exact_duplicates_by_normalised_text() -> None:
    entries = [
        Entry(summary="- Use pnpm for installs", id="a"),
        Entry(summary="use   PNPM for installs", id="b"),
        Entry(summary="something else", id="c"),
    ]
    pairs = find_duplicates(entries)
    assert [(p.a, p.b, p.type, p.score) for p in pairs] == [("a", "b", "exact", 1.0)]


def test_near_duplicates_at_095() -> None:
    entries = [
        Entry(summary="the api runs on port 8000 in dev", id="a"),
        Entry(summary="in dev the api runs on port 8000", id="b"),
        Entry(summary="we deploy on fridays", id="c"),
    ]
    vectors = {"a": _unit(1, 0.05, 0), "b": _unit(1, 0, 0.05), "c": _unit(0, 1, 0)}
    pairs = find_duplicates(entries, vectors=vectors)
    assert [(p.a, p.b, p.type) for p in pairs] == [("a", "b", "near")]
    assert pairs[0].score >= 0.95


def test_near_duplicates_with_an_embedder() -> None:
    entries = [
        Entry(summary="Run the tests: uv run pytest.", id="a"),
        Entry(summary="run the tests — `uv run pytest`", id="b"),
    ]
    pairs = find_duplicates(entries, CountingEmbedder())
    assert [(p.type) for p in pairs] == ["near"]


def test_contradiction_same_kind_scope_different_values() -> None:
    entries = [
        Entry(summary="use npm for installs", id="a", kind="preference", scope="project"),
        Entry(summary="switched to pnpm for installs", id="b", kind="preference", scope="project"),
        Entry(summary="install node 20 with nvm", id="c", kind="workflow", scope="project"),
    ]
    vectors = {"a": _unit(1, 0.6, 0), "b": _unit(1, 0, 0.5), "c": _unit(0.6, 0, 1)}
    pairs = find_duplicates(entries, vectors=vectors)
    assert [(p.a, p.b, p.type) for p in pairs] == [("a", "b", "contradiction")]
    assert "npm" in pairs[0].reason and "pnpm" in pairs[0].reason


def test_different_kind_is_not_a_contradiction() -> None:
    entries = [
        Entry(summary="use npm for installs", id="a", kind="preference"),
        Entry(summary="switched to pnpm for installs", id="b", kind="decision"),
    ]
    vectors = {"a": _unit(1, 0.6, 0), "b": _unit(1, 0, 0.5)}
    assert find_duplicates(entries, vectors=vectors) == []


def test_pairs_linked_by_supersede_are_left_out() -> None:
    entries = [
        Entry(summary="use npm for installs", id="a", kind="preference"),
        Entry(summary="switched to pnpm for installs", id="b", kind="preference", supersedes=["a"]),
    ]
    vectors = {"a": _unit(1, 0.6, 0), "b": _unit(1, 0, 0.5)}
    assert find_duplicates(entries, vectors=vectors) == []


def test_different_numbers_are_a_contradiction_not_a_duplicate() -> None:
    entries = [
        Entry(summary="the api listens on port 8000", id="a"),
        Entry(summary="the api listens on port 8080", id="b"),
    ]
    vectors = {"a": _unit(1, 0.1, 0), "b": _unit(1, 0, 0.1)}  # cosine 0.99
    pairs = find_duplicates(entries, vectors=vectors)
    assert [(p.type, p.a, p.b) for p in pairs] == [("contradiction", "a", "b")]
    assert "different numbers" in pairs[0].reason


def test_unrelated_long_entries_sharing_one_name_are_not_flagged() -> None:
    entries = [
        Entry(summary="tidepool is a FastAPI app on Python 3.12 behind nginx", id="a"),
        Entry(
            summary="tidepool routes live in src/tidepool/api/routes, one module per resource",
            id="b",
        ),
    ]
    vectors = {"a": _unit(1, 0.6, 0), "b": _unit(1, 0, 0.5)}
    assert find_duplicates(entries, vectors=vectors) == []
