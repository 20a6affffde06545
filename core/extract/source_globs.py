"""The files one `[sources] transcripts` glob names, as this machine allows.

The glob comes from `.memdesk/settings.toml`, which travels with the repository. What
lies outside the working directory is listed and read only when the person allowed
the glob here (`memdesk trust`), whichever way the glob reaches out:

* its text names a folder outside (`~/.claude/projects/x/*.jsonl`, `../../x/*`): refused
  before it is expanded, on the text alone (nothing outside is listed or stat-ed);
* its text stays inside but a folder on the way is a symbolic link to a folder outside
  (a committed `transcripts -> /home/someone`): that folder is not listed
  (`safe_glob.confined_glob`); `memdesk problems` and `memdesk doctor` name it;
* a matched file is a link to a file outside: left out.

Each refusal is said once per process (`trust.refuse_once`); files inside still count.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.safe_glob import confined_glob, fixed_parts
from memdesk.core.safepath import is_inside, leaves
from memdesk.core.trust import is_allowed, refuse_once, transcripts_request


@dataclass
class SourceGlob:
    """One glob's matches (paths as the glob names them) and whether part was refused."""

    pattern: str
    matches: list[str] = field(default_factory=list)
    refused: bool = False  # something it names outside was left out (and said once)
    refused_folders: list[str] = field(default_factory=list)  # links out, not listed


def full_pattern(pattern: str, root: Path | str) -> str:
    """`pattern` with `~` expanded, made absolute under `root` when it is relative."""
    expanded = os.path.expanduser(pattern)
    if not os.path.isabs(expanded):
        expanded = os.path.join(os.fspath(root), expanded)
    return expanded


def names_outside(root: Path | str, expanded: str) -> bool:
    """Whether the glob's fixed part (up to its first wildcard), as written, lies
    outside the working directory (decided on the text: nothing is listed or stat-ed)."""
    fixed = fixed_parts(expanded)
    base = os.path.normpath(os.path.join(*fixed) if fixed else os.sep)
    roots = {os.path.abspath(root), os.path.realpath(root)}
    return not any(base == r or base.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def refused_outside_glob(root: Path | str, pattern: str, expanded: str) -> bool:
    """A glob whose text names a folder outside, not allowed here: refused (said once)
    before it is expanded."""
    if not names_outside(root, expanded):
        return False
    request = transcripts_request(pattern)
    if is_allowed(root, request):
        return False
    refuse_once(request, root)
    return True


def expand_source(root: Path | str, pattern: str) -> SourceGlob:
    """What `pattern` matches that this machine may list and read (see the module)."""
    found = SourceGlob(pattern)
    expanded = full_pattern(pattern, root)
    if refused_outside_glob(root, pattern, expanded):
        found.refused = True
        return found
    if names_outside(root, expanded):  # allowed here: followed wherever it leads
        found.matches = glob.glob(expanded, recursive=True)
        return found
    inside = confined_glob(expanded, root)
    found.matches = inside.matches
    if not inside.refused and all(is_inside(p, root) for p in inside.matches):
        return found
    request = transcripts_request(pattern)
    if is_allowed(root, request):
        found.matches = glob.glob(expanded, recursive=True)
        return found
    refuse_once(request, root)
    found.refused = True
    found.refused_folders = inside.refused
    found.matches = [p for p in inside.matches if is_inside(p, root)]
    return found


def refused_folders(root: Path | str, patterns: Iterable[str]) -> list[tuple[str, str]]:
    """(where, why) for `memdesk problems` and `memdesk doctor`: each folder under the
    working directory that a transcript glob not allowed here would list, and that is a
    symbolic link (or lies under one) leading outside. Nothing outside is listed."""
    out: list[tuple[str, str]] = []
    for pattern in patterns:
        expanded = full_pattern(pattern, root)
        if names_outside(root, expanded):
            continue  # doctor's "untrusted" finding names it
        folders = confined_glob(expanded, root).refused
        if not folders or is_allowed(root, transcripts_request(pattern)):
            continue
        for folder in folders:
            why = leaves(folder, root) or "leads outside the working directory"
            out.append(
                (
                    _shown(folder, root),
                    f"{why}; not listed for [sources] transcripts {pattern!r} "
                    "(`memdesk trust` allows it)",
                )
            )
    return out


def _shown(path: str, root: Path | str) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return path


__all__ = [
    "SourceGlob",
    "expand_source",
    "full_pattern",
    "names_outside",
    "refused_folders",
    "refused_outside_glob",
]
