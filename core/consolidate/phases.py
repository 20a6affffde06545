"""Seed 001's four phases, each producing data or proposals (never writing):

- orient:      the topics and scope of recent sessions (session cache + recent entries),
- gather:      facts / preferences / outcomes / lessons / decisions of recent sessions,
               via the extractor command or the extraction heuristics on transcripts,
               else from the candidates already in the store,
- consolidate: exact and near duplicates -> merge; contradictions -> supersede (newer
               supersedes older); new facts get related links to similar entries,
- prune:       expire past valid_until (safe); delete low confidence and untouched;
               delete session summaries past their age; expire entries unused past
               the retention period.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from memdesk.core.consolidate.extractor import Gathered, gather_from_sources, transcript_paths
from memdesk.core.consolidate.plan import Proposal
from memdesk.core.consolidate.session_cache import SessionMemoryCache, SessionSummary
from memdesk.core.consolidate.settings import ConsolidationSettings
from memdesk.core.consolidate.similarity import (
    Similarity,
    pair_thresholds,
    pool_vectors,
)
from memdesk.core.entry import CONFIDENCE_VALUE, Entry
from memdesk.core.pairs import (
    DuplicatePair,
    PairThresholds,
    find_consolidation_pairs,
)
from memdesk.core.pairs.features import value_tokens
from memdesk.core.pairs.lexical_vectors import LexicalEmbedder, shared_feature_pairs
from memdesk.core.search.tokenizer import ENGLISH_STOPWORDS, has_cjk, tokenize

log = logging.getLogger("memdesk.consolidate")

ACTIVE: tuple[str, ...] = ("candidate", "confirmed")
# Kind -> seed 001 gather category.
CATEGORY_OF_KIND: dict[str, str] = {
    "preference": "preferences",
    "profile": "preferences",
    "decision": "decisions",
    "experience": "lessons",
    "event": "outcomes",
    "session": "outcomes",
    "project": "facts",
    "workflow": "facts",
    "resource": "facts",
}
CATEGORIES: tuple[str, ...] = ("facts", "preferences", "outcomes", "lessons", "decisions")
_CLIP = 120


def clip(text: str, width: int = _CLIP) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


# -- orient ----------------------------------------------------------------------------
@dataclass
class Orientation:
    workflow: str
    sessions: list[dict[str, Any]] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    topics_from: str = "heuristic"  # "extractor" when the LLM plug-in named topics
    scope: str = "shallow"  # "deep" when recent work is mostly about this project
    relevance: float = 0.0
    recent_entries: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "workflow": self.workflow,
            "sessions": self.sessions,
            "topics": self.topics,
            "topics_from": self.topics_from,
            "scope": self.scope,
            "relevance": round(self.relevance, 3),
            "recent_entries": self.recent_entries,
        }


def recent_entries(entries: Sequence[Entry], since: dt.datetime | None) -> list[Entry]:
    """Entries of the sessions since the last run (the candidate queue when never run)."""
    if since is None:
        return [e for e in entries if e.status == "candidate"]
    return [e for e in entries if e.created > since or e.updated > since]


def _topic_words(text: str) -> list[str]:
    words: list[str] = []
    previous = ""
    for token in tokenize(text):
        if has_cjk(token):
            if previous:
                words.append(previous + token)  # Chinese topics are mostly two characters
            previous = token
            continue
        previous = ""
        if len(token) >= 3 and token not in ENGLISH_STOPWORDS and not token.isdigit():
            words.append(token)
    return words


def orient(
    entries: Sequence[Entry],
    sessions: Sequence[SessionSummary],
    fresh_sessions: Sequence[SessionSummary],
    since: dt.datetime | None,
    settings: ConsolidationSettings,
    workflow: str,
    plugin_topics: Sequence[str] = (),
) -> Orientation:
    recent = recent_entries(entries, since)
    by_id: dict[str, SessionSummary] = {}
    for summary in [*sessions, *fresh_sessions]:
        by_id[summary.session_id or f"#{len(by_id)}"] = summary
    picked = sorted(by_id.values(), key=lambda s: s.timestamp)[-settings.recent_sessions :]
    tags: Counter[str] = Counter()
    words: Counter[str] = Counter()
    for entry in recent:
        tags.update(entry.tags)
        words.update(set(_topic_words(entry.summary)))
    for summary in picked:
        tags.update(summary.topics)
        words.update(set(_topic_words(" ".join([summary.user_input, *summary.decisions_made]))))
    # An LLM plug-in's own topics come first; tags and frequent words fill the rest.
    topics = list(dict.fromkeys(plugin_topics))[: settings.max_topics]
    topics += [t for t, _ in tags.most_common() if t not in topics][
        : settings.max_topics - len(topics)
    ]
    for word, count in words.most_common():
        if len(topics) >= settings.max_topics:
            break
        if count >= 2 and word not in topics:
            topics.append(word)
    project_side = sum(1 for e in recent if e.scope in ("project", "workspace"))
    relevance = project_side / len(recent) if recent else 0.0
    return Orientation(
        workflow=workflow,
        sessions=[
            {
                "session_id": s.session_id,
                "when": dt.datetime.fromtimestamp(s.timestamp, dt.UTC).isoformat(),
                "user_input": clip(s.user_input, 80),
                "topics": s.topics[:5],
            }
            for s in picked
        ],
        topics=topics,
        topics_from="extractor" if plugin_topics else "heuristic",
        scope="deep" if relevance > settings.deep_relevance else "shallow",
        relevance=relevance,
        recent_entries=len(recent),
    )


def cached_sessions(
    meta_dir: Path, settings: ConsolidationSettings, workflow: str
) -> list[SessionSummary]:
    cache = SessionMemoryCache(meta_dir, settings.max_sessions)
    return cache.get_recent_sessions(workflow, settings.recent_sessions)


# -- gather ----------------------------------------------------------------------------
def gather(
    store: Any,
    entries: Sequence[Entry],
    since: dt.datetime | None,
    settings: ConsolidationSettings,
    workflow: str,
    orientation_scope: str = "deep",
) -> Gathered:
    """New candidates from recent transcripts (extractor or heuristics), else the queue."""
    raw = store.settings
    gathered = gather_from_sources(
        store.root, transcript_paths(store.root, raw), raw, since, settings, workflow
    )
    if gathered.source == "store":
        for entry in recent_entries(entries, since):
            if entry.status == "candidate":
                gathered.categories.setdefault(
                    CATEGORY_OF_KIND.get(entry.kind, "facts"), []
                ).append(entry)
    return gathered


# -- consolidate -----------------------------------------------------------------------
def _keep_first(group: list[Entry]) -> list[Entry]:
    """Which copy survives a merge: confirmed over candidate, surer, then the oldest."""
    return sorted(
        group,
        key=lambda e: (e.status != "confirmed", -CONFIDENCE_VALUE[e.confidence], e.created, e.id),
    )


def consolidate(
    pool: Sequence[Entry],
    new_entries: Sequence[Entry],
    sim: Similarity,
    settings: ConsolidationSettings,
    dismissed: Callable[[Entry, Entry], bool] | None = None,
) -> tuple[list[Proposal], list[str]]:
    """Merge / supersede proposals among `pool`, add proposals for `new_entries`.
    `dismissed(a, b)`: a pair a person said is fine (the conflict screen's dismissals)
    is not proposed again."""
    notes: list[str] = []
    proposals: list[Proposal] = []
    by_id = {e.id: e for e in pool}
    if hasattr(sim.embedder, "fit"):  # lexical: IDF over what is being compared
        sim.embedder.fit([e.search_text() for e in [*pool, *new_entries]])
    pooled = pool_vectors(pool, sim)
    matrix = pooled.vectors
    thresholds = pair_thresholds(settings, pooled.measure)
    near_candidates = None
    if isinstance(sim.embedder, LexicalEmbedder):
        near_candidates = shared_feature_pairs([e.search_text() for e in pool])
    pairs: list[DuplicatePair] = find_consolidation_pairs(pool, matrix, thresholds, near_candidates)
    if dismissed is not None:
        pairs = [p for p in pairs if not dismissed(by_id[p.a], by_id[p.b])]
    # Duplicates: union-find into clusters, one merge proposal per cluster.
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    reasons: dict[str, list[DuplicatePair]] = {}
    for pair in pairs:
        if pair.type in ("exact", "near"):
            ra, rb = find(pair.a), find(pair.b)
            if ra != rb:
                parent[rb] = ra
    clusters: dict[str, list[str]] = {}
    for pair in pairs:
        if pair.type in ("exact", "near"):
            root = find(pair.a)
            clusters.setdefault(root, [])
            for x in (pair.a, pair.b):
                if x not in clusters[root]:
                    clusters[root].append(x)
            reasons.setdefault(root, []).append(pair)
    claimed: set[str] = set()
    for root, ids in clusters.items():
        group = _keep_first([by_id[i] for i in ids])
        keep, folded = group[0], group[1:]
        cluster_pairs = reasons[root]
        exact = all(p.type == "exact" for p in cluster_pairs)
        score = min(p.score for p in cluster_pairs)
        rephrased = [p for p in cluster_pairs if p.reason.startswith("rephrased")]
        if exact:
            reason = "exact duplicate: same normalised text"
        elif rephrased:
            reason = (
                f"near duplicate, rephrased: similarity {score:.2f}, same values in other words"
            )
        else:
            reason = f"near duplicate: similarity {score:.2f} >= {thresholds.duplicate:g}"
        proposals.append(
            Proposal(
                "merge",
                [keep.id, *[f.id for f in folded]],
                f"{reason}; keep {keep.id} ({keep.status}, {keep.confidence})",
                [f"keep {keep.id}: {clip(keep.summary)}"]
                + [f"fold {f.id}: {clip(f.summary)}" for f in folded],
                phase="consolidate",
                score=score,
                versions={e.id: e.version for e in group},
            )
        )
        claimed.update(ids)
    for pair in pairs:
        if pair.type != "contradiction" or pair.a in claimed or pair.b in claimed:
            continue
        older, newer = by_id[pair.a], by_id[pair.b]  # DuplicatePair puts the older first
        proposals.append(
            Proposal(
                "supersede",
                [older.id, newer.id],
                f"contradiction: newer {newer.id} supersedes older {older.id}; {pair.reason}",
                [
                    f"older {older.id} ({older.created.date()}): {clip(older.summary)}",
                    f"newer {newer.id} ({newer.created.date()}): {clip(newer.summary)}",
                ],
                phase="consolidate",
                score=pair.score,
                versions={older.id: older.version, newer.id: newer.version},
            )
        )
        claimed.update((older.id, newer.id))
    proposals.extend(_additions(pool, matrix, new_entries, sim, settings, thresholds, notes))
    return proposals, notes


def _additions(
    pool: Sequence[Entry],
    matrix: np.ndarray | None,
    new_entries: Sequence[Entry],
    sim: Similarity,
    settings: ConsolidationSettings,
    thresholds: PairThresholds,
    notes: list[str],
) -> list[Proposal]:
    if not new_entries:
        return []
    known = {e.text_hash for e in pool}
    fresh: list[Entry] = []
    for entry in new_entries:
        if entry.text_hash in known:
            continue
        known.add(entry.text_hash)
        fresh.append(entry)
    skipped = len(new_entries) - len(fresh)
    out: list[Proposal] = []
    if fresh:
        new_matrix = sim.embedder.embed([e.search_text() for e in fresh]).astype(np.float32)
        scores = new_matrix @ matrix.T if matrix is not None and len(pool) else None
        values = [value_tokens(e.search_text()) for e in pool]
        holders: dict[str, list[int]] = {}
        for i, tokens in enumerate(values):
            for token in tokens:
                holders.setdefault(token, []).append(i)
        rare = max(5, len(pool) // 200)
        for row, entry in enumerate(fresh):
            related: list[tuple[float, Entry]] = []
            if scores is not None:
                best = float(scores[row].max())
                if best >= thresholds.duplicate:
                    skipped += 1  # already known in other words
                    continue
                # Related: entries about the same thing (a rare value in common), closest
                # first. Lexical scores across languages are low (0.2-0.4 for a Chinese
                # and an English note on `cargo insta review`), so the value gate matters
                # more than the score.
                sharing = {
                    i
                    for token in value_tokens(entry.search_text())
                    if len(holders.get(token, ())) <= rare
                    for i in holders.get(token, ())
                }
                ranked = sorted(sharing, key=lambda i: -float(scores[row, i]))
                related = [
                    (float(scores[row, i]), pool[i])
                    for i in ranked[: settings.max_related]
                    if float(scores[row, i]) >= settings.related_similarity
                ]
            entry = entry.copy(related=[*entry.related, *[e.id for _, e in related]])
            evidence = [
                f"from {entry.source.locator or entry.source.origin}: {clip(entry.summary)}"
            ]
            evidence += [f"related {e.id} ({s:.2f}): {clip(e.summary, 80)}" for s, e in related]
            see = f"; see related {', '.join(e.id for _, e in related)}" if related else ""
            out.append(
                Proposal(
                    "add",
                    [entry.id],
                    f"new {entry.kind} from session {entry.source.session_id or '?'}"
                    f" ({CATEGORY_OF_KIND.get(entry.kind, 'facts')}, {entry.confidence}){see}",
                    evidence,
                    phase="gather",
                    entry=entry,
                )
            )
    if skipped:
        notes.append(f"gather: {skipped} extracted item(s) already in memory, not proposed")
    return out


# -- prune -----------------------------------------------------------------------------
def prune(
    entries: Sequence[Entry],
    claimed: set[str],
    settings: ConsolidationSettings,
    today: dt.date,
    at: dt.datetime,
) -> list[Proposal]:
    """Seed 001 prune_phase and cleanup_old_memories, as proposals."""
    out: list[Proposal] = []

    def propose(action: str, entry: Entry, reason: str, safe: bool = False) -> None:
        out.append(
            Proposal(
                action,
                [entry.id],
                reason,
                [
                    f"{entry.id} ({entry.kind}, {entry.status}, {entry.confidence}): {clip(entry.summary)}"
                ],
                safe=safe,
                phase="prune",
                versions={entry.id: entry.version},
            )
        )
        claimed.add(entry.id)

    for entry in entries:
        if entry.id in claimed:
            continue
        age_days = (at - entry.created).days
        untouched_days = (at - entry.updated).days
        used = entry.last_access or entry.updated
        unused_days = (at - used).days
        if entry.kind == "session" and age_days > settings.session_max_age_days:
            propose(
                "delete",
                entry,
                f"session summary {age_days} days old (older than {settings.session_max_age_days} days)",
            )
            continue
        if entry.status not in ACTIVE:
            continue
        if entry.valid_until is not None and entry.valid_until < today:
            propose("expire", entry, f"valid until {entry.valid_until} has passed", safe=True)
        elif (
            CONFIDENCE_VALUE[entry.confidence] < settings.low_confidence
            and untouched_days >= settings.low_confidence_stale_days
        ):
            propose(
                "delete",
                entry,
                f"low confidence ({entry.confidence} = {CONFIDENCE_VALUE[entry.confidence]:g} "
                f"< {settings.low_confidence:g}) and untouched for {untouched_days} days "
                f"(>= {settings.low_confidence_stale_days})",
            )
        elif unused_days > settings.retention_days:
            how = "last used" if entry.last_access else "never used; last updated"
            propose(
                "expire",
                entry,
                f"unused past retention: {how} {unused_days} days ago "
                f"(retention {settings.retention_days} days)",
            )
    return out


def expired_by_date(entries: Sequence[Entry], today: dt.date) -> set[str]:
    return {
        e.id
        for e in entries
        if e.status in ACTIVE and e.valid_until is not None and e.valid_until < today
    }
