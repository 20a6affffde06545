"""MEMORY.md: the file agents load, and a place where they append facts.

memdesk rewrites MEMORY.md from the store; agents (and people) append `- fact` lines
to it at any time. Two rules make that safe:

* Every line memdesk did not write is ingested as a candidate before the file is
  rewritten (line hashes of the last render are remembered in `.memdesk/`).
* The file is replaced atomically (rename), so an appender that still holds the old
  file open keeps writing into the old inode. Before each rename the old inode is
  hard-linked into `.memdesk/retired/`, so those late appends stay reachable and are
  drained on the next ingest. A retired file is dropped once nobody holds it open and
  everything in it was read. Nothing an agent appends is lost.

Reading and remembering are two steps: `collect_external()` returns the new lines and the
state that marks them read, and the caller saves that state (`save_state`, or `write`)
only after the candidates are committed. A crash in between reads the same lines again
(the store's dedupe drops repeats) instead of losing them. For the same reason a drained
retired file is deleted only after the state that forgets it is on disk, and a retired
file the state does not know (a crash between the hard link and the state save) is
adopted and read from its start.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.atomic import atomic_write_bytes, atomic_write_text
from memdesk.core.entry import normalise_text, text_hash

MEMORY_FILE = "MEMORY.md"
HEADER = "# Memory"
NOTE = (
    "<!-- memdesk renders this file from .memdesk/entries. Lines you or an agent add "
    "are picked up as candidates for review. -->"
)
RETIRED_IDLE_SECONDS = 3600  # where open files cannot be listed (not Linux)


@dataclass
class ExternalLine:
    text: str  # the line without its bullet
    locator: str  # MEMORY.md:LINE or .memdesk/retired/NAME@OFFSET


@dataclass
class MemoryState:
    """What memdesk knows about MEMORY.md (`.memdesk/memory_md.json`)."""

    rendered: set[str] = field(default_factory=set)
    ingested: set[str] = field(default_factory=set)
    retired: dict[str, int] = field(default_factory=dict)  # file name -> bytes consumed
    live: tuple[int, int] = (0, 0)  # (inode, bytes read) of MEMORY.md at the last collect
    drained: list[str] = field(default_factory=list)  # retired files read to the end


def is_content_line(line: str) -> bool:
    """A line that can carry a fact (not blank, heading, comment or rule)."""
    stripped = line.strip()
    if not stripped or stripped.startswith("#") or stripped.startswith("<!--"):
        return False
    if set(stripped) <= set("-*_="):
        return False
    return bool(normalise_text(stripped))


def line_text(line: str) -> str:
    """The fact on a line: bullet removed, whitespace trimmed (case kept)."""
    stripped = line.strip()
    for bullet in ("- [ ] ", "- [x] ", "- ", "* ", "+ "):
        if stripped.startswith(bullet):
            return stripped[len(bullet) :].strip()
    return stripped


class MemoryFile:
    def __init__(self, root: Path, meta_dir: Path) -> None:
        self.path = root / MEMORY_FILE
        self.meta_dir = meta_dir
        self.retired_dir = meta_dir / "retired"
        self.state_path = meta_dir / "memory_md.json"

    # -- state -------------------------------------------------------------------
    def load_state(self) -> MemoryState:
        try:
            data = json.loads(self.state_path.read_text("utf-8"))
            return MemoryState(
                set(data.get("rendered", [])),
                set(data.get("ingested", [])),
                {str(k): int(v) for k, v in data.get("retired", {}).items()},
                tuple(data.get("live", (0, 0))),  # type: ignore[arg-type]
                [str(name) for name in data.get("drained", [])],
            )
        except (OSError, ValueError, AttributeError, TypeError):
            return MemoryState()

    def save_state(self, state: MemoryState) -> None:
        """Write the state; then delete the retired files it no longer needs."""
        data = {
            "rendered": sorted(state.rendered),
            "ingested": sorted(state.ingested),
            "retired": state.retired,
            "live": list(state.live),
            "drained": sorted(state.drained),
        }
        atomic_write_text(self.state_path, json.dumps(data, indent=1))
        self._delete_retired(state.drained)

    def _delete_retired(self, names: list[str]) -> None:
        for name in names:
            with contextlib.suppress(OSError):
                (self.retired_dir / name).unlink()

    # -- reading -----------------------------------------------------------------
    def collect_external(self) -> tuple[list[ExternalLine], MemoryState]:
        """Lines memdesk did not write and has not ingested yet (current file and
        retired inodes), with the state that marks them ingested. Save that state
        (`save_state` or `write`) once the caller has committed them as candidates."""
        state = self.load_state()
        found: list[ExternalLine] = []
        seen: set[str] = set()

        def take(raw_line: str, locator: str) -> None:
            if not is_content_line(raw_line):
                return
            text = line_text(raw_line)
            digest = text_hash(text)
            if digest in state.rendered or digest in state.ingested or digest in seen:
                return
            seen.add(digest)
            found.append(ExternalLine(text, locator))

        data, inode = self._read_complete(self.path)
        state.live = (inode, len(data))
        for number, raw_line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            take(raw_line, f"{MEMORY_FILE}:{number}")
        self._drain_retired(state, take)
        state.ingested |= seen
        return found, state

    @staticmethod
    def _read_complete(path: Path, offset: int = 0) -> tuple[bytes, int]:
        """(bytes from offset up to the last newline, inode): a half line waits."""
        try:
            with open(path, "rb") as handle:
                inode = os.fstat(handle.fileno()).st_ino
                handle.seek(offset)
                data = handle.read()
        except OSError:
            return b"", 0
        return data[: data.rfind(b"\n") + 1], inode

    def _drain_retired(self, state: MemoryState, take) -> None:  # type: ignore[no-untyped-def]
        # Files the saved state already let go of: finish their deletion.
        self._delete_retired(state.drained)
        state.drained = []
        with contextlib.suppress(OSError):
            for child in self.retired_dir.iterdir():
                if child.name.startswith(f"{MEMORY_FILE}.") and child.name not in state.retired:
                    state.retired[child.name] = 0  # unknown to the state: read it all
        if not state.retired:
            return
        holders = open_inodes()
        for name, consumed in list(state.retired.items()):
            path = self.retired_dir / name
            try:
                st = os.stat(path)
            except FileNotFoundError:
                del state.retired[name]
                continue
            data, _ = self._read_complete(path, consumed)
            for raw_line in data.decode("utf-8", "replace").splitlines():
                take(raw_line, f".memdesk/retired/{name}@{consumed}")
            consumed += len(data)
            state.retired[name] = consumed
            idle = time.time() - st.st_mtime
            still_open = (
                (st.st_dev, st.st_ino) in holders
                if holders is not None
                else (idle < RETIRED_IDLE_SECONDS)
            )
            if not still_open:
                # Nobody can append any more: a last unterminated line is complete now.
                tail = b""
                with contextlib.suppress(OSError), open(path, "rb") as handle:
                    handle.seek(consumed)
                    tail = handle.read()
                if tail.strip():
                    take(tail.decode("utf-8", "replace"), f".memdesk/retired/{name}@{consumed}")
                del state.retired[name]
                state.drained.append(name)  # deleted once this state is saved

    def read_text(self) -> str:
        try:
            return self.path.read_text("utf-8", errors="replace")
        except OSError:
            return ""

    # -- writing -----------------------------------------------------------------
    def write(self, text: str, state: MemoryState | None = None) -> bool:
        """Replace MEMORY.md with `text`; returns False when it was already that.

        Call `collect_external()` first (under the store lock) so nothing is lost, commit
        what it found, and pass its state here: it is saved once, with the new render.
        """
        state = state if state is not None else self.load_state()
        data = text.encode("utf-8")
        try:
            current = self.path.read_bytes()
        except OSError:
            current = None
        if current == data:
            self._remember_rendered(state, text)
            self.save_state(state)
            return False
        if current is not None:
            self._retire_current(state)
        atomic_write_bytes(self.path, data)
        self._remember_rendered(state, text)
        self.save_state(state)
        return True

    @staticmethod
    def _remember_rendered(state: MemoryState, text: str) -> None:
        state.rendered = {
            text_hash(line_text(raw)) for raw in text.splitlines() if is_content_line(raw)
        }

    def _retire_current(self, state: MemoryState) -> None:
        """Keep the old inode reachable: an appender holding it open writes there."""
        try:
            st = os.stat(self.path)
        except OSError:
            return
        self.retired_dir.mkdir(parents=True, exist_ok=True)
        name = f"MEMORY.md.{st.st_ino}"
        target = self.retired_dir / name
        if name not in state.retired:
            with contextlib.suppress(FileExistsError):
                os.link(self.path, target)
            # collect_external read this inode up to `live`; later appends are drained.
            state.retired[name] = state.live[1] if state.live[0] == st.st_ino else 0


def open_inodes() -> set[tuple[int, int]] | None:
    """(dev, inode) of every file any process holds open; None where unknowable."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    found: set[tuple[int, int]] = set()
    try:
        pids = [p for p in os.listdir(proc) if p.isdigit()]
    except OSError:
        return None
    for pid in pids:
        fd_dir = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                st = os.stat(f"{fd_dir}/{fd}")
            except OSError:
                continue
            found.add((st.st_dev, st.st_ino))
    return found


def render_grouped(summaries_by_group: list[tuple[str, list[str]]]) -> str:
    """Seed-000 compatible text: headings, then one `- fact` line per entry."""
    lines = [HEADER, "", NOTE, ""]
    for title, summaries in summaries_by_group:
        if not summaries:
            continue
        lines.append(f"## {title}")
        lines.extend(f"- {' '.join(s.split())}" for s in summaries)
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
