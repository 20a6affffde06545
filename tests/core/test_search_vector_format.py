"""Vector storage: int8 codes + per-row scale on disk and in memory, older formats and
damaged segments are read or skipped (never fatal), the matrix is built without copies."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
from memdesk.core.entry import Entry
from memdesk.core.search import SearchService
from memdesk.core.search.vector_cache import VectorCache, content_key, dequantise, quantise
from memdesk.core.search.vector_matrix import cosines as _cosines
from search_fakes import CountingEmbedder


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _entries(n: int = 6) -> list[Entry]:
    return [Entry(summary=f"fact number {i} about the build", id=f"e{i}") for i in range(n)]


def _vector_dir(tmp_path: Path) -> Path:
    return tmp_path / "vectors" / CountingEmbedder.name


def test_quantise_round_trip_keeps_cosines() -> None:
    vectors = _unit(np.random.default_rng(1), 200, 512)
    codes, scales = quantise(vectors)
    assert codes.dtype == np.int8 and scales.dtype == np.float32
    assert np.abs(dequantise(codes, scales) - vectors).max() <= scales.max() / 2 + 1e-7
    query = vectors[7]
    exact = vectors @ query
    approx = _cosines(codes, scales, query)
    assert np.abs(approx - exact).max() < 5e-3
    assert int(np.argmax(approx)) == 7
    zero_codes, zero_scales = quantise(np.zeros((1, 4), np.float32))  # no division by 0
    assert not zero_codes.any() and np.isfinite(zero_scales).all()


def test_segments_hold_int8_codes_and_survive_a_restart(tmp_path: Path) -> None:
    vectors = _unit(np.random.default_rng(2), 3, 8)
    cache = VectorCache(tmp_path, 8)
    cache.put([content_key(t) for t in "abc"], vectors)
    cache.flush()
    (segment,) = tmp_path.glob("seg-*.npz")
    with np.load(segment) as data:
        assert data["codes"].dtype == np.int8 and data["codes"].shape == (3, 8)
        assert data["scales"].dtype == np.float32
    reopened = VectorCache(tmp_path, 8)
    assert len(reopened) == 3
    assert np.allclose(reopened.get(content_key("b")), vectors[1], atol=4e-3)


def test_old_float16_cache_is_converted_without_reembedding(tmp_path: Path) -> None:
    entries = _entries()
    fake = CountingEmbedder()
    texts = [e.search_text() for e in entries]
    folder = _vector_dir(tmp_path)
    folder.mkdir(parents=True)
    np.savez(  # the format of earlier versions: unicode keys, float16 vectors
        folder / "seg-000001.npz",
        keys=np.array([content_key(t) for t in texts], dtype="U64"),
        vectors=fake.embed(texts).astype(np.float16),
    )
    counting = CountingEmbedder()
    service = SearchService(tmp_path, embedder=counting)
    assert service.sync(entries).embedded == 0
    assert counting.embedded == []
    assert np.allclose(service.vector_of("e2"), fake.embed([texts[2]])[0], atol=3e-3)
    # rewritten in the current format, so the conversion happens once
    (segment,) = folder.glob("seg-*.npz")
    with np.load(segment) as data:
        assert "codes" in data and "vectors" not in data
    again = CountingEmbedder()
    SearchService(tmp_path, embedder=again).sync(entries)
    assert again.embedded == []


def test_damaged_segments_are_skipped_and_their_texts_reembedded(tmp_path: Path) -> None:
    entries = _entries()
    SearchService(tmp_path, embedder=CountingEmbedder()).sync(entries[:3])
    SearchService(tmp_path, embedder=CountingEmbedder()).sync(entries)  # 2nd segment: e3-e5
    folder = _vector_dir(tmp_path)
    first, second = sorted(folder.glob("seg-*.npz"))
    second.write_bytes(second.read_bytes()[:-200])  # truncated by a crash
    (folder / "seg-000009.npz").write_bytes(b"not a zip")
    with zipfile.ZipFile(folder / "seg-000010.npz", "w") as archive:  # wrong dimension
        archive.writestr("keys.npy", b"")
    np.savez(
        folder / "seg-000011.npz",
        keys=np.array([content_key("x")], dtype="S64"),
        codes=np.zeros((1, 3), np.int8),
        scales=np.ones(1, np.float32),
    )
    counting = CountingEmbedder()
    service = SearchService(tmp_path, embedder=counting)
    assert service.sync(entries).embedded == 3
    assert sorted(counting.embedded) == sorted(e.search_text() for e in entries[3:])
    for entry in entries:
        expected = CountingEmbedder().embed([entry.search_text()])[0]
        assert np.allclose(service.vector_of(entry.id), expected, atol=3e-3), entry.id
    assert first.exists()


def test_first_sync_packs_the_cache_table_into_the_matrix(tmp_path: Path) -> None:
    fake = CountingEmbedder()
    entries = _entries(8)
    entries.append(Entry(summary=entries[2].summary, id="same-text"))  # shares e2's vector
    SearchService(tmp_path, embedder=CountingEmbedder()).sync(list(reversed(entries)))
    # another order, one entry gone, a stale vector in the cache: rows must move
    shuffled = [entries[i] for i in (5, 0, 7, 2, 8, 3, 1)]
    service = SearchService(tmp_path, embedder=CountingEmbedder())
    service.sync(shuffled)
    for entry in shuffled:
        expected = fake.embed([entry.search_text()])[0]
        assert np.allclose(service.vector_of(entry.id), expected, atol=3e-3), entry.id
    assert service.vector_of("e4") is None
    assert set(service.vectors()) == {e.id for e in shuffled}
    assert np.allclose(service.vectors()["same-text"], service.vector_of("e2"))
    hits = service.search(entries[7].summary, mode="semantic")
    assert hits[0].entry_id == "e7"


def test_older_state_file_reindexes_instead_of_failing(tmp_path: Path) -> None:
    entries = _entries()
    SearchService(tmp_path, embedder=CountingEmbedder()).sync(entries)
    state = tmp_path / "search-state.json"
    state.write_text(json.dumps({"version": 1, "entries": {"e0": [1, "abc"]}}), "utf-8")
    service = SearchService(tmp_path, embedder=CountingEmbedder())
    report = service.sync(entries)
    assert report.added == len(entries) and report.embedded == 0
    assert service.search("fact number 3", mode="text")[0].entry_id == "e3"
    assert json.loads(state.read_text("utf-8"))["version"] == 2


def test_take_hands_over_rows_for_repeated_keys(tmp_path: Path) -> None:
    vectors = _unit(np.random.default_rng(3), 3, 8)
    keys = [content_key(t) for t in "abc"]
    cache = VectorCache(tmp_path, 8)
    cache.put(keys, vectors)
    cache.flush()
    reopened = VectorCache(tmp_path, 8)
    wanted = [keys[2], keys[0], keys[2], keys[1], keys[0]]  # more rows than the table
    codes, scales, placed = reopened.take(wanted)
    assert sorted(placed) == list(range(len(wanted)))
    got = dequantise(codes, scales)
    for row, index in enumerate(placed):
        assert np.allclose(got[row], vectors[keys.index(wanted[index])], atol=4e-3)
    assert len(reopened) == 3  # released, read again from disk on demand


def test_vectors_view_stacks_rows_in_bulk(tmp_path: Path) -> None:
    entries = _entries()
    service = SearchService(tmp_path, embedder=CountingEmbedder())
    service.sync(entries)
    view = service.vectors()
    assert len(view) == len(entries) and "e3" in view and "nope" not in view
    matrix = view.stack(["e4", "e1"])
    assert matrix.dtype == np.float32 and matrix.shape == (2, CountingEmbedder.dim)
    assert np.allclose(matrix[0], view["e4"]) and np.allclose(matrix[1], view["e1"])
