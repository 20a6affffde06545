"""Memory files follow the store: a subscriber to its commits.

After a commit that could change what agents load, `MemoryFileRenderer` rewrites
MEMORY.md and the managed memory files (core/memfiles/); before rewriting, it reads
what others appended to them, so no line is lost. The store knows nothing of this: the
renderer is attached to it (`memdesk.core.store.Store` does so for every store it
opens) and hears each change through the store's `CommitSubscriber` seam.

MEMORY.md says exactly what the default context preview includes: its text comes from
the same assembler call as the preview (purpose, budget and unit from
`.memdesk/settings.toml`), so the file agents load and the preview a person looks at
never disagree.

Every function here takes the store's lock itself (it is re-entrant within a process),
so it may be called from a commit subscriber and from a CLI verb alike.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from memdesk.core import plain_file
from memdesk.core.entry import Entry, Source, now, text_hash
from memdesk.core.memory_md import ExternalLine, MemoryState
from memdesk.core.storage.changes import Change
from memdesk.core.storage.errors import GuardRefused, StoreError

if TYPE_CHECKING:
    from memdesk.core.context.settings import ContextSettings
    from memdesk.core.store import Store

# `source.origin` of entries that live in a managed memory file (core/memfiles/).
MANAGED_ORIGIN = "memory-file"


def render_memory_text(
    entries: list[Entry],
    settings: ContextSettings | Mapping[str, Any] | None = None,
    verdicts: Any = None,
) -> str:
    """MEMORY.md's text for these entries: the default context preview, as Markdown,
    without what the current guard flags (`verdicts`: kept verdicts, or None)."""
    from memdesk.core.context.render import render_memory_md

    return render_memory_md(entries, settings, verdicts)


class MemoryFileRenderer:
    """Rewrites the memory files after each commit that could change them."""

    lag_note = "MEMORY.md was not rewritten"

    def __init__(self, store: Store) -> None:
        self.store = store
        # Off while memdesk itself commits what it read from a memory file (the file
        # is written once, after): see `paused`.
        self.enabled = True

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        previous, self.enabled = self.enabled, False
        try:
            yield
        finally:
            self.enabled = previous

    def prepare(self, change: Change) -> bool:
        """Does this change alter a memory file? When it does, settings that could not
        render it stop the change before anything is written (not after it was made)."""
        if not self.enabled or not touches_memory_files(self.store, change):
            return False
        check_render_settings(self.store)
        return True

    def committed(self, change: Change) -> None:
        render_memory_files(self.store)


def touches_memory_files(store: Store, change: Change) -> bool:
    """Could this change alter MEMORY.md or a managed file? Only confirmed entries are
    rendered, unless settings let candidates in; skipping the render keeps agents'
    candidate writes cheap."""
    if any(
        (op.before is not None and op.before.status == "confirmed")
        or (op.after is not None and op.after.status == "confirmed")
        for op in change.ops
    ):
        return True
    # A candidate kept in place in a managed file leaves it when it is rejected.
    if any(
        op.before is not None and op.before.source.origin == MANAGED_ORIGIN for op in change.ops
    ):
        return True
    try:
        return context_settings_of(store).include_candidates
    except StoreError:
        # Unknown whether candidates are shown; MEMORY.md catches up on the next
        # render. An agent's candidate is never refused for a broken settings file.
        return False


def context_settings_of(store: Store) -> ContextSettings:
    """`[context]` as MEMORY.md is rendered with it, typed by its own table's parser (not
    the whole settings object: that imports every component, a second of start-up for
    each CLI verb that commits); a StoreError naming the file and key when it is wrong."""
    from memdesk.core.context.settings import store_context_settings

    try:
        # What the render reads; no tokenizer load. A tokenizer outside the working
        # directory is confined as `memdesk context` confines it (not allowed: "auto").
        return store_context_settings(store.settings, store.settings_path)
    except (ValueError, TypeError) as exc:
        raise StoreError(f"{store.settings_path}: {exc}") from exc


def check_render_settings(store: Store) -> None:
    """StoreError when MEMORY.md could not be rendered with these settings."""
    context_settings_of(store)


# -- reading what others added -----------------------------------------------------------
def ingest_memory_files(store: Store) -> list[Entry]:
    """Turn lines others added to MEMORY.md (and to managed memory files) into
    candidates (deduplicated)."""
    with store.lock.held():
        store.check_writable()
        added, state = _ingest_memory_md(store)
        store.memory_file.save_state(state)  # only now are the lines marked read
        return added + sync_managed_files(store)[0]


def memory_md_managed(store: Store) -> bool:
    """Was MEMORY.md adopted? Then it is a managed file, kept by core/memfiles."""
    from memdesk.core.memfiles.manifest import has_managed_files, is_managed

    return has_managed_files(store.meta_dir) and is_managed(store.meta_dir, store.memory_file.path)


def adopt_existing_memory_md(store: Store) -> None:
    """A MEMORY.md memdesk never wrote is an agent's memory: adopt it as it is
    (emptying it into the review queue would leave the agent with nothing)."""
    path = store.memory_file.path
    if store.memory_file.state_path.exists() or memory_md_managed(store):
        return
    try:
        if not path.is_file() or not plain_file.read_bytes(path, 16 << 20).strip():
            return
    except OSError:
        return
    from memdesk.core.memfiles.adopt import adopt

    adopt(store, path)


def sync_managed_files(store: Store) -> tuple[list[Entry], bool]:
    """Candidates from managed memory files, and whether any file was rewritten."""
    from memdesk.core.memfiles.manifest import has_managed_files

    if not has_managed_files(store.meta_dir):
        return [], False
    from memdesk.core.memfiles.sync import sync_all

    with store.memory_render.paused():
        results = sync_all(store)
    return [e for r in results for e in r.added], any(r.written for r in results)


def _ingest_memory_md(store: Store) -> tuple[list[Entry], MemoryState]:
    if memory_md_managed(store):
        return [], store.memory_file.load_state()
    lines, state = store.memory_file.collect_external(lambda: summaries_ever_held(store))
    if not lines:
        # Nothing appended (a desk's start-up catch-up, usually): the guard is not
        # imported (≈ 0.5 s of CPU compiling its patterns, in the desk's worker).
        return [], state
    from memdesk.core.guard import redact_text

    known = store.known_hashes()
    fresh: list[Entry] = []
    stamp = now().isoformat()
    # Lines carrying a secret are overwritten where they are (MEMORY.md, retired
    # inodes) once read: the redacted candidate, or the refusal, is all that stays.
    secret_lines: list[ExternalLine] = []
    # A paragraph wrapped over lines is one text: screened whole as well (its header
    # must not reach the context block when its body is an injection).
    from memdesk.core.memory_md_paragraphs import paragraph_flags

    whole = paragraph_flags(lines) if len(lines) > 1 else {}
    for index, line in enumerate(lines):
        if line.multiline_secret:
            secret_lines.append(line)
            continue  # part of a key block: refused whole
        if redact_text(line.text)[1]:
            secret_lines.append(line)
        digest = text_hash(line.text)
        if digest in known:
            continue
        known.add(digest)
        candidate = Entry(
            summary=line.text,
            source=Source(
                origin="MEMORY.md", timestamp=stamp, locator=line.locator, excerpt=line.text
            ),
        )
        if index in whole:
            candidate.flags["suspicious"] = whole[index]
        fresh.append(candidate)
    # A secret or a recalled memory block appended to MEMORY.md is not kept.
    refused: list[tuple[Entry, GuardRefused]] = []
    added = (
        store.add_many(fresh, actor="memory-md", label="ingest", refused=refused) if fresh else []
    )
    if secret_lines:
        store.memory_file.scrub(secret_lines)
    return added, state


def summaries_ever_held(store: Store) -> set[str]:
    """Hashes of every summary the journal shows an entry having, before or after a
    change: on any branch merged here, and in any clone whose journal came with a pull.
    A line of MEMORY.md that says one of them, in a file someone else replaced, is a
    render memdesk made elsewhere, not an agent's fact."""
    return {
        text_hash(state["summary"])
        for record in store.journal.records()
        for state in (record.before, record.after)
        if isinstance(state, dict) and isinstance(state.get("summary"), str)
    }


# -- writing -------------------------------------------------------------------------------
def render_memory_files(store: Store) -> bool:
    """Rewrite MEMORY.md and the managed memory files from the store (after ingesting
    what others appended). True when a file was rewritten."""
    with store.lock.held():
        store.check_writable()
        with store.memory_render.paused():
            _, state = _ingest_memory_md(store)
        _, managed_written = sync_managed_files(store)
        if memory_md_managed(store):
            return managed_written
        # Entries of managed files are written in their own files, not here.
        entries = [e for e in store.entries() if e.source.origin != MANAGED_ORIGIN]
        from memdesk.core.context.verdicts import VERDICTS_NAME, GuardVerdicts

        index = store.index_dir  # kept verdicts: the store notes what it just screened
        verdicts = GuardVerdicts(index / VERDICTS_NAME if index.is_dir() else None)
        text = render_memory_text(entries, context_settings_of(store), verdicts)
        verdicts.save()
        # One state save: the lines just ingested and the new render together.
        return store.memory_file.write(text, state) or managed_written
