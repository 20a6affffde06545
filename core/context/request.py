"""One context request against a store: the call behind `memdesk context` and the MCP
`context` tool, so both give the same block and counts for the same arguments.

Validates what a caller may get wrong (an unknown purpose or scope, a negative budget)
with one readable message, reads the store's settings, and ranks a query with hybrid
search when the index can open (the assembler's lexical score otherwise).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memdesk.core.context import kept_weights
from memdesk.core.context.assembler import Assembly, SearchFn, assemble
from memdesk.core.context.kept_counts import COUNTS_NAME, KeptCounts, kept_counter
from memdesk.core.context.kept_weights import WEIGHTS_NAME, KeptWeights
from memdesk.core.context.settings import SettingsError, load_settings
from memdesk.core.context.verdicts import VERDICTS_NAME, GuardVerdicts, flag_as
from memdesk.core.context.weigh import Weight, weigh
from memdesk.core.entry import SCOPES, Entry

if TYPE_CHECKING:  # the query module loads only when search is asked for
    from memdesk.core.context.query import Searches


class ContextRequestError(ValueError):
    """A request that cannot be assembled; the message says why, for a person or agent."""


class StoreLike(Protocol):
    """What a context request reads from the store."""

    root: Path

    def entries(self) -> list[Entry]: ...


def assemble_for_store(
    store: StoreLike,
    *,
    purpose: str | None = None,
    query: str | None = None,
    budget: int | None = None,
    unit: str | None = None,
    scopes: Iterable[str] | None = None,
    include_candidates: bool | None = None,
    format: str | None = None,
    search: SearchFn | None = None,
    metadata: bool | None = None,
    today: dt.date | None = None,
    keep_derived: bool = False,
    meanwhile: Callable[[], None] | None = None,
) -> Assembly:
    """Assemble the memory block for `store` as settings and the arguments say.

    `search` ranks a query (see `hybrid_scorer`); None means lexical relevance.
    `today` (default: the local date) is the day scores decay to. `keep_derived`: read
    and keep what each entry's text weighs and the token counts of the block's texts in
    the store's index (kept_weights.py, kept_counts.py), for a new process on a big
    store (a long-lived one has them in memory already). `meanwhile`: work of the
    caller's, done while the guard's model screens the block (see `assemble_screened`).
    Raises ContextRequestError for bad arguments or settings."""
    try:
        settings = load_settings(store.root)
    except SettingsError as exc:
        raise ContextRequestError(str(exc)) from exc
    if purpose and purpose not in settings.context.purpose_names():
        raise ContextRequestError(
            f"unknown purpose {purpose!r}; allowed: {', '.join(settings.context.purpose_names())}"
        )
    if budget is not None and budget < 0:
        raise ContextRequestError(f"budget must be >= 0, got {budget}")
    scope_list = list(scopes) if scopes is not None else None
    bad = [s for s in scope_list or [] if s not in SCOPES]
    if bad:
        raise ContextRequestError(f"unknown scope {bad[0]!r}; allowed: {', '.join(SCOPES)}")
    entries = store.entries()
    weights: Callable[[Entry], Weight] = weigh
    kept: KeptWeights | None = None
    counts: KeptCounts | None = None
    index = Path(store.root) / ".memdesk" / "index"
    big = keep_derived and len(entries) >= kept_weights.MIN_ENTRIES
    if big:
        weights = kept = KeptWeights(index / WEIGHTS_NAME)
        context = settings.context
        counts = kept_counter(index / COUNTS_NAME, unit or context.unit, context.tokenizer)
    verdicts = GuardVerdicts(index / VERDICTS_NAME if keep_derived else None)

    def side() -> None:
        if kept is not None:
            kept.save()  # complete after the first assembly (and read by `meanwhile`)
        if meanwhile is not None:
            meanwhile()

    try:
        result = assemble_screened(
            entries,
            verdicts,
            meanwhile=side if kept is not None or meanwhile is not None else None,
            purpose=purpose,
            query=query,
            budget=budget,
            unit=unit,
            scopes=scope_list,
            include_candidates=include_candidates,
            settings=settings,
            search=search if query else None,
            format=format,
            metadata=metadata,
            today=today,
            weights=weights,
            counter=counts,
        )
    except ValueError as exc:
        raise ContextRequestError(str(exc)) from exc
    verdicts.save()
    for derived in (kept, counts):
        if derived is not None:
            derived.save()
    return result


def assemble_screened(
    entries: list[Entry],
    verdicts: GuardVerdicts | None = None,
    *,
    meanwhile: Callable[[], None] | None = None,
    **options: Any,
) -> Assembly:
    """`assemble(entries, **options)`, with what the block is about to show screened by
    the current guard (verdicts.py): an entry it flags is left out as if flagged, and the
    block assembled again (what a preview of the agent's block should call too).
    `meanwhile` is called once, after the first assembly, while the guard's model works
    on the block in a background thread (`GuardVerdicts.start`); nothing is returned
    before every entry shown is screened."""
    verdicts = verdicts if verdicts is not None else GuardVerdicts(None)
    while True:
        result = assemble(entries, **options)
        if meanwhile is not None:
            verdicts.start(entry for _, entry in result.chosen)
            meanwhile()
            meanwhile = None
        flagged = verdicts.flagged(entry for _, entry in result.chosen)
        if not flagged:
            return result
        entries = [flag_as(e, flagged[e.id]) if e.id in flagged else e for e in entries]


def hybrid_scorer(
    store: object,
    *,
    service: Searches | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> SearchFn | None:
    """Hybrid search (memdesk.core.search) as the assembler's relevance, on `service` or
    a service opened on the store; None when search cannot open (a broken index must not
    stop context assembly: `on_warning` hears why)."""
    from memdesk.core.context.query import search_service_scorer

    if service is None:
        try:
            from memdesk.core.search import SearchService
        except ImportError:
            return None
        try:
            service = SearchService.for_store(store)
        except Exception as exc:  # any failure to open falls back to lexical relevance
            if on_warning is not None:
                on_warning(f"search unavailable ({exc}); using lexical relevance")
            return None
    return search_service_scorer(service)
