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

Git swaps MEMORY.md with the branch while that state stays (it is local, untracked), so
"the lines of the last render" is not enough to know memdesk's own lines. The state also
keeps the digest of the bytes memdesk last wrote: while the file starts with them, only
what follows is read (appends, always taken). A file that does not (a checkout, a pull,
an editor saving it whole) is read line by line, and a line memdesk ever rendered here,
or a summary the journal shows an entry once had (a render from another branch or clone),
is memdesk's own, never a candidate.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from memdesk.core import plain_file
from memdesk.core.atomic import atomic_write_bytes, atomic_write_text
from memdesk.core.entry import normalise_text, text_hash
from memdesk.core.jsonfile import read_json
from memdesk.core.memory_md_secrets import mark_multiline_secrets, scrub_file, scrub_kind
from memdesk.core.own_writes import (
    NO_FINGERPRINT,
    Fingerprint,
    as_fingerprint,
    fingerprint,
    is_own_write,
    read_with_fingerprint,
)
from memdesk.core.safepath import RETIRED_NAME, leaves

MEMORY_FILE = "MEMORY.md"
HEADER = "# Memory"
NOTE = (
    "<!-- memdesk renders this file from .memdesk/entries. Lines you or an agent add "
    "are picked up as candidates for review. -->"
)
RETIRED_IDLE_SECONDS = 3600  # where open files cannot be listed (not Linux)
# At most this much of MEMORY.md is read at once (a plain file only: a FIFO or a device
# in its place is not read, `plain_file`); an ingest reads the rest on the next run.
MAX_READ = 16 << 20


@dataclass
class ExternalLine:
    text: str  # the line without its bullet
    locator: str  # MEMORY.md:LINE or .memdesk/retired/NAME@OFFSET
    path: Path | None = None  # the file the line is in, and where: for `scrub`
    offset: int = 0
    raw: bytes = b""
    # Part of a secret that spans lines (a key block appended line by line): refused.
    multiline_secret: bool = False


@dataclass
class MemoryState:
    """What memdesk knows about MEMORY.md (`.memdesk/memory_md.json`)."""

    rendered: set[str] = field(default_factory=set)
    ingested: set[str] = field(default_factory=set)
    retired: dict[str, int] = field(default_factory=dict)  # file name -> bytes consumed
    live: tuple[int, int] = (0, 0)  # (inode, bytes read) of MEMORY.md at the last collect
    drained: list[str] = field(default_factory=list)  # retired files read to the end
    # MEMORY.md as memdesk last wrote it: a watcher's report of that is our own write.
    written: Fingerprint = NO_FINGERPRINT
    # The bytes memdesk last wrote (sha256, length): a file that starts with them was
    # only appended to since.
    render_digest: str = ""
    render_size: int = 0
    # Short hashes (`short_hash`) of every line memdesk rendered here, on any branch.
    rendered_before: set[str] = field(default_factory=set)


def short_hash(digest: str) -> str:
    """A line hash as the render history keeps it: 64 bits keep the state small, and
    no two lines of one project's memory collide at that size."""
    return digest[:16]


_MARKERS = ("<<<<<<<", "|||||||", "=======", ">>>>>>>")


def conflict_marker_line(text: str) -> int | None:
    """The line of the first git conflict marker (`<<<<<<< `) in `text`, or None."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("<<<<<<<"):
            return number
    return None


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


class LineSink(Protocol):
    """Takes one line read from MEMORY.md or a retired copy, with where it came from."""

    def __call__(
        self, raw_line: str, locator: str, where: tuple[Path, int, bytes] | None = None
    ) -> None: ...


class MemoryFile:
    def __init__(self, root: Path, meta_dir: Path) -> None:
        self.root = root
        self.path = root / MEMORY_FILE
        self.meta_dir = meta_dir
        self.retired_dir = meta_dir / "retired"
        self.state_path = meta_dir / "memory_md.json"

    # -- state -------------------------------------------------------------------
    def load_state(self) -> MemoryState:
        try:
            data = read_json(self.state_path)
            # A retired name is a file name memdesk made; anything else (a path from
            # a forged state) is dropped, never opened or deleted.
            return MemoryState(
                set(data.get("rendered", [])),
                set(data.get("ingested", [])),
                {
                    str(k): int(v)
                    for k, v in data.get("retired", {}).items()
                    if RETIRED_NAME.fullmatch(str(k))
                },
                tuple(data.get("live", (0, 0))),
                [str(n) for n in data.get("drained", []) if RETIRED_NAME.fullmatch(str(n))],
                as_fingerprint(data.get("written")),
                str(data.get("render_digest", "")),
                int(data.get("render_size", 0)),
                {str(h) for h in data.get("rendered_before", [])},
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
            "written": list(state.written),
            "render_digest": state.render_digest,
            "render_size": state.render_size,
            "rendered_before": sorted(state.rendered_before),
        }
        atomic_write_text(self.state_path, json.dumps(data, indent=1))
        self._delete_retired(state.drained)

    def _delete_retired(self, names: list[str]) -> None:
        for name in names:
            if not RETIRED_NAME.fullmatch(name):
                continue
            with contextlib.suppress(OSError):
                (self.retired_dir / name).unlink()

    # -- reading -----------------------------------------------------------------
    def collect_external(
        self, held_texts: Callable[[], set[str]] | None = None
    ) -> tuple[list[ExternalLine], MemoryState]:
        """Lines memdesk did not write and has not ingested yet (current file and
        retired inodes), with the state that marks them ingested. Save that state
        (`save_state` or `write`) once the caller has committed them as candidates.

        `held_texts` gives the hashes of every summary the store's entries ever had (its
        journal); it is asked at most once, and only when MEMORY.md was replaced by
        someone else and a line there is not one memdesk rendered here."""
        state = self.load_state()
        found: list[ExternalLine] = []
        seen: set[str] = set()
        held: set[str] | None = None

        def rendered_elsewhere(digest: str) -> bool:
            """A line of a render memdesk made on another branch, or in another clone."""
            nonlocal held
            if short_hash(digest) in state.rendered_before:
                return True
            if held is None:
                held = held_texts() if held_texts is not None else set()
            return digest in held

        def take(
            raw_line: str,
            locator: str,
            where: tuple[Path, int, bytes] | None = None,
            replaced: bool = False,
        ) -> None:
            if not is_content_line(raw_line):
                return
            text = line_text(raw_line)
            digest = text_hash(text)
            if digest in state.rendered or digest in state.ingested or digest in seen:
                return
            if replaced and rendered_elsewhere(digest):
                return
            seen.add(digest)
            path, offset, raw = where if where else (None, 0, b"")
            found.append(ExternalLine(text, locator, path, offset, raw))

        data, inode = b"", 0
        if not self.leads_outside():  # a link out is not read (`problems` names it)
            data, inode = self._read_complete(self.path)
        state.live = (inode, len(data))
        # Where appends start: after the bytes memdesk wrote, when the file still starts
        # with them; otherwise the file was replaced and each line is judged alone.
        appended_from = _appended_from(data, state)
        for number, (offset, raw) in enumerate(split_lines(data), 1):
            if appended_from is not None and offset < appended_from:
                continue  # memdesk's own render
            line = raw.decode("utf-8", "replace")
            # A lone CR (and the other breaks Python's str.splitlines knows, such as
            # \x1e or \u2028) may end a line for an editor or a reader: a marker may
            # follow one.
            if any(part.startswith(_MARKERS) for part in line.splitlines()):
                continue  # git's markers are not facts; both sides' lines are read
            take(line, f"{MEMORY_FILE}:{number}", (self.path, offset, raw), appended_from is None)
        self._drain_retired(state, take)
        state.ingested |= seen
        mark_multiline_secrets(found)
        return found, state

    def scrub(self, lines: list[ExternalLine]) -> int:
        """Overwrite these lines where they are (MEMORY.md or a retired inode) by a
        comment of the same length: a refused secret leaves every file memdesk keeps,
        while byte offsets (and appenders holding the file open) stay valid."""
        done = 0
        for line in lines:
            if line.path is None or not line.raw:
                continue
            with contextlib.suppress(OSError):
                done += scrub_file(line.path, line.raw, scrub_kind(line.text))
        return done

    @staticmethod
    def _read_complete(path: Path, offset: int = 0) -> tuple[bytes, int]:
        """(bytes from offset up to the last newline, inode): a half line waits."""
        try:
            with plain_file.open_plain(path) as handle:
                inode = os.fstat(handle.fileno()).st_ino
                handle.seek(offset)
                data = handle.read(MAX_READ)  # the rest on the next run
        except OSError:
            return b"", 0
        return data[: data.rfind(b"\n") + 1], inode

    def _drain_retired(self, state: MemoryState, take: LineSink) -> None:
        # Files the saved state already let go of: finish their deletion.
        self._delete_retired(state.drained)
        state.drained = []
        with contextlib.suppress(OSError):
            for child in self.retired_dir.iterdir():
                if (
                    RETIRED_NAME.fullmatch(child.name)
                    and child.name not in state.retired
                    and leaves(child, self.root) is None
                ):
                    state.retired[child.name] = 0  # unknown to the state: read it all
        if not state.retired:
            return
        holders = open_inodes()
        for name, consumed in list(state.retired.items()):
            path = self.retired_dir / name
            try:
                if leaves(path, self.root) is not None:
                    raise FileNotFoundError(path)  # a link out: forgotten, not followed
                st = os.stat(path)
            except FileNotFoundError:
                del state.retired[name]
                continue
            data, _ = self._read_complete(path, consumed)
            for offset, raw in split_lines(data, consumed):
                take(
                    raw.decode("utf-8", "replace"),
                    f".memdesk/retired/{name}@{consumed}",
                    (path, offset, raw),
                )
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
                with contextlib.suppress(OSError), plain_file.open_plain(path) as handle:
                    handle.seek(consumed)
                    tail = handle.read()
                if tail.strip():
                    take(tail.decode("utf-8", "replace"), f".memdesk/retired/{name}@{consumed}")
                del state.retired[name]
                state.drained.append(name)  # deleted once this state is saved

    def leads_outside(self) -> bool:
        """MEMORY.md is a link to a file outside the working directory: memdesk neither
        reads nor rewrites it (someone else's file)."""
        return leaves(self.path, self.root) is not None

    def conflict_problem(self) -> str | None:
        """One line when git left conflict markers in MEMORY.md: the next render
        rewrites it from the store (the lines of both sides are read first)."""
        line = conflict_marker_line(self.read_text())
        if line is None:
            return None
        return (
            f"{self.path}:{line}: git conflict markers: the lines of both sides are read "
            "as candidates; `memdesk render` rewrites the file from the store"
        )

    def read_text(self) -> str:
        if self.leads_outside():
            return ""
        try:
            return plain_file.read_text(self.path, MAX_READ, errors="replace")
        except OSError:
            return ""

    # -- writing -----------------------------------------------------------------
    def write(self, text: str, state: MemoryState | None = None) -> bool:
        """Replace MEMORY.md with `text`; returns False when it was already that.

        Call `collect_external()` first (under the store lock) so nothing is lost, commit
        what it found, and pass its state here: it is saved once, with the new render.
        """
        state = state if state is not None else self.load_state()
        if self.leads_outside():
            self.save_state(state)  # what was ingested from elsewhere stays read
            return False
        data = text.encode("utf-8")
        try:
            current, seen = read_with_fingerprint(self.path)
        except OSError:
            current, seen = None, NO_FINGERPRINT
        if current == data:
            self._remember_rendered(state, text)
            state.written = seen
            self.save_state(state)
            return False
        if current is not None:
            self._retire_current(state)
        state.written = fingerprint(atomic_write_bytes(self.path, data))
        self._remember_rendered(state, text)
        self.save_state(state)
        return True

    def as_last_written(self) -> bool:
        """Nothing in MEMORY.md is new: it is exactly as memdesk last wrote it, or it is
        not there, or it is a link out (never read)."""
        if not os.path.lexists(self.path) or self.leads_outside():
            return True
        return is_own_write(self.path, self.load_state().written)

    @staticmethod
    def _remember_rendered(state: MemoryState, text: str) -> None:
        state.rendered = {
            text_hash(line_text(raw)) for raw in text.splitlines() if is_content_line(raw)
        }
        state.rendered_before |= {short_hash(digest) for digest in state.rendered}
        data = text.encode("utf-8")
        state.render_digest = hashlib.sha256(data).hexdigest()
        state.render_size = len(data)

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


def _appended_from(data: bytes, state: MemoryState) -> int | None:
    """The offset appends start at when `data` begins with what memdesk last wrote;
    None when the file was replaced (or memdesk never wrote it)."""
    size = state.render_size
    if not state.render_digest or size <= 0 or len(data) < size:
        return None
    if hashlib.sha256(data[:size]).hexdigest() != state.render_digest:
        return None
    return size


def split_lines(data: bytes, base: int = 0) -> list[tuple[int, bytes]]:
    """(byte offset, line without its newline) for every line of `data`."""
    out: list[tuple[int, bytes]] = []
    offset = 0
    for raw in data.split(b"\n"):
        if raw or offset < len(data):
            out.append((base + offset, raw.rstrip(b"\r")))
        offset += len(raw) + 1
    return [item for item in out if item[0] - base < len(data)]


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
