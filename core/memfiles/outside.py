"""Managed memory files outside the working directory (an agent's home folder, such as
Claude Code's auto memory) are read and written only where the person adopted them on
this machine.

The list of managed files lives in `.memdesk/memfiles/`, which travels with the
repository: a cloned repository could name `~/.bashrc` there. So adopting a file
outside the working directory also records it in the machine's trust file (outside the
repository, as `memdesk trust` does for extractor commands and transcript globs), and a
managed file outside that is not recorded there is neither read nor written.
"""

from __future__ import annotations

import os
from pathlib import Path

from memdesk.core.memfiles.manifest import all_manifests
from memdesk.core.safepath import is_inside
from memdesk.core.trust import Request, TrustError, allow_also, is_allowed

KEY = "memfiles.file"


def is_outside(path: Path | str, root: Path | str) -> bool:
    return not is_inside(os.path.realpath(path), root)


def file_request(path: Path | str) -> Request:
    return Request(KEY, os.path.realpath(path))


def record_adoption(root: Path | str, path: Path | str) -> None:
    """Adopting a file outside the working directory allows it on this machine."""
    if is_outside(path, root):
        allow_also(root, [file_request(path)])


def outside_requests(meta_dir: Path, root: Path | str) -> list[Request]:
    """One request per managed file outside the working directory (for `memdesk trust`,
    which allows exactly what it lists, and `memdesk doctor`)."""
    return [
        file_request(m.file)
        for m in all_manifests(meta_dir)
        if os.path.isabs(m.path) and is_outside(m.file, root)  # relative: never allowed
    ]


def refusal(path: Path | str, root: Path | str) -> str | None:
    """Why a managed file may not be touched here (None when it may)."""
    if not is_outside(path, root):
        return None
    try:
        if is_allowed(root, file_request(path)):
            return None
    except TrustError as exc:
        return f"{path}: {exc}"
    return (
        f"{path}: outside the working directory and not adopted on this machine; not read "
        f"or written (run `memdesk --dir {root} trust` to allow it)"
    )


__all__ = ["KEY", "file_request", "is_outside", "outside_requests", "record_adoption", "refusal"]
