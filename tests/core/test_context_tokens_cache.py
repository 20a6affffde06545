"""Token counters and the assembly cache."""

from __future__ import annotations

import pytest
from context_fixtures import TODAY, make, project_memory
from memdesk.core.context.cache import ContextCache, entries_version
from memdesk.core.context.tokens import (
    CharCounter,
    EstimateCounter,
    TokenCounter,
    get_counter,
)


def test_counters_follow_the_protocol_and_say_who_they_are():
    for counter in (CharCounter(), EstimateCounter(), get_counter("tokens", "estimate")):
        assert isinstance(counter, TokenCounter)
        assert counter.name
    assert get_counter("chars").name == "chars"
    assert get_counter("tokens", "estimate").name == "estimate-o200k-v1"


def test_chars_counts_code_points_not_bytes():
    assert CharCounter().count("数据库") == 3
    assert CharCounter().count("ab") == 2


def test_estimate_counts_chinese_about_one_per_character():
    est = EstimateCounter()
    assert est.count("数据库迁移命令") == 7
    assert est.count("") == 0


def test_estimate_counts_english_about_one_per_word():
    est = EstimateCounter()
    # 8 words x 1.1 + 1 punctuation mark x 0.35 = 9.15, rounded up (o200k_base says 9)
    assert est.count("the cat sat on the mat all day.") == 10
    # long words cost more than short ones
    assert est.count("internationalization") > est.count("cat")


def test_estimate_is_additive_over_lines():
    est = EstimateCounter()
    a, b = "运行测试：uv run pytest -q", "Deploy with make deploy"
    parts = est.count(a) + est.count("\n") + est.count(b)
    # rounding up per part may add at most one unit per part
    assert est.count(a + "\n" + b) <= parts <= est.count(a + "\n" + b) + 2


def test_unknown_tokenizer_setting_says_what_is_allowed(tmp_path):
    with pytest.raises(ValueError, match="allowed: auto, estimate"):
        get_counter("tokens", str(tmp_path / "missing.json"))


def test_tokenizer_json_counter(tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers

    tok = tokenizers.Tokenizer(models.WordLevel({"hello": 0, "world": 1, "[UNK]": 2}, "[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    # embedding models' files often pad/truncate to a fixed length: counts must ignore that
    tok.enable_padding(length=16, pad_id=2, pad_token="[UNK]")
    tok.enable_truncation(max_length=2)
    path = tmp_path / "tok" / "tokenizer.json"
    path.parent.mkdir()
    tok.save(str(path))
    counter = get_counter("tokens", str(path))
    assert counter.name == "tokenizer.json:tok"
    assert counter.count("hello world hello") == 3


def test_cache_hits_until_an_entry_changes():
    cache = ContextCache(ttl_seconds=300)
    entries = project_memory()
    first = cache.assemble(entries, budget=500, today=TODAY)
    second = cache.assemble(entries, budget=500, today=TODAY)
    assert second is first and cache.hits == 1
    # a different budget is a different key
    assert cache.assemble(entries, budget=400, today=TODAY) is not first
    # editing an entry bumps its version: the fingerprint changes, so no stale answer
    entries[1] = entries[1].copy(summary="tidepool now runs on Python 3.13", version=2)
    third = cache.assemble(entries, budget=500, today=TODAY)
    assert third is not first and "3.13" in third.text


def test_cache_invalidates_by_tag_even_with_the_same_store_version():
    cache = ContextCache()
    entries = project_memory()
    first = cache.assemble(entries, budget=500, today=TODAY, store_version=7)
    assert cache.assemble(entries, budget=500, today=TODAY, store_version=7) is first
    # an excluded entry is a tag too: approving a candidate must change the answer
    assert cache.invalidate_tags(["cand-1"]) == 1
    assert len(cache) == 0
    assert cache.assemble(entries, budget=500, today=TODAY, store_version=7) is not first


def test_cache_entries_expire_after_the_ttl():
    now = [1000.0]
    cache = ContextCache(ttl_seconds=10, clock=lambda: now[0])
    entries = [make("a", "a fact", "project")]
    first = cache.assemble(entries, budget=100, today=TODAY)
    now[0] += 9.9
    assert cache.assemble(entries, budget=100, today=TODAY) is first
    now[0] += 0.2
    assert cache.assemble(entries, budget=100, today=TODAY) is not first


def test_entries_version_changes_with_versions():
    entries = project_memory()
    before = entries_version(entries)
    entries[0] = entries[0].copy(version=2)
    assert entries_version(entries) != before


def test_store_version_memo_gives_the_same_answers():
    from memdesk.core.context import assemble

    entries = project_memory()
    for query in (None, "数据库连接超时", "arq background jobs"):
        for budget in (60, 200, 5000):
            plain = assemble(entries, query=query, budget=budget, today=TODAY)
            for _ in range(2):  # first call fills the memo, second reads it
                memo = assemble(
                    entries, query=query, budget=budget, today=TODAY, store_version="v1"
                )
                assert memo.text == plain.text
                assert [e.to_json() for e in memo.excluded] == [e.to_json() for e in plain.excluded]


def test_a_new_store_version_sees_changed_entries():
    from memdesk.core.context import assemble

    entries = project_memory()
    first = assemble(entries, budget=5000, today=TODAY, store_version="v1")
    changed = [e.copy(status="expired") if e.id == "proj-1" else e for e in entries]
    second = assemble(changed, budget=5000, today=TODAY, store_version="v2")
    assert "proj-1" in [i.entry_id for i in first.included]
    assert {e.entry_id: e.reason for e in second.excluded}["proj-1"] == "expired"


def test_lexical_index_scores_like_the_plain_scan():
    from memdesk.core.context.query import LexicalIndex, lexical_scores

    entries = project_memory()
    index = LexicalIndex(entries)
    for query in ("数据库连接超时", "arq background jobs", "用户偏好 中文", "nothing-matches-this"):
        assert index.scores(query) == lexical_scores(query, entries)


def test_cache_attached_to_a_store_drops_results_when_an_entry_changes(tmp_path):
    from memdesk.core.demo import copy_demo_project
    from memdesk.core.store import Store

    store = Store.open(copy_demo_project(tmp_path / "demo"))
    cache = ContextCache.from_settings(store.settings)
    detach = cache.attach(store)
    first = cache.assemble(store.entries(), settings=store.settings, store_version=1)
    assert cache.assemble(store.entries(), settings=store.settings, store_version=1) is first
    candidate = next(e for e in store.entries() if e.status == "candidate" and not e.flags)
    store.approve([candidate.id])
    # same store_version on purpose: the tag (the entry id) alone must invalidate
    second = cache.assemble(store.entries(), settings=store.settings, store_version=1)
    assert second is not first
    reasons = {e.entry_id: e.reason for e in second.excluded}
    assert reasons.get(candidate.id) != "status"  # the fresh answer sees the approval
    assert {e.entry_id: e.reason for e in first.excluded}[candidate.id] == "status"
    detach()
