"""Store operations: each is atomic, journaled and undoable; MEMORY.md follows."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.store import GuardRefused, NotFound, Store, StoreError


def toml_of(store: Store, entry_id: str) -> dict:
    return tomllib.loads((store.entries_dir / f"{entry_id}.toml").read_text("utf-8"))


def journal(store: Store) -> list[dict]:
    return [json.loads(line) for line in store.journal.path.read_text("utf-8").splitlines()]


def memory_md(store: Store) -> str:
    return (store.root / "MEMORY.md").read_text("utf-8")


def test_init_creates_layout(store: Store) -> None:
    for name in ("entries", "inbox", "index", "conflicts"):
        assert (store.meta_dir / name).is_dir()
    assert "index/" in (store.meta_dir / ".gitignore").read_text()
    assert (store.meta_dir / "settings.toml").is_file()
    with pytest.raises(StoreError, match="not a memdesk working directory"):
        Store.open(store.root / "entries-not-here")


def test_add_writes_toml_and_journal(store: Store) -> None:
    entry = store.add(
        Entry(summary="以后提交前必须跑 uv run pytest -x", kind="workflow"), actor="cli"
    )
    data = toml_of(store, entry.id)
    assert data["summary"] == "以后提交前必须跑 uv run pytest -x"
    assert data["version"] == 1 and data["status"] == "candidate"
    (record,) = journal(store)
    assert record["op"] == "add" and record["actor"] == "cli" and record["entry_id"] == entry.id
    assert record["version_after"] == 1 and "summary" in record["changes"]


def test_approve_renders_memory_md_and_reject_removes(store: Store) -> None:
    a = store.add(Entry(summary="Use pnpm, not npm, for the web UI"))
    b = store.add(Entry(summary="try svelte for the preview UI"))
    store.approve([a.id])
    assert toml_of(store, a.id)["status"] == "confirmed"
    assert toml_of(store, a.id)["version"] == 2
    assert "- Use pnpm, not npm, for the web UI" in memory_md(store)
    store.reject([b.id])
    assert not (store.entries_dir / f"{b.id}.toml").exists()
    assert journal(store)[-1]["op"] == "reject"
    assert journal(store)[-1]["before"]["summary"] == "try svelte for the preview UI"


@pytest.mark.parametrize("operation", ["approve", "reject", "expire", "delete", "edit", "rescope"])
def test_each_operation_is_undoable_and_redoable(store: Store, operation: str) -> None:
    entry = store.add(Entry(summary="deploy with make deploy"), actor="cli")
    before = toml_of(store, entry.id)
    if operation == "edit":
        store.edit(entry.id, {"summary": "deploy with make release"}, actor="tui")
    elif operation == "rescope":
        store.rescope([entry.id], "workspace", actor="tui")
    else:
        getattr(store, operation)([entry.id], actor="tui")
    after_path = store.entries_dir / f"{entry.id}.toml"
    after = toml_of(store, entry.id) if after_path.exists() else None
    store.undo()
    restored = toml_of(store, entry.id)
    for key in ("summary", "status", "scope", "kind"):
        assert restored[key] == before[key]
    assert restored["version"] > before["version"]  # versions only grow
    store.redo()
    if after is None:
        assert not after_path.exists()
    else:
        redone = toml_of(store, entry.id)
        for key in ("summary", "status", "scope"):
            assert redone[key] == after[key]


def test_supersede_links_both_and_undo_unlinks(store: Store) -> None:
    old = store.add(Entry(summary="use npm", status="confirmed"))
    new = store.add(Entry(summary="switched to pnpm"))
    store.supersede(old.id, new.id, actor="cli")
    assert toml_of(store, old.id)["status"] == "superseded"
    assert toml_of(store, old.id)["superseded_by"] == new.id
    assert toml_of(store, new.id)["supersedes"] == [old.id]
    assert toml_of(store, new.id)["status"] == "confirmed"
    text = memory_md(store)
    assert "switched to pnpm" in text and "use npm" not in text
    store.undo()
    assert toml_of(store, old.id)["status"] == "confirmed"
    assert toml_of(store, new.id)["supersedes"] == []
    assert "- use npm" in memory_md(store)


def test_undo_skips_automatic_writers_and_redo_clears_on_new_change(store: Store) -> None:
    mine = store.add(Entry(summary="a fact a person added"), actor="cli")
    store.add(Entry(summary="a fact an agent flushed"), actor="agent")
    result = store.undo()
    assert result.ids == [mine.id]
    assert len(store.entries()) == 1 and store.entries()[0].summary == "a fact an agent flushed"
    store.add(Entry(summary="another"), actor="cli")
    with pytest.raises(StoreError, match="nothing to redo"):
        store.redo()


def test_undo_refuses_when_entry_changed_since(store: Store) -> None:
    entry = store.add(Entry(summary="one"), actor="cli")
    store.approve([entry.id], actor="cli")
    store.edit(entry.id, {"summary": "two"}, actor="agent")
    with pytest.raises(StoreError, match="changed since"):
        store.undo()


def test_any_old_version_is_rebuilt_from_the_journal(store: Store) -> None:
    entry = store.add(Entry(summary="v1"))
    store.edit(entry.id, {"summary": "v2"})
    store.edit(entry.id, {"summary": "v3", "tags": ["x"]})
    assert store.version_of(entry.id, 1).summary == "v1"
    assert store.version_of(entry.id, 2).summary == "v2"
    assert store.version_of(entry.id, 3).tags == ["x"]
    assert [r.op for r in store.history(entry.id)] == ["add", "edit", "edit"]


def test_batch_is_one_group_and_rolls_back_on_error(store: Store) -> None:
    a = store.add(Entry(summary="a"))
    with pytest.raises(RuntimeError), store.batch("cli", "bulk"):
        store.approve([a.id], actor="cli")
        store.add(Entry(summary="b"), actor="cli")
        raise RuntimeError("boom")
    assert toml_of(store, a.id)["status"] == "candidate"
    assert len(store.entries()) == 1
    with store.batch("cli", "bulk"):
        store.approve([a.id], actor="cli")
        store.add(Entry(summary="b"), actor="cli")
    groups = {r["group"] for r in journal(store)[1:]}
    assert len(groups) == 1
    store.undo()
    assert [e.summary for e in store.entries()] == ["a"]
    assert store.entries()[0].status == "candidate"


def test_guard_runs_before_disk(store: Store) -> None:
    entry = store.add(Entry(summary="deploy key is AKIAIOSFODNN7EXAMPLE for the bucket"))
    on_disk = (store.entries_dir / f"{entry.id}.toml").read_text()
    assert "AKIAIOSFODNN7EXAMPLE" not in on_disk
    assert "AKIAIOSFODNN7EXAMPLE" not in store.journal.path.read_text()
    with pytest.raises(GuardRefused):
        store.add(Entry(summary="<agent_memory>\n- use pnpm\n</agent_memory>"))


def test_resolve_id_prefix_and_errors(store: Store) -> None:
    entry = store.add(Entry(summary="x"))
    assert store.resolve_id(entry.id[:-3]) == entry.id
    with pytest.raises(NotFound):
        store.resolve_id("zzz")


def test_known_hashes_remember_rejected_text(store: Store) -> None:
    entry = store.add(Entry(summary="Remember: ship on Fridays"))
    store.reject([entry.id])
    assert entry.text_hash in store.known_hashes()


def test_known_hashes_follow_every_change_to_the_entries(store: Store) -> None:
    """Kept as counts per hash between calls: they must match a fresh read after our
    own writes, another process's writes, a file edited in place and a file removed."""
    from memdesk.core.entry_files import entry_to_toml

    def fresh() -> set[str]:
        hashes = {e.text_hash for e in Store.open(store.root).entries()}
        return hashes | {Entry(summary="Remember: ship on Fridays").text_hash}

    twin_a = store.add(Entry(summary="Use pnpm for installs"))
    twin_b = store.add(Entry(summary="use PNPM for installs"))  # same hash as twin_a
    gone = store.add(Entry(summary="Remember: ship on Fridays"))
    store.reject([gone.id])
    assert store.known_hashes() == fresh()
    store.edit(twin_a.id, {"summary": "Use npm for installs"})
    assert twin_b.text_hash in store.known_hashes()  # the other twin still holds it
    assert store.known_hashes() == fresh()
    Store.open(store.root).add(Entry(summary="Added by another process"))
    assert store.known_hashes() == fresh()
    path = store.entries_dir / f"{twin_b.id}.toml"
    edited = Store.open(store.root).get(twin_b.id)
    edited.summary = "Edited in place by a person"
    with path.open("r+b") as handle:  # same inode: only mtime and size tell
        handle.truncate(0)
        handle.write(entry_to_toml(edited))
    assert store.known_hashes() == fresh()
    assert twin_b.text_hash not in store.known_hashes()
    path.unlink()
    assert store.known_hashes() == fresh()


def test_journal_records_of_some_ops_match_a_full_read(store: Store) -> None:
    """`records_of` skips parsing lines without the ops' names and reads only the new
    tail each time; it must give what filtering a full read gives."""
    from memdesk.core.journal import Journal

    ops = ("reject", "delete", "merge")
    kept = Journal(store.journal.path)  # one reader across the changes, as a Store keeps

    def full() -> list[tuple[str, str, int | None]]:
        records = Journal(store.journal.path).records()
        return [(r.op, r.entry_id, r.version_before) for r in records if r.op in ops]

    def incremental() -> list[tuple[str, str, int | None]]:
        return [(r.op, r.entry_id, r.version_before) for r in kept.records_of(ops)]

    a = store.add(Entry(summary="Remember to reject this"))
    b = store.add(Entry(summary="A note that says merge, delete and reject in words"))
    c = store.add(Entry(summary="Folded into another one"))
    assert incremental() == full() == []  # the words in a summary are not an op
    store.reject([a.id])
    assert incremental() == full() and len(full()) == 1
    store.merge_into(c.id, b.id)
    store.delete([b.id])
    assert incremental() == full() and {op for op, _, _ in full()} == set(ops)
    # Replaced by a shorter journal (another inode): read again from the start.
    lines = store.journal.path.read_text("utf-8").splitlines(keepends=True)
    replacement = store.journal.path.with_name("journal.new")
    replacement.write_text("".join(lines[:4]), "utf-8")
    replacement.replace(store.journal.path)
    assert incremental() == full() and len(full()) == 1


def test_due_to_expire(store: Store) -> None:
    import datetime as dt

    store.add(Entry(summary="freeze until friday", valid_until=dt.date(2020, 1, 1)))
    store.add(Entry(summary="forever"))
    assert [e.summary for e in store.due_to_expire()] == ["freeze until friday"]


def test_subscribers_hear_every_commit(store: Store) -> None:
    heard = []
    store.subscribe(heard.append)
    entry = store.add(Entry(summary="x"), actor="cli")
    store.approve([entry.id], actor="tui")
    assert [(c.op, c.actor) for c in heard] == [("add", "cli"), ("approve", "tui")]


def test_merge_into_folds_candidate_and_is_undoable(store: Store) -> None:
    target = store.add(Entry(summary="use pnpm", status="confirmed", tags=["web"]))
    cand = store.add(Entry(summary="pnpm 9 in CI", tags=["ci"]))
    store.merge_into(cand.id, target.id, actor="tui")
    merged = toml_of(store, target.id)
    assert "pnpm 9 in CI" in merged["facts"] and merged["tags"] == ["web", "ci"]
    assert store.find(cand.id) is None
    store.undo()
    assert store.find(cand.id) is not None and toml_of(store, target.id)["facts"] == []


def test_memory_md_survives_restart_without_reingesting(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    store.add(Entry(summary="confirmed fact", status="confirmed"))
    with open(tmp_path / "MEMORY.md", "a", encoding="utf-8") as handle:
        handle.write("- 记住：周五不发版\n")
    assert [e.summary for e in store.ingest_memory_md()] == ["记住：周五不发版"]
    again = Store.open(tmp_path)
    assert again.ingest_memory_md() == []
    assert [e.source.origin for e in again.entries()].count("MEMORY.md") == 1
    again.render_memory_md()
    assert "周五不发版" not in (tmp_path / "MEMORY.md").read_text()  # in the queue now
    assert "- confirmed fact" in (tmp_path / "MEMORY.md").read_text()


def test_what_the_journal_records_is_what_the_file_reads_back_as(store: Store) -> None:
    # An entry built in code (not read from disk) may carry untrimmed text; the store
    # normalises it before writing, so file, journal and the returned entry agree.
    added = store.add(Entry(summary="  fact 6-1-6 \n", facts=["提交前跑 pytest "]), actor="cli")
    assert added.summary == "fact 6-1-6"
    reread = Store.open(store.root).get(added.id)
    assert journal(store)[-1]["after"] == reread.to_json() == added.to_json()
    edited = store.edit(added.id, {"summary": "fact 6-1-7\t"}, actor="cli")
    assert Store.open(store.root).get(added.id).to_json() == journal(store)[-1]["after"]
    assert edited.summary == "fact 6-1-7"
