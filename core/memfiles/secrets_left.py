"""Secrets still written in an adopted agent memory file.

memdesk keeps what it adopts redacted (entries, the journal, sealed manifests), but it
never rewrites a person's file just to take a secret out of it: adoption keeps the file
as it is. An agent that reads `CLAUDE.md` or `MEMORY.md` itself still sees every secret
in it, so `memdesk doctor` and `adopt`/`init` name each such file, with how many lines
hold one and where the first is (the values are never printed).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from memdesk.core import plain_file
from memdesk.core.guard import REDACTED_PREFIX
from memdesk.core.memfiles.confine import manifest_refusal, named_path
from memdesk.core.memfiles.seal import secret_lines
from memdesk.core.safepath import leaves

# Agents load tens of kilobytes of a memory file; a bigger one is scanned this far.
_SCAN_BYTES = 4_000_000


@dataclass(frozen=True)
class SecretsInFile:
    path: Path  # the agent's file
    lines: int  # how many of its lines hold what looks like a secret
    first_line: int  # 1-based
    kinds: tuple[str, ...]


def secrets_in_file(path: Path) -> SecretsInFile | None:
    """What the guard's scan finds in one file (None when nothing, or it cannot be read)."""
    try:
        with plain_file.open_plain(path) as handle:
            text = handle.read(_SCAN_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    found = secret_lines(text.splitlines())
    if not found:
        return None
    kinds = sorted({_kind(redacted) for redacted in found.values()})
    return SecretsInFile(path, len(found), min(found) + 1, tuple(kinds))


def secrets_in_managed_files(root: Path, meta_dir: Path) -> list[SecretsInFile]:
    """Each file a manifest under `meta_dir` names that may be read here and holds one."""
    from memdesk.core.memfiles.manifest import files_dir, manifest_files

    out: list[SecretsInFile] = []
    if leaves(files_dir(meta_dir), root) is not None:
        return out
    seen: set[str] = set()
    for manifest in manifest_files(meta_dir):  # never a link or a special file
        value = named_path(manifest)
        if value is None or value in seen or manifest_refusal(value, root):
            continue
        seen.add(value)
        if os.path.isfile(value):
            found = secrets_in_file(Path(value))
            if found is not None:
                out.append(found)
    return out


def warning(found: SecretsInFile, shown_path: str) -> str:
    """One line for `adopt` and `init`."""
    return (
        f"{shown_path}:{found.first_line}: {found.lines} line(s) hold what looks like a secret "
        f"({', '.join(found.kinds)}); memdesk keeps them redacted, but an agent reading the "
        "file sees them: remove them from it and rotate the secret"
    )


def _kind(redacted: str) -> str:
    start = redacted.find(REDACTED_PREFIX)
    if start < 0:
        return "secret"
    end = redacted.find("]", start)
    return redacted[start + len(REDACTED_PREFIX) : end] if end > 0 else "secret"


__all__ = ["SecretsInFile", "secrets_in_file", "secrets_in_managed_files", "warning"]
