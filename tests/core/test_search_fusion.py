"""Each fusion is one function in one table; the settings accept exactly its names."""

from __future__ import annotations

import datetime as dt

import pytest
from memdesk.core.entry import Entry
from memdesk.core.search.fusion import (
    FUSIONS,
    RankedLists,
    convex,
    coverage_rrf,
    fusion_for,
    rrf,
    status_weight,
)
from memdesk.core.search.settings import SearchSettings, SearchSettingsError


def lists() -> RankedLists:
    return RankedLists(text=[("a", 10.0), ("b", 5.0)], semantic=[("b", 0.9), ("c", 0.5)], rrf_k=60)


def test_rrf_adds_one_over_k_plus_rank_from_each_list() -> None:
    scores = rrf(lists())
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["c"] == pytest.approx(1 / 62)
    assert max(scores, key=scores.__getitem__) == "b"


def test_coverage_rrf_weighs_text_hits_by_matched_terms() -> None:
    ranked = lists()
    ranked.term_cover = {"a": 0.25, "b": 1.0}
    scores = coverage_rrf(ranked)
    assert scores["a"] == pytest.approx(0.25 / 61)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)


def test_convex_scales_bm25_by_best_and_cosine_min_max() -> None:
    ranked = lists()
    ranked.text_weight = 0.5
    scores = convex(ranked)
    assert scores["a"] == pytest.approx(0.5)  # best BM25, no semantic hit
    assert scores["b"] == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert scores["c"] == pytest.approx(0.0)  # the lowest cosine of the list


def test_single_list_modes_and_unknown_names() -> None:
    assert fusion_for("text", "convex")(lists()) == {"a": 10.0, "b": 5.0}
    assert fusion_for("semantic", "rrf")(lists()) == {"b": 0.9, "c": 0.5}
    assert fusion_for("hybrid", "rrf") is rrf
    with pytest.raises(ValueError, match="unknown fusion"):
        fusion_for("hybrid", "nope")


def test_settings_accept_every_fusion_in_the_table_and_nothing_else() -> None:
    for name in FUSIONS:
        assert SearchSettings.from_mapping({"fusion": name}).fusion == name
    with pytest.raises(SearchSettingsError):
        SearchSettings.from_mapping({"fusion": "borda"})
    with pytest.raises(SearchSettingsError):  # not text at all: one clear line too
        SearchSettings.from_mapping({"fusion": []})


def test_status_weight_ranks_outdated_knowledge_lower() -> None:
    confirmed = Entry("x", status="confirmed")
    past = Entry("y", status="confirmed", valid_until=dt.date(2000, 1, 1))
    assert status_weight(confirmed) == 1.0
    assert status_weight(Entry("z", status="candidate")) == 0.9
    assert status_weight(past) == 0.5
