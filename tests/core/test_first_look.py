"""The desk's first look at a big store: the candidates and the header counts, built
without building the other entries, and always what a full read would give."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.first_look import first_look
from memdesk.core.storage import entry_snapshot
from memdesk.core.storage.entry_snapshot import EntrySnapshot
from memdesk.core.store import Store

TODAY = dt.date(2026, 6, 1)
START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test count as settled, and a small store gets a snapshot."""
    monkeypatch.setattr(EntrySnapshot, "racy_ns", -(10**12))
    monkeypatch.setattr(EntrySnapshot, "min_entries", 1)


def make_store(root: Path, n: int = 60) -> Store:
    store = Store.init(root)
    store.auto_render = False
    store.add_many(
        [
            Entry(
                id=f"e{i:03d}",
                summary=f"fact number {i} about the build",
                status="candidate" if i % 10 == 0 else "confirmed",
                valid_until=dt.date(2026, 1, 1) if i % 7 == 0 else None,
                created=START + dt.timedelta(minutes=i),
            )
            for i in range(n)
        ],
        actor="test",
    )
    Store.open(root).entries()  # a full read saves the snapshot
    return store


def expected(store: Store) -> tuple[list[str], dict[str, int]]:
    entries = Store.open(store.root).entries()
    counts = {
        "entries": len(entries),
        "candidates": sum(e.status == "candidate" for e in entries),
        "due": sum(
            e.status in ("candidate", "confirmed") and e.is_past_valid_until(TODAY) for e in entries
        ),
    }
    return [e.id for e in entries if e.status == "candidate"], counts


def test_only_the_candidates_are_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = make_store(tmp_path / "s")
    fresh = Store.open(store.root)
    decoded: list[str] = []
    row = entry_snapshot._row

    def counted(line: str):  # type: ignore[no-untyped-def]
        found = row(line)
        decoded.append(found[0] if found else "?")
        return found

    monkeypatch.setattr(entry_snapshot, "_row", counted)
    look = first_look(fresh, TODAY)
    # The snapshot's lines are decoded for the candidates and for the lines holding a
    # date (a valid_until to count), not for the others.
    dated = {f"e{i:03d}.toml" for i in range(60) if i % 7 == 0}
    wanted = {f"{e.id}.toml" for e in look.candidates}
    assert set(decoded) == wanted | dated and len(decoded) == len(wanted | dated)
    ids, counts = expected(store)
    assert [e.id for e in look.candidates] == ids
    assert look.counts == counts and counts["due"] > 0
    assert not look.complete
    snapshot = fresh.files.snapshot
    assert snapshot is not None
    assert snapshot.hits == len(ids)  # the 54 others were not turned into entries
    # The full read later gives every entry, the candidates being the same objects.
    by_id = {e.id: e for e in fresh.entries()}
    assert len(by_id) == counts["entries"]
    assert all(by_id[e.id] is e for e in look.candidates)


def test_files_changed_behind_the_snapshot_are_read(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s")
    # Another process approves one candidate and turns a confirmed entry into one.
    writer = Store.open(store.root)
    writer.auto_render = False
    writer.approve(["e010"], actor="test")
    writer.edit("e013", {"status": "candidate"}, actor="test")
    damaged = store.entries_dir / "e021.toml"
    damaged.write_text("<<<<<<< HEAD\nsummary = 'x'\n=======\n>>>>>>> b\n", "utf-8")
    os.utime(damaged, ns=(1, 1))
    look = first_look(Store.open(store.root), TODAY)
    ids, counts = expected(store)
    assert [e.id for e in look.candidates] == ids
    assert "e010" not in ids and "e013" in ids
    assert look.counts == counts
    assert look.marker_ids == {"e021"}


def test_a_store_without_a_snapshot_is_read_whole(tmp_path: Path) -> None:
    store = make_store(tmp_path / "s")
    (store.meta_dir / "index" / "entry-snapshot.json").unlink()
    fresh = Store.open(store.root)
    look = first_look(fresh, TODAY)
    assert look.complete  # every entry was built: the full read is only a stat pass
    ids, counts = expected(store)
    assert [e.id for e in look.candidates] == ids and look.counts == counts
