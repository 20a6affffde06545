"""Seed 001 metrics (core/stats.py) and `memdesk stats`."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
from memdesk.core.demo import copy_demo_project
from memdesk.core.entry import Entry
from memdesk.core.search import SearchService
from memdesk.core.stats import compute_stats, expired_per_day
from memdesk.core.store import Store


@pytest.fixture
def demo(tmp_path: Path) -> Store:
    return Store.open(copy_demo_project(tmp_path / "demo"))


def test_counts_sizes_and_confidence_of_the_demo(demo: Store) -> None:
    stats = compute_stats(demo, measure=False)
    entries = demo.entries()
    assert stats.entries == len(entries) == sum(stats.by_status.values())
    assert stats.by_status["candidate"] == sum(e.status == "candidate" for e in entries)
    assert sum(stats.by_kind.values()) == sum(stats.by_scope.values()) == len(entries)
    assert stats.entry_bytes == sum(p.stat().st_size for p in demo.entries_dir.glob("*.toml"))
    assert stats.store_bytes >= stats.entry_bytes
    live = [e for e in entries if e.status in ("candidate", "confirmed")]
    assert stats.average_confidence == pytest.approx(
        sum(e.confidence_value for e in live) / len(live)
    )
    assert stats.problems == 1 and stats.open_conflicts == 1  # lan-033's git markers
    assert stats.search_latency_ms is None and stats.index.state == "not opened"


def test_expired_per_day_comes_from_the_journal(demo: Store) -> None:
    demo.expire(["lan-013", "lan-014"])
    demo.undo()
    demo.redo()
    demo.approve(["cand-007"])
    stats = compute_stats(demo, measure=False)
    today = dt.datetime.now(dt.UTC).date().isoformat()
    # expire (2), undone (0), redone (2): an undone expiry does not count.
    assert stats.expired_per_day == {today: 2}
    assert expired_per_day([]) == {}


def test_index_health_and_latencies_with_a_search_service(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    for text in ("Run tests with cargo nextest", "构建用 lantern build", "pnpm 管理依赖"):
        store.add(Entry(text), actor="cli")
    service = SearchService(store.index_dir, {"search": {"model": "none"}})
    service.sync(store.entries())
    stats = compute_stats(store, service)
    assert stats.index.state == "ok" and stats.index.documents == 3
    assert stats.search_latency_ms is not None and stats.search_latency_ms >= 0
    assert stats.assembly_latency_ms is not None and stats.assembly_latency_ms >= 0
    store.add(Entry("A fourth fact arrives after indexing"), actor="cli")
    stale = compute_stats(store, service, measure=False)
    assert stale.index.state == "stale" and "1 document(s) missing" in stale.index.detail


def test_sections_extend_the_json(demo: Store) -> None:
    stats = compute_stats(demo, measure=False)
    stats.add_section("consolidation", {"runs": 2, "pruned": 5})
    data = stats.to_json()
    assert data["consolidation"] == {"runs": 2, "pruned": 5}
    assert data["bytes"]["entries"] == stats.entry_bytes
    json.dumps(data)


def test_cli_stats_json_and_text(demo: Store) -> None:
    run = [sys.executable, "-m", "memdesk.cli", "--dir", str(demo.root), "stats"]
    out = subprocess.run([*run, "--json", "--no-search"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["entries"] == len(demo.entries())
    assert data["latency_ms"]["assembly"] is not None
    text = subprocess.run([*run, "--no-search", "--no-timing"], capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    assert "status       candidate 15, confirmed 39" in text.stdout


def test_consolidation_metrics_join_the_stats(demo: Store) -> None:
    data = compute_stats(demo, measure=False).to_json()
    assert data["consolidation"]["runs"] == 0
    assert data["consolidation"]["totals"]["merged"] == 0


def test_index_size_is_that_of_the_index_in_use(tmp_path: Path) -> None:
    # A service may keep its index outside the store (a shared or relocated index):
    # the size shown is the one search uses, and the store's own size leaves it out.
    (tmp_path / "project").mkdir()
    store = Store.init(tmp_path / "project")
    store.add(Entry("Run tests with cargo nextest, 构建用 lantern build"), actor="cli")
    service = SearchService(tmp_path / "shared-index", {"search": {"model": "none"}})
    service.sync(store.entries())
    with_service = compute_stats(store, service, measure=False)
    alone = compute_stats(store, measure=False)
    shared_bytes = sum(
        f.stat().st_size for f in (tmp_path / "shared-index").rglob("*") if f.is_file()
    )
    own_bytes = sum(f.stat().st_size for f in store.index_dir.rglob("*") if f.is_file())
    # The store's own index folder holds only small derived files here (the guard's
    # verdicts noted at write), never the shared search index.
    assert with_service.index_bytes == shared_bytes > 0
    assert alone.index_bytes == own_bytes < shared_bytes
    assert with_service.store_bytes == alone.store_bytes


def test_undone_expiry_is_not_counted(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from memdesk.core.entry import Entry
    from memdesk.core.stats import compute_stats
    from memdesk.core.store import Store

    store = Store.init(tmp_path)
    kept = store.add(Entry(summary="Release freeze until Friday"), actor="cli")
    gone = store.add(Entry(summary="Staging is down this week"), actor="cli")
    store.expire([kept.id], actor="cli")
    store.expire([gone.id], actor="cli")
    assert sum(compute_stats(store, measure=False).expired_per_day.values()) == 2
    store.undo(actor="cli")  # the second expiry
    assert sum(compute_stats(store, measure=False).expired_per_day.values()) == 1
    store.redo(actor="cli")
    assert sum(compute_stats(store, measure=False).expired_per_day.values()) == 2


def test_a_link_in_memdesk_folders_is_not_followed_for_its_size(tmp_path: Path) -> None:
    # A file linked out of .memdesk/ (a pulled branch's, refused by the store) is
    # counted as the link itself: the file outside is not even stat-ed.
    from memdesk.core.stats import _size_of

    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"x" * 100_000)
    folder = tmp_path / "proj" / ".memdesk" / "conflicts"
    folder.mkdir(parents=True)
    (folder / "a.json").write_bytes(b"{}")
    (folder / "b.json").symlink_to(outside)
    assert _size_of(folder) < 1000
