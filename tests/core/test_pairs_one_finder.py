"""One pair finder: one verdict for a pair wherever it is listed, one dismissal record
that consolidation honours too, and rephrasings merged with the search model."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
from consolidate_helpers import put
from memdesk.core.conflicts import dismiss, list_conflicts
from memdesk.core.consolidate import build_plan
from memdesk.core.entry import Entry
from memdesk.core.pairs import THRESHOLDS, find_duplicates, open_pairs, verdict
from memdesk.core.search import SearchService
from memdesk.core.search.embedder import DEFAULT_MODEL
from memdesk.core.search.settings import SearchSettings
from memdesk.core.store import Store


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, np.float32)
    return v / np.linalg.norm(v)


class FixedVectors:
    """A search stand-in whose duplicates come from fixed vectors."""

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors
        self.settings = SearchSettings(model="none")

    def duplicates(self, entries, focus=None):  # type: ignore[no-untyped-def]
        return find_duplicates(entries, vectors=self.vectors, settings=self.settings, focus=focus)


def test_a_pair_gets_one_verdict_in_duplicates_and_on_the_conflict_screen(
    tmp_path: Path,
) -> None:
    entries = [
        Entry("The api listens on port 8000 in dev", id="a", kind="project"),
        Entry("The api now listens on port 8080 in dev", id="b", kind="project"),
    ]
    vectors = {"a": _unit(1, 0.1, 0), "b": _unit(1, 0, 0.12)}
    from_duplicates = find_duplicates(entries, vectors=vectors)
    from_screen = open_pairs(entries, tmp_path, FixedVectors(vectors))
    assert [(p.a, p.b, p.type) for p in from_duplicates] == [("a", "b", "contradiction")]
    assert [(p.a, p.b, p.type) for p in from_screen] == [("a", "b", "contradiction")]
    assert from_duplicates[0].reason == from_screen[0].reason


def test_the_verdict_reads_the_same_whichever_side_comes_first() -> None:
    old = Entry("Use npm for installs", id="old", kind="decision")
    new = Entry("Switched to pnpm for installs", id="new", kind="decision")
    new.created = old.created.replace(year=old.created.year + 1)
    model = THRESHOLDS["model"]
    one, two = verdict(old, new, 0.6, model), verdict(new, old, 0.6, model)
    assert one is not None and one == two and one.type == "contradiction"


def test_a_dismissed_pair_is_not_proposed_by_consolidation(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    put(store, "lint-a", "Run `make lint` before every commit", kind="workflow", age=5)
    put(store, "lint-b", "run `make lint`   before every commit", kind="workflow")
    store = Store.open(tmp_path)

    def merges() -> list[list[str]]:
        plan = build_plan(store)
        return [p.entry_ids for p in plan.proposals if p.action == "merge"]

    assert merges() == [["lint-a", "lint-b"]]
    pair = next(i for i in list_conflicts(store) if i.is_pair)
    dismiss(store, pair)
    assert merges() == []


def test_consolidation_merges_a_rephrasing_with_the_installed_model(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    put(store, "commit-a", "Run the test suite with pytest -x before every commit", kind="workflow")
    put(store, "commit-b", "Before each commit, run pytest -x on the whole suite", kind="workflow")
    put(store, "docs", "Deploy the docs with mkdocs gh-deploy after every release", kind="workflow")
    store = Store.open(tmp_path)
    search = SearchService(store.index_dir, {"search": {"model": DEFAULT_MODEL}})
    assert search.has_model, search.model_status
    search.sync(store.entries())
    plan = build_plan(store, SimpleNamespace(search=search))
    merges = [sorted(p.entry_ids) for p in plan.proposals if p.action == "merge"]
    assert merges == [["commit-a", "commit-b"]]
    assert any(note.startswith("similarity: model") for note in plan.notes)
