"""One rule picks the threshold row of the vectors compared (core/pairs/measure.py), so
the conflict finder and consolidation agree on the default model's centred vectors."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from consolidate_helpers import put
from memdesk.core.consolidate import build_plan
from memdesk.core.entry import Entry
from memdesk.core.pairs import THRESHOLDS, open_pairs
from memdesk.core.pairs.lexical_vectors import LexicalEmbedder
from memdesk.core.pairs.measure import pool_matrix, thresholds_for
from memdesk.core.search import SearchService
from memdesk.core.search.embedder import DEFAULT_MODEL
from memdesk.core.store import Store

# An ordinary project's facts around the two pairs: the e5 vectors are centred on this
# store's own language mean, as in a real store (under 8 entries a sample mean is used).
BACKGROUND = [
    ("Deploy the docs with mkdocs gh-deploy after every release", "workflow"),
    ("The staging database is backed up every night at 03:00", "project"),
    ("I prefer small pull requests with one idea each", "preference"),
    ("The API listens on port 8000 in development", "project"),
    ("Logs go to /var/log/app and rotate daily", "project"),
    ("Use black-compatible formatting with a line length of 100", "preference"),
    ("The mobile app targets iOS 16 and Android 12 or newer", "project"),
    ("Feature flags live in config/flags.yaml", "project"),
    ("Ask before deleting any migration file", "preference"),
    ("Secrets are read from the vault, never from .env files in production", "decision"),
    ("The nightly job re-indexes search at 02:00", "project"),
    ("Write commit messages in the imperative mood", "preference"),
]


def _store_with_a_contradiction_and_a_rephrasing(root: Path) -> Store:
    store = Store.init(root)
    for n, (summary, kind) in enumerate(BACKGROUND):
        put(store, f"bg-{n}", summary, kind=kind)
    put(
        store,
        "pnpm",
        "The web UI uses pnpm, not npm: the lockfile is pnpm-lock.yaml and CI runs pnpm 9.",
        kind="decision",
        age=30,
    )
    put(
        store,
        "npm",
        "We decided to switch the web UI to npm workspaces and drop pnpm.",
        kind="decision",
    )
    put(store, "commit-a", "Run the test suite with pytest -x before every commit", kind="workflow")
    put(store, "commit-b", "Before each commit, run pytest -x on the whole suite", kind="workflow")
    return Store.open(root)


def _types(pairs: list[Any]) -> dict[tuple[str, str], str]:
    return {tuple(sorted((p.a, p.b))): p.type for p in pairs}


def test_the_default_model_finds_the_same_pairs_in_every_finder(tmp_path: Path) -> None:
    store = _store_with_a_contradiction_and_a_rephrasing(tmp_path)
    search = SearchService(store.index_dir, {"search": {"model": DEFAULT_MODEL}})
    assert search.has_model, search.model_status
    search.sync(store.entries())
    assert getattr(search.pair_vectors(), "centred_on_language", False)  # e5: centred
    # The decision scores about 0.39 centred (0.89 raw): under the `model` row's 0.5 it
    # was missed; the `centred` row's 0.3 finds it, like consolidation always did.
    wanted = {("npm", "pnpm"): "contradiction", ("commit-a", "commit-b"): "near"}

    duplicates = _types(search.duplicates(list(store.entries())))  # `memdesk duplicates`
    screen = _types(open_pairs(list(store.entries()), store.meta_dir, search))  # conflicts
    assert {k: duplicates.get(k) for k in wanted} == wanted
    assert {k: screen.get(k) for k in wanted} == wanted

    plan = build_plan(store, SimpleNamespace(search=search))
    proposed = {(p.action, tuple(sorted(p.entry_ids))) for p in plan.proposals}
    assert ("supersede", ("npm", "pnpm")) in proposed
    assert ("merge", ("commit-a", "commit-b")) in proposed


class _Centred(dict[str, np.ndarray]):
    centred_on_language = True


def test_the_row_follows_the_vectors_compared() -> None:
    pool = [Entry("Use pnpm", id="a"), Entry("Use npm", id="b")]
    raw = {"a": np.array([1.0, 0.0], np.float32), "b": np.array([0.0, 1.0], np.float32)}
    assert pool_matrix(pool, None, raw).measure == "model"
    assert pool_matrix(pool, None, _Centred(raw)).measure == "centred"
    # Stored vectors that miss an entry: the pool is embedded on the spot, raw.
    partial = _Centred({"a": raw["a"]})
    assert pool_matrix(pool, None, partial).vectors is None
    assert pool_matrix(pool, LexicalEmbedder(), partial).measure == "tfidf"
    assert thresholds_for("centred") == THRESHOLDS["centred"]
    assert thresholds_for("centred", contradiction=0.6).contradiction == 0.6


def test_an_entry_not_indexed_yet_brings_no_raw_cosine_pairs(tmp_path: Path) -> None:
    """The desk asks for pairs while a just-ingested entry has no vector yet. Embedded on
    the spot its e5 vector would be raw (unrelated texts near 0.8) and cut with the
    centred row: every entry would be a 'rephrasing'. It waits for its vector instead."""
    store = _store_with_a_contradiction_and_a_rephrasing(tmp_path)
    search = SearchService(store.index_dir, {"search": {"model": DEFAULT_MODEL}})
    assert search.has_model, search.model_status
    search.sync(store.entries())
    indexed = _types(search.duplicates(list(store.entries())))
    put(store, "late", "The release notes are drafted in docs/changes.md", kind="workflow")
    pool = list(Store.open(tmp_path).entries())
    assert "late" in {e.id for e in pool}
    assert _types(search.duplicates(pool)) == indexed
