"""Which memory files memdesk may read and write in this working directory.

A cloned repository can ship `CLAUDE.md`, `AGENTS.md`, `GEMINI.md` or `memory/` as a
symbolic link to a file or folder outside it, and a manifest under `.memdesk/files/`
(committed, so it may come from someone else) can name any path. So:

- a memory file under the working directory that leads out of it (a link on the way)
  is neither adopted nor read nor written; a link that stays inside is fine;
- a manifest's path must be absolute; under the working directory it may not lie in
  `.memdesk/` or `.git/`; outside it, it is a file the person adopted on this machine
  (`memfiles/outside.py`, the trust file) or it is not touched.
"""

from __future__ import annotations

import os
from pathlib import Path

from memdesk.core.jsonfile import read_json
from memdesk.core.memfiles.outside import refusal as outside_refusal
from memdesk.core.safepath import is_inside, leaves

# Names in the working directory that agents read as memory (discover.py adds `memory/`).
AGENT_FILES: tuple[str, ...] = (
    "CLAUDE.md",
    "CLAUDE.local.md",
    "AGENTS.md",
    "GEMINI.md",
    "MEMORY.md",
)
MEMORY_FOLDER = "memory"
_NOT_MEMORY = (".memdesk", ".git")


def under(path: Path | str, root: Path | str) -> Path | None:
    """`path` relative to `root` when it is written under it (`..` resolved, links not)."""
    normal = Path(os.path.normpath(os.path.abspath(path)))
    try:
        return normal.relative_to(os.path.normpath(os.path.abspath(root)))
    except ValueError:
        return None


def name_refusal(path: Path | str) -> str | None:
    """Why a memory file may not be adopted for its name: one that is not UTF-8 (its
    bytes are surrogate-escaped) would reach manifests, entries and the journal. The
    name is shown as the repr of its bytes."""
    if not encodes(path):
        shown = repr(os.fsencode(path))
        return f"{shown}: the file name is not UTF-8; not adopted (rename it to adopt it)"
    return None


def encodes(path: Path | str) -> bool:
    """Whether the path is text (a name that is not UTF-8 holds surrogate escapes)."""
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def link_refusal(
    path: Path | str, root: Path | str, *, outcome: str = "not adopted, read or written"
) -> str | None:
    """Why a memory file under the working directory may not be adopted or read: it leads
    out of it through a symbolic link (None when it stays inside, or is written outside
    it: a file a person typed, such as an agent's memory in the home folder)."""
    parent = os.path.dirname(os.path.abspath(path))
    if under(path, root) is None and not is_inside(parent, root):
        return None  # (the folder checked resolved too: a root reached through a link)
    why = leaves(path, root)
    return f"{path}: {why}; {outcome}" if why else None


def manifest_refusal(value: str, root: Path | str) -> str | None:
    """Why the file a manifest names may not be read or written here (None when it may)."""
    if not os.path.isabs(value):
        return f"{value}: a managed file's path must be absolute; not read or written"
    inside = under(value, root)
    if inside is None:
        return outside_refusal(os.path.normpath(value), root)
    if inside.parts and inside.parts[0] in _NOT_MEMORY:
        return (
            f"{value}: inside {inside.parts[0]}/, not an agent's memory file; not read or written"
        )
    return link_refusal(value, root)


def refused_files(root: Path, meta_dir: Path) -> list[tuple[str, str]]:
    """(where, why) for `memdesk problems` and `memdesk doctor`: each agent memory file
    (or `memory/`) linked out of the working directory, and each manifest naming a path
    that is not absolute, climbs into `.memdesk/` or `.git/`, or links out. (A manifest
    naming a file outside that was not adopted here is doctor's "untrusted" finding.)"""
    from memdesk.core.memfiles.manifest import files_dir, manifest_files, refused_manifests

    found: list[tuple[str, str]] = []
    # MEMORY.md linked out is already a finding of core/confinement.py.
    names = [*(n for n in AGENT_FILES if n != "MEMORY.md"), MEMORY_FOLDER]
    folder = root / MEMORY_FOLDER
    if leaves(folder, root) is None and folder.is_dir():
        names += [f"{MEMORY_FOLDER}/{p.name}" for p in sorted(folder.glob("*.md"))]
    for name in names:
        why = leaves(root / name, root)
        if why:
            found.append((name, f"{why}; not adopted, read or written"))
    manifests = files_dir(meta_dir)
    if leaves(manifests, root) is not None or not manifests.is_dir():
        return found
    for path, why in refused_manifests(meta_dir):
        found.append((path.relative_to(root).as_posix(), why))
    for path in manifest_files(meta_dir):
        value = None if leaves(path, root) else named_path(path)
        if value is None:
            continue
        if os.path.isabs(value) and under(value, root) is None:
            continue  # outside: adopted here, or doctor's "untrusted" finding
        why = manifest_refusal(value, root)
        if why:
            found.append((path.relative_to(root).as_posix(), f"names {why}"))
    return found


def named_path(manifest: Path) -> str | None:
    """The `"path"` a manifest names (its lines are not unsealed: only the name is needed)."""
    try:
        data = read_json(manifest)
    except (OSError, ValueError):
        return None
    value = data.get("path") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


__all__ = [
    "AGENT_FILES",
    "MEMORY_FOLDER",
    "link_refusal",
    "manifest_refusal",
    "named_path",
    "refused_files",
    "under",
]
