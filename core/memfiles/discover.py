"""The agents' memory files that belong to a working directory.

In the directory: CLAUDE.md, CLAUDE.local.md, AGENTS.md, GEMINI.md, MEMORY.md and
memory/*.md. In the home folder: Claude Code's auto memory for this directory
(`~/.claude/projects/<path with every non-alphanumeric as '-'>/memory/*.md`) and Codex
memories (`$CODEX_HOME/memories/*.md`, `~/.codex/memories/` by default). `HOME`,
`CODEX_HOME` and the settings `[memfiles] claude_dir` / `codex_home` move them."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memdesk.core.memfiles import claude_auto_memory, codex_memories
from memdesk.core.memfiles.confine import (
    AGENT_FILES,
    MEMORY_FOLDER,
    encodes,
    link_refusal,
    name_refusal,
)
from memdesk.core.memfiles.formats import detect_format
from memdesk.core.memfiles.manifest import is_managed
from memdesk.core.memfiles.settings import memfiles_settings

ROOT_FILES = AGENT_FILES


@dataclass
class Found:
    path: Path
    format: str
    managed: bool
    refused: str = ""  # why it is not adopted (a symbolic link out of the directory)

    def to_json(self) -> dict[str, object]:
        path = str(self.path)
        if not encodes(self.path):
            path = repr(os.fsencode(self.path))
        out: dict[str, object] = {
            "path": path,
            "format": self.format,
            "managed": self.managed,
        }
        if self.refused:
            out["refused"] = self.refused
        return out


def claude_project_dir(root: Path, claude_dir: Path) -> Path:
    encoded = re.sub(r"[^A-Za-z0-9]", "-", str(root.absolute()))
    return claude_dir / "projects" / encoded


def home_dirs(settings: Mapping[str, object], root: Path | None = None) -> tuple[Path, Path]:
    """(Claude Code's folder, Codex's folder). With `root`, a folder the settings name
    outside it is used only where the person allowed it (`memdesk trust`): the
    settings travel with the repository, and these folders are listed and read."""
    from memdesk.core.trust import allowed_folders

    section = memfiles_settings(settings)
    named = {"claude_dir": section.claude_dir, "codex_home": section.codex_home}
    named = {k: v for k, v in named.items() if v}
    if root is not None:
        named = allowed_folders(root, "memfiles", named)
    claude = named.get("claude_dir") or Path.home() / ".claude"
    codex = named.get("codex_home") or os.environ.get("CODEX_HOME") or Path.home() / ".codex"
    return Path(os.path.expanduser(str(claude))), Path(os.path.expanduser(str(codex)))


def discover(root: Path, meta_dir: Path, settings: Mapping[str, object]) -> list[Found]:
    root = root.absolute()
    claude, codex = home_dirs(settings, root)
    paths: list[tuple[Path, str]] = [(root / name, "") for name in ROOT_FILES]
    found: list[Found] = []
    folder = root / MEMORY_FOLDER
    refused = link_refusal(folder, root)
    if refused:  # not listed either: its names are someone else's
        found.append(Found(folder, "", False, refused))
    else:
        paths += [(p, "") for p in sorted(folder.glob("*.md"))]
    auto = claude_project_dir(root, claude) / "memory"
    for path in sorted(auto.glob("*.md"), key=lambda p: (p.name != "MEMORY.md", p.name)):
        fmt = claude_auto_memory.FORMAT if path.name == "MEMORY.md" else claude_auto_memory.TOPIC
        paths.append((path, fmt.name))
    paths += [(p, codex_memories.FORMAT.name) for p in sorted((codex / "memories").glob("*.md"))]
    for path, fmt_name in paths:
        refused = name_refusal(path) or link_refusal(path, root)
        if refused:
            found.append(Found(path, fmt_name, False, refused))
            continue
        if not path.is_file():
            continue
        if not fmt_name:
            try:
                head = path.read_text("utf-8", errors="replace")[:2000]
            except OSError:
                continue
            fmt_name = detect_format(path, head).name
        found.append(Found(path, fmt_name, is_managed(meta_dir, path)))
    return found
