"""A managed file's manifest: its blocks in order, under `.memdesk/files/`.

The manifest is what memdesk knows about one adopted memory file: each block's verbatim
text, and for a fact block the entry it belongs to with the summary and facts that text
was written for (an entry whose summary or facts differ since was edited: its block is
written again). `rendered` is the file's text as memdesk last wrote or adopted it, and
`owners` says which block each of its lines came from, so lines an agent added later
are found by a line diff and placed where the agent put them.

On disk, no line holding a secret is kept as it is: `seal.py` replaces it by its
redacted form and a digest, and reading the manifest takes the line back from the
managed file itself (when the file may be read here and still has it).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from memdesk.core import plain_file
from memdesk.core.atomic import atomic_write_text
from memdesk.core.jsonfile import read_json
from memdesk.core.memfiles.seal import Source, as_seals, new_salt, seal, seal_many
from memdesk.core.own_writes import NO_FINGERPRINT, Fingerprint, as_fingerprint

# A managed memory file (CLAUDE.md, AGENTS.md...) is read up to this size.
MAX_MANAGED = 16 << 20

FILES_DIR = "files"
MANIFEST_VERSION = 1


@dataclass
class ManagedBlock:
    raw: str  # the verbatim text (line endings included); for a held candidate too
    entry_id: str = ""  # "" for layout (headings, blank lines, front matter ...)
    summary: str = ""
    facts: list[str] = field(default_factory=list)
    section: list[str] = field(default_factory=list)
    role: str = ""

    @property
    def is_layout(self) -> bool:
        return not self.entry_id


@dataclass
class Manifest:
    path: str  # absolute path of the managed file
    format: str
    blocks: list[ManagedBlock] = field(default_factory=list)
    rendered: str = ""
    owners: list[int] = field(default_factory=list)  # block index of each rendered line
    newline: str = "\n"
    retired: dict[str, int] = field(default_factory=dict)  # retired inode file -> read
    adopted: str = ""  # when, ISO 8601
    # The file as memdesk last wrote or read it whole: a watcher's report of that is
    # memdesk's own write (core/own_writes.py).
    written: Fingerprint = NO_FINGERPRINT
    salt: str = ""  # of the digests of sealed lines (seal.py)

    @property
    def file(self) -> Path:
        return Path(self.path)

    def copy(self) -> Manifest:
        """A copy whose blocks a preview render may change freely."""
        return replace(self, blocks=[replace(b, facts=list(b.facts)) for b in self.blocks])

    def entry_ids(self) -> list[str]:
        return [b.entry_id for b in self.blocks if b.entry_id]

    def to_json(self) -> dict[str, object]:
        """As saved: every line holding a secret sealed (see the module doc)."""
        data = asdict(self)
        salt = self.salt or new_salt()
        sealed = False
        blocks = data["blocks"]
        for block, (raw, seals) in zip(
            blocks, seal_many([b["raw"] for b in blocks], salt), strict=True
        ):
            block["raw"] = raw
            if seals:
                block["sealed"], sealed = seals, True
        data["rendered"], seals = seal(self.rendered, salt)
        if seals:
            data["rendered_sealed"], sealed = seals, True
        if sealed:
            self.salt = data["salt"] = salt
        elif not self.salt:
            del data["salt"]
        data["version"] = MANIFEST_VERSION
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        """From the parsed JSON of a manifest file (its values still unchecked)."""
        blocks = [
            ManagedBlock(**{k: v for k, v in b.items() if k != "sealed"})
            for b in data.get("blocks", [])
        ]
        return cls(
            path=str(data["path"]),
            format=str(data.get("format", "markdown")),
            blocks=blocks,
            rendered=str(data.get("rendered", "")),
            owners=[int(x) for x in data.get("owners", [])],
            newline=str(data.get("newline", "\n")),
            retired={str(k): int(v) for k, v in dict(data.get("retired", {})).items()},
            adopted=str(data.get("adopted", "")),
            written=as_fingerprint(data.get("written")),
            salt=str(data.get("salt", "")),
        )


def files_dir(meta_dir: Path) -> Path:
    return meta_dir / FILES_DIR


def manifest_path(meta_dir: Path, file: Path) -> Path:
    """`.memdesk/files/<name>-<hash of the absolute path>.json`."""
    absolute = str(Path(file).absolute())
    digest = hashlib.sha256(absolute.encode("utf-8")).hexdigest()[:10]
    name = re.sub(r"[^A-Za-z0-9._-]", "_", Path(file).name)[:60]
    return files_dir(meta_dir) / f"{name}-{digest}.json"


def has_managed_files(meta_dir: Path) -> bool:
    """Cheap: is any file managed at all? (Most stores manage none.)"""
    folder = files_dir(meta_dir)
    try:
        return not folder.is_symlink() and any(
            p.suffix == ".json" and _is_regular(p) for p in folder.iterdir()
        )
    except OSError:
        return False


def _is_regular(path: Path) -> bool:
    """A plain file, the name itself (not followed): a committed link could name any
    file of the machine, and a FIFO or device would block or never end."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _listed(meta_dir: Path) -> list[Path]:
    folder = files_dir(meta_dir)
    if folder.is_symlink() or not folder.is_dir():
        return []  # a link out is a layout refusal (core/confinement.py)
    return sorted(folder.glob("*.json"))


def manifest_files(meta_dir: Path) -> list[Path]:
    """The manifests that may be read: each `files/*.json` that is a plain file. A
    symbolic link (even one that stays inside) or a special file is never opened;
    `refused_manifests` names it for `memdesk problems` and `memdesk doctor`."""
    return [p for p in _listed(meta_dir) if _is_regular(p)]


def refused_manifests(meta_dir: Path) -> list[tuple[Path, str]]:
    """(path, why) for each `files/*.json` that is not read: a link or not a plain file."""
    found: list[tuple[Path, str]] = []
    for path in _listed(meta_dir):
        if _is_regular(path):
            continue
        if path.is_symlink():
            why = (
                f"is a symbolic link to {os.path.realpath(path)}; a manifest is never "
                "read through a link (delete it)"
            )
        else:
            why = "is not a regular file; not read (delete it)"
        found.append((path, why))
    return found


def is_managed(meta_dir: Path, file: Path) -> bool:
    return _is_regular(manifest_path(meta_dir, file))


def load_manifest(meta_dir: Path, file: Path) -> Manifest | None:
    return read_manifest(manifest_path(meta_dir, file))


def read_manifest(path: Path) -> Manifest | None:
    if not _is_regular(path):
        return None  # a link or a special file is not read (`refused_manifests`)
    try:
        data = read_json(path)
        manifest = Manifest.from_json(data)
        block_seals = [as_seals(b.get("sealed")) for b in data.get("blocks", [])]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    rendered_seals = as_seals(data.get("rendered_sealed"))
    if any(block_seals) or rendered_seals:
        source = _sealed_source(manifest, path)
        if source is not None:
            for block, seals in zip(manifest.blocks, block_seals, strict=False):
                block.raw = source.unseal(block.raw, seals)
            manifest.rendered = source.unseal(manifest.rendered, rendered_seals)
    return manifest


def _sealed_source(manifest: Manifest, path: Path) -> Source | None:
    """The managed file's secret lines by digest, when it may be read here."""
    from memdesk.core.memfiles.confine import manifest_refusal

    root = path.parent.parent.parent  # <root>/.memdesk/files/<name>.json
    if manifest_refusal(manifest.path, root):
        return None
    try:
        text = plain_file.read_bytes(manifest.file, MAX_MANAGED).decode("utf-8", "replace")
    except OSError:
        return None
    return Source(text, manifest.salt)


def save_manifest(meta_dir: Path, manifest: Manifest) -> Path:
    path = manifest_path(meta_dir, manifest.file)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(manifest.to_json(), ensure_ascii=False, indent=1)
    try:
        if _is_regular(path) and plain_file.read_text(path) == text:
            return path  # most syncs change nothing: no write, no fsync
    except OSError:
        pass
    atomic_write_text(path, text)
    return path


def all_manifests(meta_dir: Path) -> list[Manifest]:
    found: list[Manifest] = []
    for path in manifest_files(meta_dir):
        manifest = read_manifest(path)
        if manifest is not None:
            found.append(manifest)
    return found
