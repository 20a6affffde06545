"""The memory files memdesk manages in a working directory, for readers outside it
(the MCP server's resources): which there are, and their text.

That is memdesk's own `MEMORY.md` and every file adopted whole (CLAUDE.md, AGENTS.md,
an agent's auto memory...: `memdesk.core.memfiles`). A file inside the working directory
is named by its relative path; one outside it (an agent's home folder) by its manifest
name, so names stay unique and say nothing of the person's home.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from memdesk.core import plain_file


class _MemoryFileLike(Protocol):
    path: Path


class _HasMemoryFile(Protocol):
    root: Path
    meta_dir: Path
    memory_file: _MemoryFileLike


@dataclass(frozen=True)
class ManagedFile:
    name: str  # its path relative to the working directory, with "/" separators
    path: Path
    description: str


class UnknownMemoryFile(KeyError):
    """A name that is not one of the managed memory files."""


def managed_files(store: _HasMemoryFile) -> list[ManagedFile]:
    """Every memory file memdesk renders or adopts in this working directory."""
    from memdesk.core.memfiles.confine import manifest_refusal
    from memdesk.core.memfiles.manifest import all_manifests, manifest_path

    path = Path(store.memory_file.path)
    found = [
        ManagedFile(
            name=path.relative_to(store.root).as_posix(),
            path=path,
            description="the confirmed memory agents load, rendered by memdesk",
        )
    ]
    for manifest in all_manifests(store.meta_dir):
        file = manifest.file
        if any(f.path == file for f in found) or manifest_refusal(manifest.path, store.root):
            continue
        try:
            name = file.relative_to(store.root).as_posix()
        except ValueError:  # outside the working directory
            name = manifest_path(store.meta_dir, file).stem
        found.append(ManagedFile(name, file, f"a {manifest.format} memory file adopted by memdesk"))
    return found


def read_managed_file(store: _HasMemoryFile, name: str) -> str:
    """The text of the managed file called `name` ("" when it does not exist yet)."""
    for managed in managed_files(store):
        if managed.name == name:
            try:
                return plain_file.read_text(managed.path, 16 << 20, errors="replace")
            except FileNotFoundError:
                return ""
    raise UnknownMemoryFile(name)
