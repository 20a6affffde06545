"""The `[memfiles]` table of `.memdesk/settings.toml` (docs/memory-files.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from memdesk.core.context.settings import SettingsError, check_table
from memdesk.core.memfiles.render import GATES


@dataclass(frozen=True)
class MemfilesSettings:
    """`[memfiles]`: how managed agent memory files are kept (docs/memory-files.md)."""

    gate: str = "hold"  # "hold": a candidate stays out of the file until approved
    claude_dir: str = ""  # "" = ~/.claude
    codex_home: str = ""  # "" = $CODEX_HOME, else ~/.codex


def parse_memfiles(value: Any) -> MemfilesSettings:
    table = check_table(value, "memfiles", [f.name for f in fields(MemfilesSettings)])
    gate = table.get("gate", "hold")
    if gate not in GATES:
        raise SettingsError("memfiles.gate", f"must be one of {', '.join(GATES)}; got {gate!r}")
    out: dict[str, str] = {"gate": gate}
    for key in ("claude_dir", "codex_home"):
        folder = table.get(key, "")
        if not isinstance(folder, str):
            raise SettingsError(f"memfiles.{key}", f"must be a folder (text), got {folder!r}")
        out[key] = folder
    return MemfilesSettings(**out)


def memfiles_settings(settings: Mapping[str, Any]) -> MemfilesSettings:
    """`[memfiles]` of a raw settings mapping; its defaults when the table is wrong (the
    desk and `memdesk doctor` name the problem; a sync must not stop over it)."""
    try:
        return parse_memfiles(settings.get("memfiles", {}))
    except SettingsError:
        return MemfilesSettings()
