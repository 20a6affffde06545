"""Cross-lingual scoring: each language centred on its own mean, z-scored per language."""

from __future__ import annotations

import numpy as np
import pytest
from memdesk.core.search.fusion import RankedLists, convex
from memdesk.core.search.languages import CJK, LATIN, MIN_GROUP, LanguageCentering, language_of
from memdesk.core.search.vector_cache import quantise
from memdesk.core.search.vector_matrix import cosines


def test_language_of_tells_chinese_from_english_and_code() -> None:
    assert language_of("运单一共六种状态") == CJK
    assert language_of("What are all the states a shipment can be in?") == LATIN
    assert language_of("跑测试用 uv run pytest -x") == CJK  # mostly Chinese
    assert language_of("Release with bump-my-version; 版本") == LATIN
    assert language_of("") == LATIN


def _corpus(topics: int = MIN_GROUP + 2) -> tuple[np.ndarray, list[int]]:
    """One entry per topic in each language: a strong shared language direction plus a
    weaker topic direction, as multilingual encoders place them."""
    dim = 2 + topics
    rows, labels = [], []
    for label in (LATIN, CJK):
        for topic in range(topics):
            v = np.zeros(dim, np.float32)
            v[label] = 0.9
            v[2 + topic] = 0.43
            rows.append(v / np.linalg.norm(v))
            labels.append(label)
    return np.stack(rows), labels


def _quantised(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return quantise(vectors)


def test_the_other_language_s_answer_stands_out_after_centring() -> None:
    vectors, labels = _corpus()
    codes, scales = _quantised(vectors)
    query = vectors[3]  # an English text about topic 3
    plain = cosines(codes, scales, query)
    chinese_answer = len(labels) // 2 + 3
    # Plain cosine: every English entry beats the Chinese one on the same topic.
    assert plain[chinese_answer] < min(plain[: len(labels) // 2])

    centring = LanguageCentering()
    centring.refresh(codes, scales, labels)
    assert centring.active
    scores = centring.scores(plain, codes, scales, query, LATIN)
    chinese = scores[len(labels) // 2 :]
    assert int(np.argmax(chinese)) == 3
    english = scores[: len(labels) // 2]
    assert int(np.argmax(english)) == 3  # the same-language order is the plain one
    # The Chinese answer outranks every unrelated English entry.
    assert scores[chinese_answer] > np.delete(english, 3).max()


def test_one_language_only_leaves_the_cosines_alone() -> None:
    vectors, labels = _corpus()
    codes, scales = _quantised(vectors)
    centring = LanguageCentering()
    centring.refresh(codes, scales, [LATIN] * len(labels))
    assert not centring.active
    plain = cosines(codes, scales, vectors[0])
    assert centring.scores(plain, codes, scales, vectors[0], LATIN) is plain
    few = [LATIN] * (len(labels) - MIN_GROUP + 1) + [CJK] * (MIN_GROUP - 1)
    centring.refresh(codes, scales, few)
    assert not centring.active  # too few entries to know a language's mean


def test_convex_credits_half_the_text_share_to_entries_full_text_cannot_see() -> None:
    lists = RankedLists(
        text=[("en", 4.0)], semantic=[("zh", 0.9), ("en", 0.5), ("far", 0.1)], text_weight=0.5
    )
    plain = convex(lists)
    assert plain["zh"] == pytest.approx(0.5)
    lists.text_blind = {"zh"}
    blind = convex(lists)
    assert blind["zh"] == pytest.approx(0.75)
    assert blind["en"] == plain["en"]
