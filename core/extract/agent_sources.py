"""Where the coding agents used in a working directory keep their sessions.

`find_agent_sources(root)` looks in each agent's own folder for the sessions whose
working directory is `root`:

- Claude Code: `~/.claude/projects/<root with every non-alphanumeric character
  turned into "-">/*.jsonl` (`CLAUDE_CONFIG_DIR` moves `~/.claude`);
- Codex: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl` whose `session_meta`
  names `root` as its cwd (`CODEX_HOME` defaults to `~/.codex`);
- Gemini CLI: `~/.gemini/tmp/<sha256 of root>/chats/` (`GEMINI_CLI_HOME` moves `~`),
  and any other `tmp/*/chats/` whose recordings carry that project hash;
- Copilot CLI: `~/.copilot/session-state/<id>/events.jsonl` whose `workspace.yaml`
  (or `session.start` event) names `root` as its cwd (`COPILOT_HOME` moves `~/.copilot`);
- Aider: `.aider.chat.history.md` and `.aider.input.history` in `root`;
- SpecStory: `root/.specstory/history/*.md`.

Each agent's folder can also be set in settings (`[sources] homes = {claude = "...",
codex = "...", gemini = "...", copilot = "..."}`, each the agent's own folder, e.g.
`~/.codex`), which wins over the environment. `globs` are what `[sources] transcripts`
needs to read (and the desk to watch) those sessions.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.jsonfile import loads

AGENTS: tuple[str, ...] = (
    "claude-code",
    "codex",
    "gemini-cli",
    "copilot-cli",
    "aider",
    "specstory",
)
HOME_KEYS: tuple[str, ...] = ("claude", "codex", "gemini", "copilot")
_CWD_LINE = re.compile(r"^cwd:\s*(?P<cwd>.+?)\s*$", re.MULTILINE)
_FIRST_LINE_LIMIT = 1 << 20


@dataclass
class AgentSource:
    """One agent's sessions for a working directory."""

    agent: str  # one of AGENTS
    path: str  # the folder (or file) holding them
    format: str  # the transcript format name the readers use
    files: list[str] = field(default_factory=list)
    globs: list[str] = field(default_factory=list)  # what [sources] transcripts needs

    @property
    def sessions(self) -> int:
        return len(self.files)

    @property
    def bytes(self) -> int:
        return sum(_size(f) for f in self.files)

    def to_json(self) -> dict[str, object]:
        return {
            "agent": self.agent,
            "path": self.path,
            "format": self.format,
            "sessions": self.sessions,
            "bytes": self.bytes,
            "globs": list(self.globs),
        }


@dataclass(frozen=True)
class AgentHomes:
    """Each agent's own folder (where it keeps settings and sessions)."""

    claude: Path
    codex: Path
    gemini: Path
    copilot: Path

    @classmethod
    def resolve(
        cls, settings: Mapping[str, object] | None = None, env: Mapping[str, str] | None = None
    ) -> AgentHomes:
        """Settings `[sources] homes` first, then the agents' own variables, then $HOME."""
        env = os.environ if env is None else env
        home = Path(env.get("HOME") or Path.home())
        gemini_home = Path(env["GEMINI_CLI_HOME"]) if env.get("GEMINI_CLI_HOME") else home
        found = {
            "claude": Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude"),
            "codex": Path(env.get("CODEX_HOME") or home / ".codex"),
            "gemini": gemini_home / ".gemini",
            "copilot": Path(env.get("COPILOT_HOME") or home / ".copilot"),
        }
        for key, value in (settings or {}).items():
            if key in found and isinstance(value, str) and value:
                found[key] = Path(os.path.expanduser(value))
        return cls(**found)


def find_agent_sources(root: Path | str, homes: AgentHomes | None = None) -> list[AgentSource]:
    """Every agent's sessions for `root`, in AGENTS order; agents with none are left out."""
    root = Path(root).resolve()
    homes = homes or AgentHomes.resolve()
    found = [
        _claude(root, homes.claude),
        _codex(root, homes.codex),
        _gemini(root, homes.gemini),
        _copilot(root, homes.copilot),
        *_aider(root),
        _specstory(root),
    ]
    return [source for source in found if source is not None and source.files]


def claude_project_dir(root: Path) -> str:
    """Claude Code's folder name for a project: the path, non-alphanumerics as "-"."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(root))


def _claude(root: Path, claude: Path) -> AgentSource | None:
    for name in dict.fromkeys(
        (claude_project_dir(root), str(root).replace("/", "-").replace(".", "-"))
    ):
        folder = claude / "projects" / name
        if folder.is_dir():
            files = sorted(str(p) for p in folder.glob("*.jsonl") if p.is_file())
            return AgentSource(
                "claude-code", str(folder), "claude-code", files, [str(folder / "*.jsonl")]
            )
    return None


def _codex(root: Path, codex: Path) -> AgentSource | None:
    sessions = codex / "sessions"
    if not sessions.is_dir():
        return None
    files = sorted(str(p) for p in sessions.glob("*/*/*/rollout-*.jsonl") if _codex_cwd(p) == root)
    # Rollouts of every project share the date folders: each one of this project is named.
    return AgentSource("codex", str(sessions), "codex", files, list(files))


def _codex_cwd(path: Path) -> Path | None:
    try:
        with path.open("rb") as handle:
            first = handle.readline(_FIRST_LINE_LIMIT)
        record = loads(first, str(path))
    except (OSError, ValueError):
        return None
    payload = record.get("payload") if isinstance(record, dict) else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return _resolved(cwd)


def _gemini(root: Path, gemini: Path) -> AgentSource | None:
    tmp = gemini / "tmp"
    if not tmp.is_dir():
        return None
    project_hash = hashlib.sha256(str(root).encode("utf-8")).hexdigest()
    folders = [tmp / project_hash / "chats"]
    # Newer versions name the folder after the project: find it by the recordings' hash.
    for chats in sorted(tmp.glob("*/chats")):
        if chats not in folders and any(
            _gemini_hash(p) == project_hash for p in list(chats.glob("session-*.json*"))[:5]
        ):
            folders.append(chats)
    files: list[str] = []
    globs: list[str] = []
    for chats in folders:
        if chats.is_dir():
            files += sorted(str(p) for p in chats.glob("session-*.json*") if p.is_file())
            globs.append(str(chats / "session-*.json*"))
    return AgentSource(
        "gemini-cli", str(folders[-1] if globs else folders[0]), "gemini-cli", files, globs
    )


def _gemini_hash(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return ""
    match = re.search(rb'"projectHash"\s*:\s*"([0-9a-f]+)"', head)
    return match.group(1).decode() if match else ""


def _copilot(root: Path, copilot: Path) -> AgentSource | None:
    state = copilot / "session-state"
    if not state.is_dir():
        return None
    files = []
    for events in sorted(state.glob("*/events.jsonl")):
        if _copilot_cwd(events) == root:
            files.append(str(events))
    for older in sorted(state.glob("*.jsonl")):  # older versions: one file a session
        if _copilot_cwd(older) == root:
            files.append(str(older))
    return AgentSource("copilot-cli", str(state), "copilot-cli", files, list(files))


def _copilot_cwd(events: Path) -> Path | None:
    workspace = events.parent / "workspace.yaml"
    if events.name == "events.jsonl" and workspace.is_file():
        match = _CWD_LINE.search(workspace.read_text("utf-8", errors="replace"))
        if match:
            return _resolved(match.group("cwd").strip("'\""))
    try:
        with events.open("rb") as handle:
            record = loads(handle.readline(_FIRST_LINE_LIMIT), str(events))
        context = record["data"].get("context") or {}
        return _resolved(context.get("cwd"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _aider(root: Path) -> list[AgentSource]:
    out = []
    for name, fmt in ((".aider.chat.history.md", "aider"), (".aider.input.history", "aider-input")):
        path = root / name
        if path.is_file():
            out.append(AgentSource("aider", str(path), fmt, [str(path)], [str(path)]))
    return out


def _specstory(root: Path) -> AgentSource | None:
    history = root / ".specstory" / "history"
    if not history.is_dir():
        return None
    files = sorted(str(p) for p in history.glob("*.md") if p.is_file())
    return AgentSource("specstory", str(history), "specstory", files, [str(history / "*.md")])


def _resolved(value: object) -> Path | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return Path(value).resolve()
    except (OSError, RuntimeError):
        return None


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
