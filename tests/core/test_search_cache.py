"""Vector cache: restarts embed nothing, a changed entry re-embeds alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.search import SearchService
from memdesk.core.search.vector_cache import VectorCache, content_key
from search_fakes import CountingEmbedder


def _entries() -> list[Entry]:
    return [Entry(summary=f"fact number {i} about the build", id=f"e{i}") for i in range(6)]


def test_restart_with_unchanged_entries_embeds_nothing(tmp_path: Path) -> None:
    entries = _entries()
    first = CountingEmbedder()
    assert SearchService(tmp_path, embedder=first).sync(entries).embedded == 6
    assert len(first.embedded) == 6

    again = CountingEmbedder()
    report = SearchService(tmp_path, embedder=again).sync(entries)
    assert report.embedded == 0
    assert again.embedded == []


def test_one_changed_entry_reembeds_alone(tmp_path: Path) -> None:
    entries = _entries()
    SearchService(tmp_path, embedder=CountingEmbedder()).sync(entries)
    entries[3] = entries[3].copy(summary="a brand new fact", version=2)
    counting = CountingEmbedder()
    SearchService(tmp_path, embedder=counting).sync(entries)
    assert counting.embedded == ["a brand new fact"]


def test_update_embeds_only_the_updated_entry(tmp_path: Path) -> None:
    entries = _entries()
    counting = CountingEmbedder()
    service = SearchService(tmp_path, embedder=counting)
    service.sync(entries)
    counting.embedded.clear()
    service.update(Entry(summary="the release checklist", id="new"))
    assert counting.embedded == ["the release checklist"]
    assert service.search("release checklist", mode="semantic")[0].entry_id == "new"


def test_progress_callback_reports_batches(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    SearchService(tmp_path, embedder=CountingEmbedder()).sync(
        _entries(), progress=lambda done, total: seen.append((done, total))
    )
    assert seen[0] == (0, 6) and seen[-1] == (6, 6)


def test_sync_async_runs_off_the_callers_thread(tmp_path: Path) -> None:
    import threading

    threads: list[str] = []
    service = SearchService(tmp_path, embedder=CountingEmbedder())
    future = service.sync_async(
        _entries(), progress=lambda d, t: threads.append(threading.current_thread().name)
    )
    assert future.result(timeout=30).embedded == 6
    assert threads and all(name != threading.current_thread().name for name in threads)


def test_cache_segments_survive_restart_and_skip_corrupt_files(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path, 4)
    cache.put([content_key("a")], np.ones((1, 4), np.float32))
    cache.flush()
    cache.put([content_key("b")], np.full((1, 4), 2.0, np.float32))
    cache.flush()
    (tmp_path / "seg-000003.npz").write_bytes(b"not a zip")
    reopened = VectorCache(tmp_path, 4)
    assert len(reopened) == 2
    assert reopened.get(content_key("b"))[0] == 2.0


def test_vectors_stay_right_through_updates_removes_and_growth(tmp_path: Path) -> None:
    fake = CountingEmbedder()
    entries = _entries()
    service = SearchService(tmp_path, embedder=fake)
    service.sync(entries)
    old_text = entries[0].search_text()
    service.update(entries[0].copy(summary="alpha beta gamma", version=2))
    service.remove("e5")
    service.remove("e1")
    for i in range(30):  # grows the matrix several times
        service.update(Entry(summary=f"added entry {i} delta", id=f"x{i}"))
    assert np.allclose(service.vector_of("e0"), fake.embed(["alpha beta gamma"])[0], atol=2e-3)
    assert np.allclose(
        service.vector_of("e3"), fake.embed([entries[3].search_text()])[0], atol=2e-3
    )
    assert np.allclose(service.vector_of("x7"), fake.embed(["added entry 7 delta"])[0], atol=2e-3)
    assert service.vector_of("e5") is None
    # a fresh process agrees with the incremental state and embeds nothing new
    again = CountingEmbedder()
    current = [entries[0].copy(summary="alpha beta gamma", version=2), *entries[2:5]]
    current += [Entry(summary=f"added entry {i} delta", id=f"x{i}") for i in range(30)]
    current.append(Entry(summary=old_text, id="back"))  # the replaced text, from disk
    restarted = SearchService(tmp_path, embedder=again)
    restarted.sync(current)
    assert again.embedded == []
    assert np.allclose(restarted.vector_of("x7"), fake.embed(["added entry 7 delta"])[0], atol=2e-3)
    assert np.allclose(restarted.vector_of("back"), fake.embed([old_text])[0], atol=2e-3)
