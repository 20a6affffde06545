"""`memdesk context` keeps what it printed (core/context/block_cache.py): a run on an
unchanged store prints the kept block, byte for byte what assembling again prints, and
any change to what the block depends on (an entry, settings, the day, the arguments,
the code) assembles again. A read-only store reads as before and keeps nothing."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from fs_faults import failing_writes
from memdesk.cli.main import main
from memdesk.core.context import block_cache
from memdesk.core.context import request as context_request
from memdesk.core.demo import copy_demo_project
from memdesk.core.entry import Entry
from memdesk.core.store import Store

DAY = dt.date.today()
LATER_NS = 10_000_000_000  # the runs happen this long after the files were written


@pytest.fixture()
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = copy_demo_project(tmp_path / "demo", today=DAY)
    store = Store.open(root)
    store.add(
        Entry(
            summary="Staging is frozen for the release this week",
            kind="event",
            status="confirmed",
            valid_until=DAY + dt.timedelta(days=5),
        )
    )
    # As if every run came well after the files were written (a store written in the
    # last two seconds is never keyed: see test_a_store_written_just_now_is_not_kept).
    monkeypatch.setattr(block_cache, "clock", _now)
    monkeypatch.setattr(block_cache, "today", lambda: DAY)
    return root


def _now() -> int:
    import time

    return time.time_ns() + LATER_NS


def blocks(root: Path) -> list[Path]:
    return sorted((root / ".memdesk" / "index").glob(block_cache.PREFIX + "*"))


def run(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> str:
    code = main(["--dir", str(root), "context", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def uncached(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> str:
    """What assembling prints now, with no kept block to read."""
    for path in blocks(root):
        path.unlink()
    return run(capsys, root, *args)


def kept(
    capsys: pytest.CaptureFixture[str], root: Path, monkeypatch: pytest.MonkeyPatch, *args: str
) -> str:
    """A run that must be served from the kept block: assembling is not allowed."""

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("assembled although the kept block was valid")

    with monkeypatch.context() as patch:
        patch.setattr(context_request, "assemble_for_store", refuse)
        return run(capsys, root, *args)


ARGUMENTS = [
    ["--budget", "1500"],
    ["--budget", "800", "--explain"],
    ["--purpose", "chat", "--budget", "600"],
    ["--unit", "chars", "--budget", "900", "--format", "markdown"],
    ["--scope", "project", "user", "--candidates", "--metadata"],
    ["--query", "how do I run the tests", "--lexical", "--explain"],
    ["--budget", "0"],
]


@pytest.mark.parametrize("args", ARGUMENTS, ids=lambda a: " ".join(a))
def test_a_kept_block_is_what_assembling_prints(demo, capsys, monkeypatch, args) -> None:
    fresh = uncached(capsys, demo, *args)
    assert blocks(demo), "the run kept its block"
    assert kept(capsys, demo, monkeypatch, *args) == fresh


def test_each_argument_set_has_its_own_block(demo, capsys, monkeypatch) -> None:
    outputs = {tuple(args): uncached(capsys, demo, *args) for args in ARGUMENTS[:4]}
    for path in blocks(demo):
        path.unlink()
    for args in ARGUMENTS[:4]:
        run(capsys, demo, *args)
    assert len(blocks(demo)) == 4
    for args in ARGUMENTS[:4]:
        assert kept(capsys, demo, monkeypatch, *args) == outputs[tuple(args)]
    assert len(set(outputs.values())) == 4


def _entry_file(root: Path, summary_part: str) -> Path:
    for path in sorted((root / ".memdesk" / "entries").glob("*.toml")):
        if summary_part in path.read_text("utf-8"):
            return path
    raise AssertionError(summary_part)


def _included_summary(root: Path) -> str:
    """The summary of an entry the default block shows."""
    store = Store.open(root)
    from memdesk.core.context.request import assemble_for_store

    chosen = assemble_for_store(store, budget=1500).chosen
    return chosen[0][1].summary


def _swappable(summary: str) -> tuple[str, str]:
    """A word of `summary` and the same word in the other case (same length in UTF-8)."""
    import re

    found = re.search(r"[A-Za-z]{3,}", summary)
    assert found is not None, summary
    return found.group(), found.group().swapcase()


def _same_size_edit(path: Path, old: str, new: str) -> None:
    """Rewrite `path` in place (same inode) with `old` replaced by `new` (same length)."""
    assert len(old.encode()) == len(new.encode())
    before = path.stat()
    text = path.read_bytes().replace(old.encode(), new.encode(), 1)
    with open(path, "r+b") as handle:
        handle.write(text)
    after = path.stat()
    assert (after.st_ino, after.st_size) == (before.st_ino, before.st_size)
    return None


def test_an_entry_edited_in_place_with_the_same_size(demo, capsys, monkeypatch) -> None:
    first = uncached(capsys, demo, "--budget", "1500")
    run(capsys, demo, "--budget", "1500")
    summary = _included_summary(demo)
    path = _entry_file(demo, summary)
    word, swapped = _swappable(summary)
    st = path.stat()
    _same_size_edit(path, word, swapped)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000))  # mtime moved by 1 µs
    again = run(capsys, demo, "--budget", "1500")
    assert again != first and swapped in again
    assert again == uncached(capsys, demo, "--budget", "1500")


def test_an_edit_with_the_mtime_put_back_is_seen(demo, capsys, monkeypatch) -> None:
    """Same inode, same size, same mtime: only the ctime tells (it cannot be set)."""
    first = uncached(capsys, demo, "--budget", "1500")
    summary = _included_summary(demo)
    path = _entry_file(demo, summary)
    word, swapped = _swappable(summary)
    st = path.stat()
    _same_size_edit(path, word, swapped)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns
    again = run(capsys, demo, "--budget", "1500")
    assert again != first and swapped in again
    assert again == uncached(capsys, demo, "--budget", "1500")


def test_entries_added_changed_and_deleted(demo, capsys, monkeypatch) -> None:
    store = Store.open(demo)
    first = uncached(capsys, demo, "--budget", "3000")
    added = store.add(
        Entry(summary="Releases are tagged by make release", kind="workflow", status="confirmed")
    )
    with_added = run(capsys, demo, "--budget", "3000")
    assert "make release" in with_added and with_added != first
    assert with_added == uncached(capsys, demo, "--budget", "3000")
    store.edit(added.id, {"summary": "Releases are tagged by make publish"})
    changed = run(capsys, demo, "--budget", "3000")
    assert "make publish" in changed and "make release" not in changed
    assert changed == uncached(capsys, demo, "--budget", "3000")
    store.delete([added.id])
    gone = run(capsys, demo, "--budget", "3000")
    assert "make publish" not in gone
    assert gone == uncached(capsys, demo, "--budget", "3000") == first


def test_a_settings_change_assembles_again(demo, capsys, monkeypatch) -> None:
    first = uncached(capsys, demo)
    settings = demo / ".memdesk" / "settings.toml"
    settings.write_text(settings.read_text("utf-8").replace("budget = 1200", "budget = 300", 1))
    text = settings.read_text("utf-8")
    assert "budget = 300" in text
    again = run(capsys, demo)
    assert again != first
    assert again == uncached(capsys, demo)
    settings.unlink()  # no settings at all: defaults
    defaults = run(capsys, demo)
    assert defaults == uncached(capsys, demo)


def test_the_next_day_assembles_again(demo, capsys, monkeypatch) -> None:
    args = ("--budget", "3000")
    today = uncached(capsys, demo, *args)
    assert "Staging is frozen" in today
    assert kept(capsys, demo, monkeypatch, *args) == today
    monkeypatch.setattr(block_cache, "today", lambda: DAY + dt.timedelta(days=10))
    later = run(capsys, demo, *args)
    assert "Staging is frozen" not in later  # past its valid_until
    assert later == uncached(capsys, demo, *args)
    assert kept(capsys, demo, monkeypatch, *args) == later


def test_a_store_written_just_now_is_not_kept(demo, capsys, monkeypatch) -> None:
    """A file changed within the file system clock's tick might change again without
    its times moving: the block is not kept until the store has been still a while."""
    import time

    monkeypatch.setattr(block_cache, "clock", time.time_ns)
    Store.open(demo).add(Entry(summary="Just written", status="confirmed"))
    run(capsys, demo)
    assert blocks(demo) == []


def test_a_damaged_or_foreign_block_is_not_believed(demo, capsys, monkeypatch) -> None:
    fresh = uncached(capsys, demo, "--explain")
    (path,) = blocks(demo)
    raw = path.read_bytes()
    for damaged in (
        b"",
        b"garbage",
        raw[: len(raw) // 2],  # truncated
        raw[:-2] + bytes([raw[-2] ^ 1]) + raw[-1:],  # a flipped byte in the text
        raw.replace(b'"key": "', b'"key": "0', 1),  # another key
    ):
        path.write_bytes(damaged)
        assert run(capsys, demo, "--explain") == fresh
    # Another checkout's block (same files copied: other inodes) matches nothing.
    copy = copy_demo_project(demo.parent / "copy", today=DAY)
    for child in (demo / ".memdesk" / "entries").iterdir():
        (copy / ".memdesk" / "entries" / child.name).write_bytes(child.read_bytes())
    (copy / ".memdesk" / "index" / path.name).write_bytes(path.read_bytes())
    assert run(capsys, copy, "--explain") == uncached(capsys, copy, "--explain")


def test_changed_code_assembles_again(demo, capsys, monkeypatch) -> None:
    fresh = uncached(capsys, demo)
    (path,) = blocks(demo)
    head, _, payload = path.read_bytes().partition(b"\n")
    assert b"block_cache.py" in head and b"assembler.py" in head  # the code is in the key
    code = demo.parent / "module.py"
    code.write_text("x = 1\n")
    found = block_cache.probe(demo.resolve(), ["--budget=None"])
    assert found is not None
    fake = block_cache.BlockProbe(found.path, found.key, found.today, True)
    monkeypatch.setattr(block_cache, "code_files", lambda _: [(str(code), *_key(code))])
    assert block_cache.remember(fake, "kept text\n")
    assert block_cache.recall(fake) == "kept text\n"
    code.write_text("x = 2\n")  # the code changed: the block no longer holds
    assert block_cache.recall(fake) is None
    assert fresh == run(capsys, demo)


def _key(path: Path) -> tuple[int, int, int, int]:
    st = path.stat()
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def test_an_interrupted_batch_is_rolled_back_first(demo, capsys, monkeypatch) -> None:
    uncached(capsys, demo)
    (demo / ".memdesk" / "pending-batch.json").write_text("{}")
    assert block_cache.probe(demo.resolve(), ["x"]) is None


def test_a_read_only_store_reads_and_keeps_nothing(demo, capsys, monkeypatch) -> None:
    args = ("--budget", "1200", "--explain")
    expected = uncached(capsys, demo, *args)
    for path in blocks(demo):
        path.unlink()
    with failing_writes(demo):
        assert run(capsys, demo, *args) == expected
        assert run(capsys, demo, *args) == expected
    assert blocks(demo) == []
    # A block kept while the store was writable is read while it is not.
    run(capsys, demo, *args)
    with failing_writes(demo):
        assert kept(capsys, demo, monkeypatch, *args) == expected


def test_json_and_search_ranked_queries_are_never_kept(demo, capsys) -> None:
    run(capsys, demo, "--json")
    assert blocks(demo) == []
