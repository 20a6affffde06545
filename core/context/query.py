"""What a query needs (seed 001 `analyze_query`) and a built-in lexical relevance score.

Both work for Chinese, English and mixed text. The lexical score is the fallback when no
search callable (hybrid search from `memdesk.core.search`) is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from memdesk.core.entry import Entry
from memdesk.core.stopwords import ENGLISH_STOPWORDS

# Seed 001's cue words per requirement, extended to the sections an assembly has, in both
# languages. Matching is by substring on the casefolded query (Chinese has no spaces).
_CUES: dict[str, tuple[str, ...]] = {
    "preferences": (
        "prefer", "style", "like", "habit", "profile", "i am", "my ",
        "偏好", "喜欢", "习惯", "风格", "口味", "我是", "我的",
    ),
    "project": (
        "project", "task", "status", "progress", "architecture", "design", "stack", "decision",
        "项目", "任务", "状态", "进度", "架构", "设计", "技术栈", "决定", "决策",
    ),
    "events": (
        "previous", "before", "last time", "remember", "yesterday", "recent", "meeting",
        "上次", "之前", "以前", "记得", "昨天", "最近", "会议",
    ),
    "experience": (
        "error", "bug", "fail", "fix", "debug", "crash", "traceback", "why does",
        "报错", "错误", "失败", "修复", "调试", "崩溃", "异常", "为什么",
    ),
    "commands": (
        "command", "run ", "build", "test", "install", "deploy", "migrate", "setup", "env",
        "命令", "运行", "构建", "测试", "安装", "部署", "迁移", "环境", "配置",
    ),
    "resources": (
        "example", "sample", "pattern", "how to", "docs", "link", "reference",
        "例子", "示例", "样例", "怎么", "如何", "文档", "链接", "参考",
    ),
}  # fmt: skip


@dataclass
class ContextRequirement:
    """Which sections a query asks for; `matched` keeps the cue words, for explanations."""

    sections: set[str] = field(default_factory=set)
    matched: dict[str, list[str]] = field(default_factory=dict)

    def needs(self, section: str) -> bool:
        return section in self.sections


def analyze_query(query: str) -> ContextRequirement:
    """Seed 001's heuristic: cue words -> needed sections; nothing recognised -> profile."""
    text = query.casefold() + " "
    req = ContextRequirement()
    for section, cues in _CUES.items():
        hits = [cue.strip() for cue in cues if cue in text]
        if hits:
            req.sections.add(section)
            req.matched[section] = hits
    if not req.sections:
        # Seed 001's fallback: when nothing is recognised, load the user profile.
        req.sections.add("preferences")
        req.matched["preferences"] = []
    return req


_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")
_WORD = re.compile(r"[0-9a-z][0-9a-z_.+-]*[0-9a-z]|[0-9a-z]")
# The search tokenizer's list: one list for both, and on the bilingual dev set it ranks
# slightly better for the preview than the shorter list this module had (R@1 0.577 ->
# 0.596, MRR 0.652 -> 0.662, R@5 0.75 both; no `none` query reaches 0.5).
_STOP_WORDS = ENGLISH_STOPWORDS
# Function characters that match nearly every Chinese sentence and carry no topic.
_STOP_CJK = frozenset(
    "的了是在和与及或也都就还把被让对为这那个我你他她它们吗呢吧啊么有没不要会能用"
)


def terms(text: str) -> set[str]:
    """Words (casefolded, minus stop words) plus CJK bigrams (single chars for 1-char runs)."""
    folded = text.casefold()
    out = {w for w in _WORD.findall(folded) if w not in _STOP_WORDS}
    for run in _CJK_RUN.findall(folded):
        if len(run) == 1:
            if run not in _STOP_CJK:
                out.add(run)
            continue
        for i in range(len(run) - 1):
            pair = run[i : i + 2]
            if not (pair[0] in _STOP_CJK and pair[1] in _STOP_CJK):
                out.add(pair)
    return out


def lexical_scores(query: str, entries: Iterable[Entry]) -> dict[str, float]:
    """Share of the query's terms found in each entry (summary, facts, tags, headings):
    0..1."""
    wanted = terms(query)
    if not wanted:
        return {}
    scores: dict[str, float] = {}
    for entry in entries:
        have = _entry_terms(entry.summary, tuple(entry.facts), _labels(entry))
        hit = len(wanted & have)
        if hit:
            scores[entry.id] = hit / len(wanted)
    return scores


def _labels(entry: Entry) -> tuple[str, ...]:
    """Tags and the headings an entry sits under: a line's subject is part of it."""
    return (*entry.tags, *entry.section)


_TERM_CACHE: dict[tuple[str, tuple[str, ...], tuple[str, ...]], frozenset[str]] = {}


def _entry_terms(summary: str, facts: tuple[str, ...], tags: tuple[str, ...]) -> frozenset[str]:
    key = (summary, facts, tags)
    found = _TERM_CACHE.get(key)
    if found is None:
        if len(_TERM_CACHE) > 200_000:
            _TERM_CACHE.clear()
        found = frozenset(terms("\n".join((summary, *facts, " ".join(tags)))))
        _TERM_CACHE[key] = found
    return found


class ScoredHit(Protocol):
    @property
    def entry_id(self) -> str: ...
    @property
    def score(self) -> float: ...


class Searches(Protocol):
    def search(self, query: str, *, mode: str = ..., limit: int = ...) -> Sequence[ScoredHit]: ...


def search_service_scorer(
    service: Searches, *, mode: str = "hybrid"
) -> Callable[[str, Sequence[Entry]], dict[str, float]]:
    """Adapt a search service (anything with `.search(query, mode=, limit=) -> [hit]`,
    hits having `entry_id` and `score`, e.g. memdesk.core.search.SearchService) to the
    `(query, entries) -> {entry_id: score}` callable `assemble` takes."""

    def scores(query: str, entries: Sequence[Entry]) -> dict[str, float]:
        wanted = {e.id for e in entries}
        hits = service.search(query, mode=mode, limit=max(1, len(wanted)))
        return {h.entry_id: float(h.score) for h in hits if h.entry_id in wanted and h.score > 0}

    scores.__name__ = f"search-{mode}"
    return scores


class LexicalIndex:
    """Inverted index over entries' terms: scoring a query touches only matching entries.

    `assemble` keeps one per store version, so typing a query in the preview does not
    re-read every entry."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.postings: dict[str, list[str]] = {}
        for entry in entries:
            for term in _entry_terms(entry.summary, tuple(entry.facts), _labels(entry)):
                self.postings.setdefault(term, []).append(entry.id)

    def scores(self, query: str) -> dict[str, float]:
        """Same numbers as `lexical_scores(query, entries)`."""
        wanted = terms(query)
        if not wanted:
            return {}
        hits: dict[str, int] = {}
        for term in wanted:
            for entry_id in self.postings.get(term, ()):
                hits[entry_id] = hits.get(entry_id, 0) + 1
        return {entry_id: n / len(wanted) for entry_id, n in hits.items()}
