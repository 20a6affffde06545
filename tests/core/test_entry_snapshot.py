"""The derived snapshot of the entry files: used when it matches, never trusted when not.

Whatever happens to `.memdesk/index/entry-snapshot.json` (deleted, corrupt, from another
checkout, unwritable) and to the entry files behind its back, the store reads exactly
what the entry files hold.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import memdesk.core.storage.file_cache as file_cache_module
import pytest
from memdesk.core.entry import Entry, Source
from memdesk.core.entry_files import read_entry_file, read_plain_entry_file
from memdesk.core.storage.entry_snapshot import SNAPSHOT_NAME, SUPPORTED, EntrySnapshot
from memdesk.core.store import Store


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test count as settled (the two-second rule has its own test),
    and a store of a few entries gets a snapshot (the size rule has its own test)."""
    monkeypatch.setattr(EntrySnapshot, "racy_ns", -(10**12))
    monkeypatch.setattr(EntrySnapshot, "min_entries", 1)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the entry files the store parses from now on."""
    seen: list[str] = []

    def counting(path: Path, root: Path, **options: bool | None):  # type: ignore[no-untyped-def]
        seen.append(path.name)
        return read_entry_file(path, root, **options)

    def counting_lean(folder: str, name: str, shown: str):  # type: ignore[no-untyped-def]
        found = read_plain_entry_file(folder, name, shown)
        if found is not None:  # else read_entry_file reads it (counted there)
            seen.append(name)
        return found

    monkeypatch.setattr(file_cache_module, "read_entry_file", counting)
    monkeypatch.setattr(file_cache_module, "read_plain_entry_file", counting_lean)
    return seen


def snapshot_path(root: Path) -> Path:
    return root / ".memdesk" / "index" / SNAPSHOT_NAME


def full_entry(i: int) -> Entry:
    when = dt.datetime(2026, 3, 1, 12, 30, 15, 123456, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    return Entry(
        summary=f"fact {i}: the build uses cargo nextest 构建 ✓",
        kind="workflow",
        scope="user",
        status="confirmed",
        confidence="high",
        facts=["run `cargo nextest run`", "not cargo test"],
        section=["Build", "Tests"],
        tags=["rust", "ci"],
        valid_until=dt.date(2030, 1, 2),
        related=["other-1"],
        supersedes=["old-1"],
        source=Source(
            origin="transcript",
            session_id="s1",
            timestamp="2026-03-01T10:00:00Z",
            files=["Cargo.toml"],
            commands=["cargo nextest run"],
            locator="t.jsonl#3",
            excerpt="we use nextest",
            role="person",
        ),
        id=f"full-{i}",
        created=when,
        updated=when,
        last_access=when + dt.timedelta(days=1),
    )


def filled(root: Path, n: int = 12) -> Store:
    store = Store.init(root)
    store.auto_render = False
    store.add_many([Entry(summary=f"plain fact number {i}") for i in range(n)], actor="cli")
    store.add_many([full_entry(i) for i in range(3)], actor="cli")
    return store


def truth(root: Path) -> dict[str, Entry]:
    """What the entry files hold, parsed one by one (no store, no snapshot)."""
    out = {}
    for path in sorted((root / ".memdesk" / "entries").glob("*.toml")):
        item = read_entry_file(path, root)
        if isinstance(item, Entry):
            out[item.id] = item
    return out


def opened(root: Path) -> dict[str, Entry]:
    return {e.id: e for e in Store.open(root).entries()}


def test_the_codec_knows_the_entry_model() -> None:
    # A field added to Entry switches the snapshot off until the codec learns it.
    assert SUPPORTED


def test_a_second_open_parses_no_entry_file(tmp_path: Path, parses: list[str]) -> None:
    filled(tmp_path)
    assert opened(tmp_path) == truth(tmp_path)  # parses every file, writes the snapshot
    assert snapshot_path(tmp_path).is_file()
    parses.clear()
    assert opened(tmp_path) == truth(tmp_path)
    assert parses == []


def test_entries_from_the_snapshot_equal_the_parsed_ones_field_by_field(tmp_path: Path) -> None:
    filled(tmp_path)
    opened(tmp_path)
    parsed_all = truth(tmp_path)
    assert {"full-0", "full-1", "full-2"} <= set(parsed_all)
    for entry_id, entry in opened(tmp_path).items():
        parsed = parsed_all[entry_id]
        assert entry.to_json() == parsed.to_json()
        assert entry.created.utcoffset() == parsed.created.utcoffset()


def test_a_deleted_snapshot_is_rebuilt(tmp_path: Path, parses: list[str]) -> None:
    filled(tmp_path)
    opened(tmp_path)
    snapshot_path(tmp_path).unlink()
    assert opened(tmp_path) == truth(tmp_path)
    assert snapshot_path(tmp_path).is_file()
    parses.clear()
    assert opened(tmp_path) == truth(tmp_path)
    assert parses == []


def _rewrite_rows(path: Path, change: Callable[[list[list[object]]], None]) -> None:
    """Change the records and recompute the digest: a snapshot that passes the checksum
    but holds records this store never wrote."""
    rows = [json.loads(line) for line in path.read_bytes().partition(b"\n")[2].split(b"\n")]
    change(rows)
    _replace_payload(path, b"\n".join(json.dumps(row).encode("utf-8") for row in rows), len(rows))


def _replace_payload(path: Path, payload: bytes, count: int) -> None:
    header = json.loads(path.read_bytes().partition(b"\n")[0])
    header["count"] = count
    header["blake2b"] = hashlib.blake2b(payload, digest_size=16).hexdigest()
    path.write_bytes(json.dumps(header).encode("utf-8") + b"\n" + payload)


def _bad_types(rows: list[list[object]]) -> None:
    rows[0][5 + 1] = "two"  # version
    rows[1][5 + 4] = "opinion"  # status
    rows[2][5 + 7] = "not a list"  # facts
    rows[3][5 + 14] = "yesterday"  # created
    rows[4][5 + 18] = None  # source
    rows[5] = {"not": "a row"}  # type: ignore[call-overload]
    rows[6][5 + 6] = ""  # summary


def _other_entry(rows: list[list[object]]) -> None:
    rows[0][5 + 0] = rows[1][5 + 0]  # an id that is not the file's name


CORRUPTIONS: dict[str, Callable[[Path], None]] = {
    "garbage": lambda p: p.write_bytes(os.urandom(4096)),
    "empty": lambda p: p.write_bytes(b""),
    "truncated": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
    "one byte flipped": lambda p: p.write_bytes(
        p.read_bytes().replace(b"plain fact number 3", b"plain fact number 8")
    ),
    "not json after the header": lambda p: p.write_bytes(p.read_bytes().split(b"\n")[0] + b"\n["),
    "lines of junk under a valid digest": lambda p: _replace_payload(p, b"[\n]\n{\n1", 4),
    "records of the wrong types": lambda p: _rewrite_rows(p, _bad_types),
    "a record under another file's name": lambda p: _rewrite_rows(p, _other_entry),
    "a folder": lambda p: (p.unlink(), p.mkdir()),
    "a deep list": lambda p: _replace_payload(p, b"[" * 100_000 + b"]" * 100_000, 1),
}


@pytest.mark.parametrize("damage", list(CORRUPTIONS), ids=list(CORRUPTIONS))
def test_a_corrupt_snapshot_is_never_believed(tmp_path: Path, damage: str) -> None:
    filled(tmp_path)
    opened(tmp_path)
    CORRUPTIONS[damage](snapshot_path(tmp_path))
    assert opened(tmp_path) == truth(tmp_path)
    store = Store.open(tmp_path)
    assert store.problems == []
    assert opened(tmp_path) == truth(tmp_path)  # and again, after any rewrite


def test_an_entry_file_changed_behind_the_snapshot_is_seen(tmp_path: Path) -> None:
    store = filled(tmp_path)
    by_summary = {e.summary: e for e in store.entries()}
    first, second, third = (by_summary[f"plain fact number {i}"] for i in range(3))
    opened(tmp_path)
    entries = tmp_path / ".memdesk" / "entries"
    # Same size, modification time put back: only the change time tells.
    path = entries / f"{first.id}.toml"
    st = os.stat(path)
    text = path.read_text("utf-8")
    path.write_text(text.replace("plain fact number 0", "plain fact number X"), "utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size
    # Another size, by an editor that writes in place.
    path = entries / f"{second.id}.toml"
    path.write_text(path.read_text("utf-8").replace("number 1", "number one hundred"), "utf-8")
    # Gone, and a new one.
    (entries / f"{third.id}.toml").unlink()
    shutil.copy(entries / f"{second.id}.toml", entries / "newcomer.toml")
    newcomer = entries / "newcomer.toml"
    newcomer.write_text(
        newcomer.read_text("utf-8").replace(f'"{second.id}"', '"newcomer"'), "utf-8"
    )

    now = opened(tmp_path)
    assert now == truth(tmp_path)
    assert now[first.id].summary == "plain fact number X"
    assert now[second.id].summary == "plain fact number one hundred"
    assert third.id not in now
    assert "newcomer" in now


def test_a_file_damaged_behind_the_snapshot_is_a_problem(tmp_path: Path) -> None:
    store = filled(tmp_path)
    victim = store.entries()[0]
    opened(tmp_path)
    path = tmp_path / ".memdesk" / "entries" / f"{victim.id}.toml"
    st = os.stat(path)
    path.write_bytes(b"<<<<<<< HEAD\n" + path.read_bytes()[13:])
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    reopened = Store.open(tmp_path)
    assert victim.id not in {e.id for e in reopened.entries()}
    assert [Path(p.path).name for p in reopened.problems] == [path.name]


def test_a_snapshot_from_another_checkout_is_not_used(tmp_path: Path) -> None:
    """Same file names, sizes and times, other files: a snapshot copied (or committed)
    from elsewhere matches nothing here."""
    ours = filled(tmp_path / "ours")
    opened(ours.root)
    theirs = tmp_path / "theirs"
    shutil.copytree(ours.root, theirs)
    for path in (theirs / ".memdesk" / "entries").glob("*.toml"):
        mine = ours.entries_dir / path.name
        st = os.stat(mine)
        path.write_text(path.read_text("utf-8").replace("fact", "FACT"), "utf-8")
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    shutil.copy(snapshot_path(ours.root), snapshot_path(theirs))
    read = opened(theirs)
    assert read == truth(theirs)
    assert all("FACT" in e.summary for e in read.values())


def test_a_store_that_cannot_write_the_snapshot_still_opens(tmp_path: Path) -> None:
    filled(tmp_path)
    index = tmp_path / ".memdesk" / "index"
    shutil.rmtree(index)
    index.write_text("not a folder")  # every write under index/ fails
    assert opened(tmp_path) == truth(tmp_path)
    assert opened(tmp_path) == truth(tmp_path)


def test_changes_made_through_the_store_are_seen_by_the_next_process(tmp_path: Path) -> None:
    store = filled(tmp_path)
    opened(tmp_path)
    target = store.entries()[0]
    store.edit(target.id, {"summary": "an edited fact"}, actor="cli")
    store.delete([store.entries()[1].id], actor="cli")
    added = store.add(Entry(summary="a fact added after the snapshot"), actor="cli")
    now = opened(tmp_path)
    assert now == truth(tmp_path)
    assert now[target.id].summary == "an edited fact"
    assert added.id in now


def test_a_file_written_moments_ago_is_parsed_again(
    tmp_path: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write within one tick of the file system clock may leave the times as they
    were: files changed within `racy_ns` (two seconds) are not kept in the snapshot yet.
    (Here every file counts as that recent, so the test does not race the clock.)"""
    assert EntrySnapshot.racy_ns < 0  # the fixture's setting, replaced:
    monkeypatch.setattr(EntrySnapshot, "racy_ns", 3600 * 10**9)
    store = filled(tmp_path)
    opened(tmp_path)
    parses.clear()
    assert opened(tmp_path) == truth(tmp_path)
    assert len(parses) == len(store.entries())


def test_an_entry_changed_in_memory_does_not_leak_into_the_snapshot(tmp_path: Path) -> None:
    store = filled(tmp_path)
    entry = store.entries()[0]
    path = store.entries_dir / f"{entry.id}.toml"
    snapshot = EntrySnapshot(tmp_path / "snap.json")
    snapshot.load()
    snapshot.learn(store.entries_dir, path.name, os.stat(path), entry)
    entry.tags.append("changed in place by a careless caller")
    snapshot.save()  # the worst case: saved right after
    recalled = snapshot.recall(path.name, os.stat(path))
    again = EntrySnapshot(tmp_path / "snap.json")
    again.load()
    from_disk = again.recall(path.name, os.stat(path))
    assert recalled is not None and from_disk is not None
    assert recalled.tags == from_disk.tags == truth(tmp_path)[entry.id].tags
    recalled.facts.append("and a recalled one changed too")
    assert snapshot.recall(path.name, os.stat(path)) == from_disk


def test_temp_files_of_a_killed_snapshot_writer_are_removed(tmp_path: Path) -> None:
    filled(tmp_path)
    index = tmp_path / ".memdesk" / "index"
    old = index / ".memdesk-tmp-killed"
    old.write_bytes(b"x" * 1000)
    os.utime(old, ns=(0, 0))
    live = index / ".memdesk-tmp-still-writing"
    live.write_bytes(b"x")
    opened(tmp_path)  # no snapshot yet: one is written
    assert not old.exists()
    assert live.exists()
    assert opened(tmp_path) == truth(tmp_path)


def test_a_small_store_gets_no_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below `min_entries` parsing is quick: reading such a store writes nothing."""
    monkeypatch.setattr(EntrySnapshot, "min_entries", 100)
    filled(tmp_path, n=20)
    assert opened(tmp_path) == truth(tmp_path)
    assert not snapshot_path(tmp_path).exists()
    monkeypatch.setattr(EntrySnapshot, "min_entries", 10)
    assert opened(tmp_path) == truth(tmp_path)
    assert snapshot_path(tmp_path).exists()


def test_the_snapshot_is_private(tmp_path: Path) -> None:
    """It holds memory text: like the search index, nobody else reads it (memdesk
    doctor's rule for index/)."""
    filled(tmp_path)
    opened(tmp_path)
    assert stat.S_IMODE(os.stat(snapshot_path(tmp_path)).st_mode) == 0o600


def _listing(root: Path) -> list[tuple[str, os.stat_result | None]]:
    folder = root / ".memdesk" / "entries"
    return [(p.name, os.stat(p)) for p in sorted(folder.glob("*.toml"))]


def test_a_primed_scan_reads_what_a_scan_of_its_own_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`EntryFileCache.prime`: the stats the kept context block was keyed with stand in
    for the scan's own pass (one stat per file, not two), for that scan only."""
    store = filled(tmp_path)
    opened(tmp_path)
    entries = tmp_path / ".memdesk" / "entries"
    changed = sorted(entries.glob("*.toml"))[0]
    changed.write_text(changed.read_text("utf-8").replace("number", "NUMBER", 1), "utf-8")
    sorted(entries.glob("*.toml"))[1].unlink()
    listing = _listing(tmp_path)
    fresh = Store.open(tmp_path)
    fresh.files.prime(listing)
    real_scandir = os.scandir

    def scandir(path: Path) -> object:
        assert Path(path) != fresh.entries_dir, "listed the entry files again"
        return real_scandir(path)

    expected = truth(tmp_path)
    with monkeypatch.context() as patch:  # the primed scan stats no entry file itself
        patch.setattr(os, "scandir", scandir)
        got = {e.id: e for e in fresh.entries()}
    assert got == expected
    # Only once: the next scan lists the folder again and sees a later change.
    later = sorted(entries.glob("*.toml"))[2]
    later.write_text(later.read_text("utf-8").replace("number", "NUMBER", 1), "utf-8")
    assert {e.id: e for e in fresh.entries()} == truth(tmp_path)
    assert {e.id: e for e in store.entries()} == truth(tmp_path)


def test_a_full_read_resolves_the_folder_once_not_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading every file (no snapshot) works out once per scan whether the entries
    folder is inside the working directory; a link among the files is still checked
    (and one leading outside is refused, not read)."""
    import memdesk.core.entry_files as entry_files_module

    filled(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.toml"
    first = sorted((tmp_path / ".memdesk" / "entries").glob("*.toml"))[0]
    outside.write_bytes(first.read_bytes())
    (tmp_path / ".memdesk" / "entries" / "linked.toml").symlink_to(outside)
    snapshot_path(tmp_path).unlink(missing_ok=True)
    calls: list[Path] = []
    real = entry_files_module.is_within

    def counting(path: Path, root: Path) -> bool:
        calls.append(path)
        return real(path, root)

    monkeypatch.setattr(entry_files_module, "is_within", counting)
    monkeypatch.setattr(file_cache_module, "is_within", counting)
    store = Store.open(tmp_path)
    entries = {e.id: e for e in store.entries()}
    names = [p.name for p in calls]
    assert entries == truth(tmp_path)
    assert names.count("entries") == 1, names
    assert [n for n in names if n != "entries"] == ["linked.toml"]
    assert [p.kind for p in store.problems] == ["symlink"]
