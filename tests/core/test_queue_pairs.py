"""QueuePairs keeps the queue's pair list current between changes: after any sequence of
changes it must equal a fresh `open_pairs(..., focus=<the candidates>)`, while looking
again only at the entries that changed."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from memdesk.core.entry import Entry
from memdesk.core.pairs import (
    Dismissals,
    Pair,
    QueuePairs,
    find_duplicates,
    lexical,
    open_pairs,
    pair_key,
)
from memdesk.core.search.settings import SearchSettings
from search_fakes import CountingEmbedder

WORDS = [
    "pnpm",
    "npm",
    "cargo",
    "nextest",
    "web",
    "ui",
    "build",
    "tests",
    "port",
    "8080",
    "8000",
    "api",
    "dev",
    "lockfile",
    "workspace",
    "docker",
    "compose",
    "deploy",
    "friday",
    "release",
    "python",
    "uv",
    "pytest",
]
CUES = ("switched to", "not", "instead of", "")
START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def _summary(rng: random.Random) -> str:
    words = rng.sample(WORDS, rng.randint(3, 6))
    cue = rng.choice(CUES)
    return " ".join([cue, *words] if cue else words)


def _entry(rng: random.Random, number: int) -> Entry:
    return Entry(
        id=f"e{number:03d}",
        summary=_summary(rng),
        kind=rng.choice(["decision", "workflow"]),
        status=rng.choice(["candidate", "candidate", "confirmed", "confirmed", "expired"]),
        created=START + dt.timedelta(minutes=number),
    )


def _step(rng: random.Random, entries: dict[str, Entry], counter: list[int]) -> None:
    """One change as the store would make it: a new object for what changed."""
    roll = rng.random()
    ids = sorted(entries)
    if roll < 0.3 or not ids:
        counter[0] += 1
        entry = _entry(rng, counter[0])
        entries[entry.id] = entry
    elif roll < 0.45:
        del entries[rng.choice(ids)]
    elif roll < 0.65:
        target = rng.choice(ids)
        entries[target] = dataclasses.replace(
            entries[target], status=rng.choice(["candidate", "confirmed", "expired"])
        )
    elif roll < 0.8:
        target = rng.choice(ids)
        entries[target] = dataclasses.replace(entries[target], summary=_summary(rng))
    elif roll < 0.9 and len(ids) > 1:
        old, new = rng.sample(ids, 2)
        entries[old] = dataclasses.replace(entries[old], status="superseded", superseded_by=new)
        entries[new] = dataclasses.replace(entries[new], supersedes=[old])
    else:  # the same facts re-read from disk: new objects, nothing changed
        target = rng.choice(ids)
        entries[target] = dataclasses.replace(entries[target])


def _shape(pairs: Sequence[Pair]) -> list[tuple[object, ...]]:
    return [(p.a, p.b, p.type, round(p.score, 5), p.reason, p.method) for p in pairs]


def _expected(entries: Sequence[Entry], meta: Path, search: object = None) -> list:
    """The full listing (no focus anywhere), restricted to pairs touching a candidate."""
    candidates = {e.id for e in entries if e.status == "candidate"}
    every = open_pairs(entries, meta, search)
    return _shape([p for p in every if p.a in candidates or p.b in candidates])


class VectorSearch:
    """A search service stand-in with vectors: `duplicates(entries, focus=)` like the
    real one, so pairs come from similarity as well as from word overlap."""

    def __init__(self) -> None:
        self.embedder = CountingEmbedder()
        self.settings = SearchSettings(
            model="none", duplicate_similarity=0.6, contradiction_similarity=0.4
        )
        self._vectors: dict[str, np.ndarray] = {}

    def duplicates(self, entries: Sequence[Entry], focus: set[str] | None = None) -> list:
        for e in entries:
            if e.summary not in self._vectors:
                self._vectors[e.summary] = self.embedder.embed([e.summary])[0]
        vectors = {e.id: self._vectors[e.summary] for e in entries}
        return find_duplicates(entries, vectors=vectors, settings=self.settings, focus=focus)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("with_search", [False, True])
def test_kept_pairs_equal_a_fresh_listing_after_every_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, with_search: bool
) -> None:
    # A small cap makes tokens cross it often (they then stop or start proposing pairs).
    monkeypatch.setattr(lexical, "PROPOSING_TOKEN_MAX_ENTRIES", 4)
    rng = random.Random(seed)
    search = VectorSearch() if with_search else None
    entries = {e.id: e for e in (_entry(rng, n) for n in range(12))}
    counter = [12]
    kept = QueuePairs(tmp_path)
    seen_some = False
    for _ in range(60):
        listed = list(entries.values())
        got = _shape(kept.pairs(listed, search))
        assert got == _expected(listed, tmp_path, search)
        seen_some = seen_some or bool(got)
        _step(rng, entries, counter)
    assert seen_some  # the vocabulary does produce pairs


def test_only_the_changed_entries_are_looked_at_again(tmp_path: Path) -> None:
    rng = random.Random(7)
    entries = [_entry(rng, n) for n in range(300)]
    kept = QueuePairs(tmp_path)
    kept.pairs(entries)
    assert kept.last_dirty == len(entries)  # the first call reads everything
    entries.append(
        Entry(id="new", summary="switched to pnpm for the web ui build", kind="decision")
    )
    kept.pairs(entries)
    assert kept.last_dirty <= 2  # the new entry (+ at most a token crossing the cap)
    kept.pairs(list(entries))  # no change: nothing is looked at again
    assert kept.last_dirty == 0


def test_an_appended_duplicate_and_contradiction_are_flagged_until_resolved(
    tmp_path: Path,
) -> None:
    entries = [
        Entry(
            id="old-npm",
            summary="The web UI uses npm workspaces for installs",
            kind="decision",
            status="confirmed",
            created=START,
        ),
        Entry(
            id="old-test",
            summary="Run the tests with cargo nextest run --workspace",
            kind="workflow",
            status="confirmed",
            created=START,
        ),
    ]
    kept = QueuePairs(tmp_path)
    assert kept.pairs(entries) == []
    contra = Entry(
        id="new-pnpm",
        summary="We switched the web UI to pnpm workspaces, not npm",
        kind="decision",
        created=START + dt.timedelta(hours=1),
    )
    dup = Entry(
        id="new-dup",
        summary="run the tests with cargo nextest run --workspace",
        kind="workflow",
        created=START + dt.timedelta(hours=2),
    )
    entries += [contra, dup]
    pairs = {(p.a, p.b): p.type for p in kept.pairs(entries)}
    assert pairs == {("old-npm", "new-pnpm"): "contradiction", ("old-test", "new-dup"): "exact"}

    # Resolved: the duplicate superseded by the old entry, the contradiction dismissed.
    entries[3] = dataclasses.replace(dup, status="superseded", superseded_by="old-test")
    entries[1] = dataclasses.replace(entries[1], supersedes=["new-dup"])
    Dismissals(tmp_path).add(
        pair_key("old-npm", "new-pnpm"), [entries[0].text_hash, contra.text_hash], "contradiction"
    )
    assert kept.pairs(entries) == []
    assert _expected(entries, tmp_path) == []


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("with_search", [False, True])
def test_all_pairs_kept_equal_a_fresh_listing_also_found_a_slice_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, with_search: bool
) -> None:
    """The conflict screen's list (every pair) from the same keeper the queue asks, its
    pairs found a few entries at a time between changes, as the desk's worker does."""
    monkeypatch.setattr(lexical, "PROPOSING_TOKEN_MAX_ENTRIES", 4)
    rng = random.Random(100 + seed)
    search = VectorSearch() if with_search else None
    entries = {e.id: e for e in (_entry(rng, n) for n in range(16))}
    counter = [16]
    kept = QueuePairs(tmp_path)
    seen_some = False
    for step in range(50):
        listed = list(entries.values())
        if step % 3 == 0:  # the queue asks in between
            assert _shape(kept.pairs(listed, search)) == _expected(listed, tmp_path, search)
        kept.update(listed, search)
        while kept.cover(limit=3):
            pass
        got = _shape(kept.known_pairs())
        assert got == _shape(open_pairs(listed, tmp_path, search))
        assert _shape(kept.all_pairs(listed, search)) == got
        seen_some = seen_some or bool(got)
        _step(rng, entries, counter)
    assert seen_some


def test_a_change_after_all_pairs_are_known_looks_only_at_that_entry(tmp_path: Path) -> None:
    rng = random.Random(11)
    entries = [_entry(rng, n) for n in range(300)]
    kept = QueuePairs(tmp_path)
    before = kept.all_pairs(entries)
    assert before == open_pairs(entries, tmp_path)
    twin = dataclasses.replace(
        next(e for e in entries if e.status == "confirmed"), id="twin", summary="x"
    )
    twin = dataclasses.replace(twin, summary=entries[0].summary + " again")
    entries.append(twin)
    kept.update(entries)
    assert kept.last_dirty <= 2
    assert kept.cover() == 0  # only the new entry was left to look at
    assert kept.known_pairs() == open_pairs(entries, tmp_path)


class PartlyIndexedSearch(VectorSearch):
    """A search whose index lacks some entries' vectors (ingested while the model was
    embedding): like the real service, it pairs only the entries it has vectors for."""

    def __init__(self) -> None:
        super().__init__()
        self.missing: set[str] = set()

    def vectors(self) -> _Held:
        return _Held(self.missing)

    def duplicates(self, entries: Sequence[Entry], focus: set[str] | None = None) -> list:
        return super().duplicates([e for e in entries if e.id not in self.missing], focus)


class _Held:
    """The ids a search holds vectors for (what `in` asks of the real VectorView)."""

    def __init__(self, missing: set[str]) -> None:
        self.missing = missing

    def __contains__(self, entry_id: object) -> bool:
        return entry_id not in self.missing


def test_an_entry_paired_before_its_vector_was_there_is_paired_again_once_it_is(
    tmp_path: Path,
) -> None:
    old = Entry(
        id="old",
        summary="deploys go out on friday after the release review",
        kind="decision",
        status="confirmed",
        created=START,
    )
    new = Entry(
        id="new",
        summary="Deploys go out on Friday after the release review!",
        kind="decision",
        created=START + dt.timedelta(hours=1),
    )
    filler = [_entry(random.Random(3), n) for n in range(20)]
    entries = [old, *filler, new]
    search = PartlyIndexedSearch()
    search.missing = {"new"}
    kept = QueuePairs(tmp_path)
    without = _shape(kept.pairs(entries, search))
    assert without == _expected(entries, tmp_path, search)
    assert not any({"old", "new"} == {p[0], p[1]} and p[5] == "semantic" for p in without)

    # The vector arrives; the entry itself did not change (the same object).
    search.missing.clear()
    got = _shape(kept.pairs(entries, search))
    assert got == _expected(entries, tmp_path, search)
    assert kept.last_dirty <= 2  # the entry that got its vector, not all of them
    assert got != without
    # Nothing changed since: nothing is looked at again.
    kept.pairs(list(entries), search)
    assert kept.last_dirty == 0


class WalkedList(list):  # type: ignore[type-arg]
    """A list that counts how often it is walked through."""

    walks = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.walks += 1
        return super().__iter__()


@pytest.mark.parametrize("seed", range(4))
def test_told_what_changed_the_keeper_does_not_walk_every_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """`update(..., changes=)` (the desk knows what a commit changed) keeps the same
    pairs as comparing every entry, without going through all of them."""
    monkeypatch.setattr(lexical, "PROPOSING_TOKEN_MAX_ENTRIES", 4)
    rng = random.Random(200 + seed)
    entries = {e.id: e for e in (_entry(rng, n) for n in range(40))}
    counter = [40]
    told, fresh = QueuePairs(tmp_path), QueuePairs(tmp_path)
    told.update(list(entries.values()))
    for _ in range(30):
        before = dict(entries)
        _step(rng, entries, counter)
        changes = {
            i: entries.get(i)
            for i in before.keys() | entries.keys()
            if before.get(i) is not entries.get(i)
        }
        listed = WalkedList(entries.values())
        told.update(listed, None, changes)
        assert listed.walks == 0
        fresh.update(list(listed))
        while told.cover(limit=5) or fresh.cover(limit=5):
            pass
        assert _shape(told.known_pairs()) == _shape(fresh.known_pairs())
        assert _shape(told.known_pairs()) == _shape(open_pairs(list(listed), tmp_path))
