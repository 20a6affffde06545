"""Expanding a glob from the repository's settings without leaving the working directory.

A repository can commit `transcripts -> /home/someone/private` (a symbolic link to a
folder outside it) and a `[sources] transcripts` glob such as `transcripts/*.jsonl`: the
glob's text stays inside, but `glob.glob` would list the folder outside. `confined_glob`
expands the same patterns as `glob.glob(pattern, recursive=True)` (absolute patterns,
`*`, `?`, `[...]`, `**`; hidden names only for a part that starts with '.'), but before
it lists a folder (or looks into one for a name written without a wildcard) it checks
that the folder, every symbolic link followed, lies inside the working directory. A
folder that does not is not listed: it is named in `Expansion.refused` instead.

What a listed folder holds is returned as it is named there: a match may still be a
link to a file outside, which callers filter (`safepath.is_inside`).
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.safepath import is_inside

_MAGIC = "*?["


@dataclass
class Expansion:
    """What a glob matched, and the folders it would have listed that lead outside."""

    matches: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # folders not listed (or looked into)


def has_wildcard(part: str) -> bool:
    return any(ch in part for ch in _MAGIC)


def fixed_parts(pattern: str) -> list[str]:
    """The parts of `pattern` up to its first wildcard."""
    out: list[str] = []
    for part in Path(pattern).parts:
        if has_wildcard(part):
            break
        out.append(part)
    return out


def confined_glob(pattern: str, root: Path | str) -> Expansion:
    """`glob.glob(pattern, recursive=True)` for an absolute `pattern`, listing no folder
    (and looking into none) that leads outside `root`."""
    walk = _Walk(os.fspath(root))
    parts = Path(pattern).parts
    fixed = fixed_parts(pattern)
    if len(fixed) == len(parts):  # no wildcard: one name, looked up in its folder
        parent = os.path.dirname(pattern)
        if walk.may_enter(parent) and os.path.lexists(pattern):
            walk.found.matches.append(pattern)
        return walk.found
    base = os.path.join(*fixed) if fixed else os.sep
    walk.expand(base, parts[len(fixed) :])
    return walk.found


class _Walk:
    def __init__(self, root: str) -> None:
        self.root = root
        self.found = Expansion()
        self._seen: set[str] = set()  # real folders `**` went through (links may loop)

    def may_enter(self, folder: str) -> bool:
        """Whether `folder` stays inside; a folder that leaves is named once, not entered."""
        if is_inside(folder, self.root):
            return True
        if os.path.lexists(folder) and folder not in self.found.refused:
            self.found.refused.append(folder)
        return False

    def names(self, folder: str) -> list[tuple[str, bool]]:
        """(name, is a folder) of what `folder` holds; nothing when it leaves or is none."""
        if not self.may_enter(folder):
            return []
        try:
            with os.scandir(folder) as scan:
                return [(e.name, _is_dir(e)) for e in scan]
        except OSError:
            return []

    def expand(self, folder: str, rest: tuple[str, ...]) -> None:
        part, tail = rest[0], rest[1:]
        if part == "**":
            for sub in self._folders_below(folder, top=True):
                if tail:
                    self.expand(sub, tail)
                    continue
                self.found.matches.append(sub)  # `**` last: every folder and file below
                self.found.matches += [
                    os.path.join(sub, name)
                    for name, is_dir in self.names(sub)
                    if not is_dir and not _hidden(name)
                ]
            return
        if not has_wildcard(part):
            path = os.path.join(folder, part)
            if tail:
                self.expand(path, tail)
            elif self.may_enter(folder) and os.path.lexists(path):
                self.found.matches.append(path)
            return
        for name, is_dir in self.names(folder):
            if _hidden(name) and not _hidden(part):
                continue
            if not fnmatch.fnmatchcase(name, part):
                continue
            path = os.path.join(folder, name)
            if not tail:
                self.found.matches.append(path)
            elif is_dir:
                self.expand(path, tail)

    def _folders_below(self, folder: str, top: bool = False) -> list[str]:
        """`folder` and every folder below it (hidden ones left out, as glob does)."""
        if not self.may_enter(folder):
            return []
        real = os.path.realpath(folder)
        if real in self._seen and not top:
            return []
        self._seen.add(real)
        out = [folder]
        for name, is_dir in self.names(folder):
            if is_dir and not _hidden(name):
                out += self._folders_below(os.path.join(folder, name))
        return out


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _hidden(name: str) -> bool:
    return name.startswith(".")


__all__ = ["Expansion", "confined_glob", "fixed_parts", "has_wildcard"]
