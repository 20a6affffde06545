"""`flush()`: seed 000's MemoryFlush — what an agent calls before it compacts its context.

1. run the extractor (built-in, or the plug-in from settings / `extract_fn`) on the
   messages about to be dropped; a failing plug-in writes nothing and never raises;
2. dedupe by sha256 of the normalised text against everything the store knows
   (`store.known_hashes()`, rejected entries included) and within the batch;
3. screen with the do-not-write guard (refused candidates are reported, not written);
4. cap at `max_facts_per_flush` (default 10) and write the rest as one journaled batch;
5. emit `memory_flushed` with seed 000's payload `{facts, count, session_id, occurred_at,
   file, v: 1}`: to the journal (`store.record_event`) and to the `listeners` given.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.entry import Entry, now, text_hash
from memdesk.core.extract.messages import Message, ReadStats, log
from memdesk.core.extract.plugin import PluginResult
from memdesk.core.extract.readers import record_messages
from memdesk.core.extract.run import Extractor, run_extractor
from memdesk.core.extract.settings import ExtractSettings
from memdesk.core.guard import redact_text, screen

FLUSH_EVENT = "memory_flushed"
PAYLOAD_VERSION = 1


@dataclass
class WriteResult:
    """What happened to a batch of candidates on its way into the store."""

    added: list[Entry] = field(default_factory=list)
    duplicates: int = 0
    refused: list[tuple[str, list[str]]] = field(default_factory=list)  # (summary, reasons)
    over_cap: int = 0
    error: str = ""  # the extractor's failure; nothing was written

    @property
    def count(self) -> int:
        return len(self.added)


@dataclass
class FlushResult(WriteResult):
    payload: dict[str, Any] | None = None  # the memory_flushed payload, when something was written


def select_new(
    candidates: Iterable[Entry], known: set[str], cap: int | None = None
) -> tuple[list[Entry], WriteResult]:
    """Dedupe (sha256 of normalised text), screen with the guard, then cap.

    Returns the screened entries to write and the bookkeeping. `known` is updated with
    what was selected, so consecutive batches do not repeat each other.
    """
    result = WriteResult()
    chosen: list[Entry] = []
    for candidate in candidates:
        digest = text_hash(candidate.summary)
        if digest in known:
            result.duplicates += 1
            continue
        verdict = screen(candidate)
        if verdict.entry is None:
            # Redact before cutting: the report is printed, and a cut token hides its kind.
            result.refused.append((redact_text(candidate.summary)[0][:120], verdict.reasons))
            known.add(digest)  # the same refused text is not screened again this batch
            continue
        # The screened text may differ (redactions): dedupe on what would be stored too.
        clean_digest = text_hash(verdict.entry.summary)
        if clean_digest in known:
            result.duplicates += 1
            continue
        if cap is not None and len(chosen) >= cap:
            result.over_cap += 1
            continue
        known.update({digest, clean_digest})
        chosen.append(verdict.entry)
    return chosen, result


def _open_store(working_dir: Path | str) -> Any:  # -> Store
    from memdesk.core.store import Store

    root = Path(working_dir)
    return Store.open(root) if (root / ".memdesk").is_dir() else Store.init(root)


def as_messages(items: Iterable[Message | Mapping[str, Any]]) -> list[Message]:
    """Messages as given, or built from `{role, content, ...}` dicts (Claude Code lines too).

    A dict that is not a message raises ValueError naming its position: an agent passing
    the wrong thing should hear about it, not lose its facts silently.
    """
    out: list[Message] = []
    stats = ReadStats("<flush>")
    for index, item in enumerate(items):
        if isinstance(item, Message):
            out.append(item)
            continue
        found = record_messages(item, f"<flush>#{index}", stats)
        if found is None:
            raise ValueError(f"message #{index} is not a message (expected {{role, content}})")
        out += [m for m in found if m.kind != "candidate"]
    return out


def flush(
    messages: Iterable[Message | Mapping[str, Any]],
    working_dir: Path | str | None = None,
    *,
    store: Any = None,
    session_id: str = "",
    extract_fn: Extractor | None = None,
    ctx: Any = None,
    opts: Mapping[str, Any] | None = None,
    max_facts_per_flush: int | None = None,
    dedupe: bool = True,
    listeners: Iterable[Callable[[dict[str, Any]], None]] = (),
    actor: str = "flush",
) -> FlushResult:
    """Extract, dedupe, cap and write candidates from `messages`; emit `memory_flushed`.

    Give `working_dir` (the store is opened, or created) or an open `store`. Never raises
    for a failing extractor: `result.error` says why and nothing is written.
    """
    if store is None:
        if working_dir is None:
            raise ValueError("flush() needs a working_dir or a store")
        store = _open_store(working_dir)
    settings = ExtractSettings.from_mapping(store.settings)
    cap = max_facts_per_flush or settings.extractor.max_facts_per_flush
    messages = as_messages(messages)
    if session_id:
        for message in messages:
            message.session_id = message.session_id or session_id
    found: PluginResult = run_extractor(
        messages,
        settings.extractor,
        extract_fn=extract_fn,
        ctx=ctx,
        opts=opts,
        cwd=os.fspath(store.root),
    )
    if not found.ok:
        return FlushResult(error=found.error)
    candidates = found.candidates
    session = session_id or _common_session(messages)
    for candidate in candidates:
        if session and not candidate.source.session_id:
            candidate.source.session_id = session
    known = set(store.known_hashes()) if dedupe else set()
    chosen, written = select_new(candidates, known, cap)
    result = FlushResult(
        duplicates=written.duplicates, refused=written.refused, over_cap=written.over_cap
    )
    if not chosen:
        return result
    from memdesk.core.store import StoreError

    try:
        result.added = store.add_many(chosen, actor=actor, label=FLUSH_EVENT)
    except StoreError as exc:  # e.g. the store's own guard pass: nothing was written
        log.warning("memory flush wrote nothing: %s", exc)
        result.error = str(exc)
        return result
    result.payload = {
        "facts": [entry.summary for entry in result.added],
        "count": len(result.added),
        "session_id": session,
        "occurred_at": now().isoformat(),
        "file": _memory_file(store),
        "v": PAYLOAD_VERSION,
    }
    store.record_event(FLUSH_EVENT, result.payload, actor=actor)
    for listener in listeners:
        try:
            listener(result.payload)
        except Exception as exc:  # a broken subscriber never breaks the flush
            log.warning("memory_flushed listener %r failed: %s", listener, exc)
    return result


def _common_session(messages: Sequence[Message]) -> str:
    sessions = {m.session_id for m in messages if m.session_id}
    return sessions.pop() if len(sessions) == 1 else ""


def _memory_file(store: Any) -> str:
    with contextlib.suppress(AttributeError, ValueError):
        return os.fspath(Path(store.memory_file.path).relative_to(store.root))
    return "MEMORY.md"
