"""Adopting a memory file: its facts become confirmed entries, the file stays as it is.

The file is cut into blocks (see `blocks.py`); each fact block becomes one confirmed
entry keeping its section, and the manifest keeps every block's verbatim text, so the
file rendered from the store right after adoption is the file byte for byte. Adoption
never writes the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.entry import Entry, now
from memdesk.core.memfiles.blocks import parse_blocks
from memdesk.core.memfiles.confine import link_refusal, name_refusal
from memdesk.core.memfiles.entries import block_entry, display_path, kind_of, scope_of
from memdesk.core.memfiles.formats import detect_format, get_format
from memdesk.core.memfiles.manifest import (
    ManagedBlock,
    Manifest,
    is_managed,
    save_manifest,
)
from memdesk.core.memfiles.outside import record_adoption
from memdesk.core.memfiles.render import render_file
from memdesk.core.own_writes import Fingerprint, read_with_fingerprint
from memdesk.core.store import GuardRefused, Store, StoreError
from memdesk.core.trust import TrustError


@dataclass
class AdoptResult:
    path: str
    format: str
    entries: int
    sections: list[str]
    unchanged: bool
    refused: list[str] = field(default_factory=list)  # blocks the guard kept out

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "format": self.format,
            "entries": self.entries,
            "sections": self.sections,
            "unchanged": self.unchanged,
        }


def read_text(path: Path) -> str:
    """The file's text; a file that is not UTF-8 is refused (it could not be kept
    byte for byte)."""
    return read_adopted(path)[0]


def read_adopted(path: Path) -> tuple[str, Fingerprint]:
    """The file's text and the fingerprint of what was read (see `read_text`)."""
    try:
        data, seen = read_with_fingerprint(path)
    except FileNotFoundError:
        raise StoreError(f"{path}: no such file") from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return data.decode("utf-8"), seen
    except UnicodeDecodeError as exc:
        raise StoreError(f"{path}: not UTF-8 text (byte {exc.start}); not adopted") from None


def adopt(store: Store, path: Path | str, format_name: str | None = None) -> AdoptResult:
    """Take `path` as the confirmed baseline of its memory (see the module doc)."""
    path = Path(path).expanduser().absolute()
    badly_named = name_refusal(path)
    if badly_named:
        raise StoreError(badly_named)
    linked_out = link_refusal(path, store.root)
    if linked_out:  # a cloned repository's link to a file of yours, or to /etc/passwd
        raise StoreError(linked_out)
    if not path.is_file():
        raise StoreError(f"{path}: no such file")
    if is_managed(store.meta_dir, path):
        raise StoreError(f"{path}: already adopted (`memdesk files` lists it)")
    if path == store.memory_file.path and store.memory_file.state_path.exists():
        raise StoreError(
            f"{path}: memdesk already writes this file from the store; its lines are entries"
        )
    text, seen = read_adopted(path)
    fmt = get_format(format_name) if format_name else detect_format(path, text)
    where = display_path(path, store.root)
    blocks = parse_blocks(text)
    stamp = now().isoformat()
    scope = scope_of(path)
    kind = kind_of(blocks)
    wanted: list[tuple[int, Entry]] = [
        (i, block_entry(b, where, status="confirmed", scope=scope, stamp=stamp, kind=kind))
        for i, b in enumerate(blocks)
        if b.kind == "fact"
    ]
    refused: list[tuple[Entry, GuardRefused]] = []
    try:
        # Before anything is committed: a file outside the working directory is kept in
        # step only where the person adopted it on this machine (memfiles/outside.py).
        record_adoption(store.root, path)
    except TrustError as exc:
        raise StoreError(str(exc)) from exc
    with store.lock.held():
        previous, store.auto_render = store.auto_render, False
        try:
            added = store.add_many(
                [e for _, e in wanted], actor="adopt", label="adopt", refused=refused
            )
        finally:
            store.auto_render = previous
        refused_ids = {entry.id for entry, _ in refused}
        kept = iter(added)
        by_block: dict[int, Entry] = {}
        for index, wanted_entry in wanted:
            if wanted_entry.id not in refused_ids:
                by_block[index] = next(kept)
        manifest = Manifest(
            path=str(path),
            format=fmt.name,
            newline="\r\n" if "\r\n" in text else "\n",
            adopted=stamp,
            written=seen,  # the file as adopted is as memdesk would write it
        )
        for index, block in enumerate(blocks):
            entry = by_block.get(index)
            if entry is None:  # layout, or a block the guard refused: kept as it is
                manifest.blocks.append(ManagedBlock(block.text, role=block.role))
                continue
            manifest.blocks.append(
                ManagedBlock(
                    block.text,
                    entry.id,
                    entry.summary,
                    list(entry.facts),
                    list(block.section),
                    block.role,
                )
            )
        rendered = render_file(manifest, {e.id: e for e in added})
        manifest.rendered, manifest.owners = rendered.text, rendered.owners
        save_manifest(store.meta_dir, manifest)
    sections = [b.section[-1] for b in blocks if b.role == "heading" and b.section]
    return AdoptResult(
        path=str(path),
        format=fmt.name,
        entries=len(added),
        sections=sections,
        unchanged=rendered.text == text,
        refused=[f"{entry.source.locator}: {exc}" for entry, exc in refused],
    )
