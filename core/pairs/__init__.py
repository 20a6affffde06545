"""Pairs of entries that duplicate or contradict each other: one place that finds them.

One tokenizer (features.py), one threshold set with a row per similarity measure
(thresholds.py), one verdict (verdict.py), and the finders that ask it: from vectors
(dense.py: `memdesk duplicates`, the search service), by word overlap (lexical.py: no
model needed), both together for the desk (find.py, kept current for the queue by
queue_pairs.py), and for consolidation at store scale (rare_values.py). One dismissal
record (dismissals.py) that all of them honour.
"""

from memdesk.core.pairs.dense import DEFAULT_STATUSES, find_duplicates, model_thresholds
from memdesk.core.pairs.dismissals import DISMISSED_FILE, Dismissals
from memdesk.core.pairs.find import LIVE_STATUSES, find_pairs, finder_pairs, open_pairs
from memdesk.core.pairs.lexical import lexical_contradiction, lexical_pairs
from memdesk.core.pairs.pair import DuplicatePair, Pair, make_pair, ordered, pair_key, sorted_key
from memdesk.core.pairs.queue_pairs import QueuePairs
from memdesk.core.pairs.rare_values import find_consolidation_pairs
from memdesk.core.pairs.thresholds import THRESHOLDS, PairThresholds
from memdesk.core.pairs.verdict import Verdict, verdict

__all__ = [
    "DEFAULT_STATUSES",
    "DISMISSED_FILE",
    "LIVE_STATUSES",
    "THRESHOLDS",
    "Dismissals",
    "DuplicatePair",
    "Pair",
    "PairThresholds",
    "QueuePairs",
    "Verdict",
    "find_consolidation_pairs",
    "find_duplicates",
    "find_pairs",
    "finder_pairs",
    "lexical_contradiction",
    "lexical_pairs",
    "make_pair",
    "model_thresholds",
    "open_pairs",
    "ordered",
    "pair_key",
    "sorted_key",
    "verdict",
]
