"""Real processes: concurrent writers, an appender racing the renderer, SIGKILL."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.entry_files import read_entry_file
from memdesk.core.store import Store


def spawn(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


EDITOR = """
import sys
from memdesk.core.store import Store
from memdesk.core.merge import MergeConflict
root, entry_id, who, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
store = Store.open(root)
for i in range(count):
    seen = store.get(entry_id)  # read, think, write based on what was read
    store.edit(entry_id, {"tags": [*seen.tags, f"{who}-{i}"]}, base_version=seen.version, actor=who)
print("ok")
"""


def test_two_processes_editing_one_entry_lose_nothing(store: Store) -> None:
    entry = store.add(Entry(summary="shared entry"))
    n = 40
    procs = [spawn(EDITOR, str(store.root), entry.id, who, str(n)) for who in ("alice", "bob")]
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    final = Store.open(store.root).get(entry.id)
    assert sorted(final.tags) == sorted(
        [f"alice-{i}" for i in range(n)] + [f"bob-{i}" for i in range(n)]
    )
    assert final.version == 1 + 2 * n
    versions = [r.version_after for r in store.history(entry.id)]
    assert versions == list(range(1, 2 * n + 2))


APPENDER = """
import os, sys, time
path, stop, mode = sys.argv[1], sys.argv[2], sys.argv[3]
handle = open(path, "a", encoding="utf-8")
i = 0
while not os.path.exists(stop):
    if mode == "reopen" and i % 50 == 0:
        handle.close()
        handle = open(path, "a", encoding="utf-8")
    handle.write(f"- appended fact number {i} from the agent\\n")
    handle.flush()
    i += 1
    time.sleep(0.002)  # an agent appends often, but not in one burst
handle.close()
print(i)
"""


def _appender_run(store: Store, mode: str, min_rewrites: int = 15, min_lines: int = 1000) -> None:
    memory = store.root / "MEMORY.md"
    stop = store.root / "stop-appending"
    store.render_memory_md()
    proc = spawn(APPENDER, str(memory), str(stop), mode)
    rewrites = 0
    seen = 0
    deadline = time.monotonic() + 90
    # Keep rewriting MEMORY.md under the appender until both sides did enough work.
    while rewrites < min_rewrites or seen < min_lines:
        assert time.monotonic() < deadline, f"only {rewrites} rewrites, {seen} lines seen"
        added = store.add(Entry(summary=f"confirmed fact {rewrites}"), actor="cli")
        store.approve([added.id], actor="cli")  # changes MEMORY.md: a rewrite
        rewrites += 1
        seen = sum(1 for e in store.entries() if e.summary.startswith("appended fact number"))
        assert proc.poll() is None, "the appender stopped early"
    stop.touch()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    count = int(out)
    store.ingest_memory_md()
    store.render_memory_md()
    summaries = {e.summary for e in store.entries()}
    text = memory.read_text("utf-8")
    missing = [
        i
        for i in range(count)
        if f"appended fact number {i} from the agent" not in summaries
        and f"- appended fact number {i} from the agent" not in text
    ]
    assert count >= min_lines
    assert missing == []
    # With the appender gone, the next drain reads and drops every retired inode.
    store.ingest_memory_md()
    assert not list((store.meta_dir / "retired").glob("*")), "retired files were not drained"


def test_appender_holding_the_file_open_loses_nothing(store: Store) -> None:
    _appender_run(store, "hold")


def test_appender_reopening_the_file_loses_nothing(store: Store) -> None:
    _appender_run(store, "reopen")


WRITER = """
import sys, random
import memdesk.core.guard  # what the first write loads: "ready" means ready to write
from memdesk.core.entry import Entry
from memdesk.core.store import Store
store = Store.open(sys.argv[1])
rng = random.Random(int(sys.argv[2]))
print("ready", flush=True)
i = 0
while True:
    i += 1
    with store.batch("cli", "bulk"):
        added = [store.add(Entry(summary=f"fact {sys.argv[2]}-{i}-{k} " + "x" * rng.randint(0, 400)), actor="cli") for k in range(8)]
        store.approve([e.id for e in added[:4]], actor="cli")
    entries = store.entries()
    if len(entries) > 2:
        old, new = rng.sample(entries, 2)
        if old.status != "superseded" and new.status != "superseded":
            store.supersede(old.id, new.id, actor="cli")
"""


def _journal_view(root: Path) -> dict[str, dict | None]:
    latest: dict[str, dict | None] = {}
    for line in (root / ".memdesk" / "journal.jsonl").read_text("utf-8").splitlines():
        record = json.loads(line)
        if record.get("entry_id"):
            latest[record["entry_id"]] = record.get("after")
    return latest


def test_sigkill_at_random_points_leaves_store_before_or_after(store: Store) -> None:
    rng = random.Random(7)
    for round_no in range(6):
        proc = spawn(WRITER, str(store.root), str(round_no))
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.05, 0.6))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        reopened = Store.open(store.root)  # recovery rolls back an unfinished batch
        assert reopened.problems == []
        assert not reopened.pending_path.exists()
        assert not [p for p in reopened.entries_dir.iterdir() if p.name.startswith(".")]
        on_disk = {}
        for path in reopened.entries_dir.glob("*.toml"):
            item = read_entry_file(path, reopened.root)
            assert isinstance(item, Entry), item
            on_disk[item.id] = item.to_json()
        latest = _journal_view(reopened.root)
        assert {k for k, v in latest.items() if v is not None} == set(on_disk)
        for entry_id, data in on_disk.items():
            assert latest[entry_id] == data, f"{entry_id}: file and journal disagree"
    assert len(Store.open(store.root).entries()) > 0
