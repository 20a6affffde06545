"""SearchService on a real Store: for_store syncs, follow keeps it current."""

from __future__ import annotations

from pathlib import Path

from memdesk.core.entry import Entry
from memdesk.core.search import SearchService
from memdesk.core.store import Store


def _store(tmp_path: Path) -> Store:
    store = Store.init(tmp_path)
    with store.settings_path.open("a", encoding="utf-8") as settings:
        settings.write('\n[search]\nmodel = "none"\n')
    return store


def test_for_store_indexes_the_entries(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add(Entry(summary="运行测试前先启动数据库", id="m-zh"), actor="cli")
    service = SearchService.for_store(store)
    assert [h.entry_id for h in service.search("测试")] == ["m-zh"]
    assert service.index_dir == store.index_dir


def test_follow_applies_store_changes(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add(Entry(summary="cache lives in redis", id="m-a"), actor="cli")
    service = SearchService.for_store(store)
    stop = service.follow(store)
    store.add(Entry(summary="queue is kafka", id="m-b"), actor="cli")
    store.edit("m-a", {"summary": "cache lives in memcached"}, actor="cli")
    service.wait_idle(timeout=30)
    assert [h.entry_id for h in service.search("kafka")] == ["m-b"]
    assert [h.entry_id for h in service.search("memcached")] == ["m-a"]
    assert service.search("redis") == []
    store.delete(["m-b"], actor="cli")
    service.wait_idle(timeout=30)
    assert service.search("kafka") == []
    stop()
    store.add(Entry(summary="search uses tantivy", id="m-c"), actor="cli")
    service.wait_idle(timeout=30)
    assert service.search("tantivy") == []  # no longer following
