"""Hybrid ranking: fusion order, filters, reasons, status weight, no-model fallback."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from memdesk.core.entry import Entry
from memdesk.core.search import SearchService, SearchSettings, SearchSettingsError
from search_fakes import CountingEmbedder


def _entries() -> list[Entry]:
    return [
        Entry(summary="deploy the web app with docker compose", id="both", status="confirmed"),
        Entry(summary="docker images are built in CI", id="text-only", status="confirmed"),
        Entry(summary="web app deploy compose", id="sem", status="confirmed"),
        Entry(summary="lunch is at noon", id="noise", status="confirmed"),
    ]


def _service(
    tmp_path: Path, entries: list[Entry] | None = None, fusion: str = "convex"
) -> SearchService:
    settings = {"search": {"min_similarity": 0.2, "fusion": fusion}}
    service = SearchService(tmp_path, settings, embedder=CountingEmbedder())
    service.sync(entries or _entries())
    return service


@pytest.mark.parametrize("fusion", ["convex", "rrf", "coverage-rrf"])
def test_hybrid_puts_entries_found_both_ways_first(tmp_path: Path, fusion: str) -> None:
    hits = _service(tmp_path, fusion=fusion).search("deploy web app with docker", mode="hybrid")
    assert hits[0].entry_id == "both"
    assert hits[0].text_rank is not None and hits[0].semantic_rank is not None
    assert "noise" not in [h.entry_id for h in hits]


def test_hit_reason_names_terms_and_similarity(tmp_path: Path) -> None:
    hit = _service(tmp_path).search("docker deploy", mode="hybrid")[0]
    assert set(hit.matched_terms) >= {"docker", "deploy"}
    assert "matched" in hit.reason and "similarity" in hit.reason
    assert hit.similarity is not None and 0 < hit.similarity <= 1
    data = hit.to_json()
    assert {"entry_id", "id", "score", "reason", "matched_terms", "similarity"} <= set(data)


def test_semantic_mode_ranks_by_cosine(tmp_path: Path) -> None:
    hits = _service(tmp_path).search("web app deploy compose", mode="semantic")
    assert hits[0].entry_id == "sem"
    assert hits[0].similarity == pytest.approx(1.0, abs=1e-5)
    sims = [h.similarity for h in hits]
    assert sims == sorted(sims, reverse=True)


def test_filters_apply_to_both_lists(tmp_path: Path) -> None:
    entries = _entries()
    entries[0] = entries[0].copy(status="candidate", kind="workflow")
    service = _service(tmp_path, entries)
    for mode in ("hybrid", "text", "semantic"):
        ids = [h.entry_id for h in service.search("deploy docker", mode=mode, status=["candidate"])]
        assert ids == ["both"], mode
        ids = [h.entry_id for h in service.search("deploy docker", mode=mode, kind=["workflow"])]
        assert ids == ["both"], mode


def test_time_filter(tmp_path: Path) -> None:
    entries = _entries()
    old = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    entries[0] = entries[0].copy(updated=old)
    service = _service(tmp_path, entries)
    since = dt.datetime(2021, 1, 1, tzinfo=dt.UTC)
    ids = [h.entry_id for h in service.search("deploy docker", since=since)]
    assert "both" not in ids and ids
    ids = [h.entry_id for h in service.search("deploy docker", until=since)]
    assert ids == ["both"]


def test_superseded_entries_rank_below_confirmed(tmp_path: Path) -> None:
    entries = [
        Entry(summary="format dates with moment", id="old", status="superseded"),
        Entry(summary="format dates with dayjs", id="new", status="confirmed"),
    ]
    hits = _service(tmp_path, entries).search("format dates", mode="hybrid")
    assert [h.entry_id for h in hits] == ["new", "old"]
    assert "superseded" in hits[1].reason


def test_limit(tmp_path: Path) -> None:
    assert len(_service(tmp_path).search("docker deploy web", limit=1)) == 1


def test_without_model_hybrid_runs_full_text(tmp_path: Path) -> None:
    service = SearchService(tmp_path, {"search": {"model": "none"}})
    service.sync(_entries())
    assert not service.has_model
    assert "off" in service.model_status
    hits = service.search("docker", mode="hybrid")
    assert {h.entry_id for h in hits} == {"both", "text-only"}
    assert all(h.similarity is None for h in hits)


def test_unavailable_model_says_so_and_text_search_works(tmp_path: Path) -> None:
    # An unknown fastembed model cannot be fetched offline: one clear status line.
    service = SearchService(tmp_path, {"search": {"model": "no-such/model-xyz"}})
    assert not service.has_model
    assert "full-text search only" in service.model_status
    service.sync(_entries())
    assert service.search("docker", mode="semantic")


def test_bad_settings_name_the_key(tmp_path: Path) -> None:
    with pytest.raises(SearchSettingsError, match="search.rrf_k"):
        SearchSettings.from_mapping({"search": {"rrf_k": 0}})
    with pytest.raises(SearchSettingsError, match="search.min_similarity"):
        SearchSettings.from_mapping({"search": {"min_similarity": "high"}})
    with pytest.raises(SearchSettingsError, match="unknown key search.colour"):
        SearchSettings.from_mapping({"search": {"colour": "red"}})
    with pytest.raises(ValueError, match="unknown search mode"):
        _service(tmp_path).search("x", mode="fuzzy")
