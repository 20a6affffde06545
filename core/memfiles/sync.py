"""Keeping managed files and the store in step: the gate.

`sync_file` reads what an agent added to a managed file since memdesk last wrote it,
turns each added fact into a candidate placed where the agent put it, and writes the
file again from the manifest and the store. With `gate = "hold"` (the default) a
candidate is held out of the file until it is approved; with `gate = "keep"` it stays
where the agent wrote it while it waits, and rejecting it takes it out. Approving,
editing, superseding or expiring an entry changes just that entry's lines.

Callers hold the store lock with the store's auto-render off (the store's
`render_memory_md` does this): the candidates are committed first, then the manifest
that places them is saved, then the file is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core import plain_file
from memdesk.core.atomic import atomic_write_bytes
from memdesk.core.entry import Entry, now, text_hash
from memdesk.core.memfiles.appends import Addition, complete_text, find_additions
from memdesk.core.memfiles.blocks import Block, parse_blocks
from memdesk.core.memfiles.confine import manifest_refusal
from memdesk.core.memfiles.entries import block_entry, display_path, scope_of
from memdesk.core.memfiles.manifest import (
    ManagedBlock,
    Manifest,
    all_manifests,
    save_manifest,
)
from memdesk.core.memfiles.render import render_file
from memdesk.core.memfiles.retire import drain, forget, release_idle, retire
from memdesk.core.memfiles.settings import memfiles_settings
from memdesk.core.own_writes import fingerprint, read_with_fingerprint
from memdesk.core.store import GuardRefused, Store

DEFAULT_GATE = "hold"


@dataclass
class SyncResult:
    path: str
    added: list[Entry] = field(default_factory=list)
    written: bool = False
    waiting: bool = False  # a line was half written: the file was left alone
    missing: bool = False  # the file is gone: not written again
    refused: str = ""  # why the file is neither read nor written (a link out)


def gate_of(store: Store) -> str:
    """`[memfiles] gate` in settings.toml: "hold" (default) or "keep"."""
    try:
        raw = store.settings
    except Exception:  # a broken settings file must not stop the sync
        return DEFAULT_GATE
    return memfiles_settings(raw).gate


def managed_ids(store: Store) -> set[str]:
    return {i for m in all_manifests(store.meta_dir) for i in m.entry_ids()}


def sync_all(store: Store) -> list[SyncResult]:
    manifests = all_manifests(store.meta_dir)
    if not manifests:
        return []
    gate = gate_of(store)
    return [sync_file(store, m, gate) for m in manifests]


def sync_file(store: Store, manifest: Manifest, gate: str, *, order: bool = False) -> SyncResult:
    path = manifest.file
    result = SyncResult(str(path))
    refused = manifest_refusal(manifest.path, store.root)
    if refused:
        # A managed file in the working directory that now links elsewhere (a pulled
        # branch can make one), or a path a cloned repository's manifest names: someone
        # else's file, not read, not written.
        result.refused = refused
        return result
    try:
        data, seen = read_with_fingerprint(path)
    except FileNotFoundError:
        # Someone removed it: memdesk does not bring it back behind their back (late
        # appends stay in the retired links until the file is there again).
        result.missing = True
        return result
    except OSError:
        return result  # unreadable now (permissions, a device): try again next time
    complete = complete_text(manifest, data.decode("utf-8", "replace"))
    if complete is None:
        result.waiting = True
        return result
    additions = find_additions(manifest, complete)
    late, drained = drain(store.meta_dir, manifest)
    if late.strip():
        additions.append(_late_addition(manifest, late))
    if additions:
        result.added = _place(store, manifest, additions)
    entries = {e.id: e for e in store.entries()}
    if order:
        from memdesk.core.memfiles.order import order_blocks

        order_blocks(manifest, entries)
    rendered = render_file(manifest, entries, gate)
    encoded = rendered.text.encode("utf-8")
    if data != encoded:
        retire(store.meta_dir, manifest, len(data))
        seen = fingerprint(atomic_write_bytes(path, encoded))
        result.written = True
    manifest.written = seen
    manifest.rendered, manifest.owners = rendered.text, rendered.owners
    drained += release_idle(store.meta_dir, manifest)
    save_manifest(store.meta_dir, manifest)
    forget(store.meta_dir, drained)
    return result


def _late_addition(manifest: Manifest, text: str) -> Addition:
    """Lines that reached a retired inode go at the end of the file, in its last section."""
    last = parse_blocks(manifest.rendered)
    section = last[-1].section if last else []
    addition = Addition(len(manifest.blocks))
    for block in parse_blocks(text):
        if block.kind == "fact" and not block.section:
            block.section = list(section)
        block.start = 0
        addition.blocks.append(block)
    return addition


def _place(store: Store, manifest: Manifest, additions: list[Addition]) -> list[Entry]:
    """Commit the added facts as candidates and put their blocks into the manifest."""
    where = display_path(manifest.file, store.root)
    scope = scope_of(manifest.file)
    stamp = now().isoformat()
    placed = set(manifest.entry_ids())
    known = store.known_hashes()
    waiting = {
        e.text_hash: e for e in store.entries() if e.status == "candidate" and e.id not in placed
    }
    planned: list[tuple[Addition, Block, Entry | None]] = []
    fresh: list[Entry] = []
    fresh_ids: set[str] = set()
    for addition in additions:
        for block in addition.blocks:
            if block.kind != "fact":
                planned.append((addition, block, None))
                continue
            candidate = block_entry(
                block, where, status="candidate", scope=scope, stamp=stamp, line=block.start
            )
            candidate.related = [
                manifest.blocks[i].entry_id
                for i in addition.replaces
                if manifest.blocks[i].entry_id
            ]
            digest = text_hash(candidate.summary)
            if digest in waiting:  # committed before a crash, never placed: place it now
                planned.append((addition, block, waiting.pop(digest)))
            elif digest not in known:
                known.add(digest)
                fresh.append(candidate)
                fresh_ids.add(candidate.id)
                planned.append((addition, block, candidate))
    refused: list[tuple[Entry, GuardRefused]] = []
    added = store.add_many(fresh, actor="memory-file", label="ingest", refused=refused)
    refused_ids = {entry.id for entry, _ in refused}
    stored = iter(added)
    inserts: dict[int, list[ManagedBlock]] = {}
    for addition, block, entry in planned:
        if entry is not None and entry.id in refused_ids:
            continue
        if entry is not None and entry.id in fresh_ids:
            entry = next(stored)
        managed = (
            ManagedBlock(block.text, role=block.role)
            if entry is None
            else ManagedBlock(
                block.text,
                entry.id,
                entry.summary,
                list(entry.facts),
                list(block.section),
                block.role,
            )
        )
        inserts.setdefault(addition.position, []).append(managed)
    for position in sorted(inserts, reverse=True):
        manifest.blocks[position:position] = inserts[position]
    return added


def file_stat(path: Path) -> tuple[int, int]:
    """(lines, bytes) of a file as it is on disk; (0, 0) when it is missing."""
    try:
        data = plain_file.read_bytes(path, 16 << 20)
    except OSError:
        return 0, 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1), len(data)


def order_files(store: Store, path: Path | None = None) -> list[SyncResult]:
    """Order managed files (all, or the one at `path`) so that what matters most stays
    above the load cut, and write them."""
    gate = gate_of(store)
    results: list[SyncResult] = []
    with store.lock.held():
        previous, store.auto_render = store.auto_render, False
        try:
            for manifest in all_manifests(store.meta_dir):
                if path is None or manifest.file == path.absolute():
                    results.append(sync_file(store, manifest, gate, order=True))
        finally:
            store.auto_render = previous
    return results
