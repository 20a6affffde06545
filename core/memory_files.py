"""The memory files memdesk manages in a working directory, for readers outside it
(the MCP server's resources): which there are, and their text.

Today that is `MEMORY.md`; a new managed file (another agent's memory file) is one more
item in `managed_files`, and every reader picks it up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class _MemoryFileLike(Protocol):
    path: Path


class _HasMemoryFile(Protocol):
    root: Path
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
    path = Path(store.memory_file.path)
    return [
        ManagedFile(
            name=path.relative_to(store.root).as_posix(),
            path=path,
            description="the confirmed memory agents load, rendered by memdesk",
        )
    ]


def read_managed_file(store: _HasMemoryFile, name: str) -> str:
    """The text of the managed file called `name` ("" when it does not exist yet)."""
    for managed in managed_files(store):
        if managed.name == name:
            try:
                return managed.path.read_text("utf-8", errors="replace")
            except FileNotFoundError:
                return ""
    raise UnknownMemoryFile(name)
