"""Incremental ingestion of `.memdesk/inbox/` files and the transcript globs in settings.

`ingest_path(store, path)` is the one function the TUI's file watcher calls per changed
path. It remembers, per file, how far it has read (`.memdesk/ingest_state.json`: byte
offset, line number, size, inode), so a transcript an agent keeps appending to is read
from where it stopped; a file that shrank or was replaced is read again from the start
(duplicates are then dropped by the sha256 dedupe). A last line without its newline is
left for the next call: the writer may still be in the middle of it.

Files in the inbox may be transcripts (any format `readers` knows) or candidate files:
JSON/JSONL records that have a `summary` are taken as candidates in the entry format
(e.g. what an LLM extractor or another tool dropped there), everything else as messages.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core import plain_file
from memdesk.core.atomic import atomic_write_text
from memdesk.core.context.settings import SettingsError
from memdesk.core.errors import describe_error
from memdesk.core.extract.files import file_candidates
from memdesk.core.extract.flush import WriteResult, select_new
from memdesk.core.extract.messages import ReadStats, log
from memdesk.core.extract.readers import UnrecognisedFormat, detect_format, is_line_based
from memdesk.core.extract.settings import ExtractSettings
from memdesk.core.extract.source_globs import (
    expand_source,
    full_pattern,
    names_outside,
    refused_outside_glob,
)
from memdesk.core.extract.transcript import rank_and_cap
from memdesk.core.jsonfile import read_json
from memdesk.core.safe_glob import fixed_parts
from memdesk.core.safepath import is_inside, leaves
from memdesk.core.store import StoreError
from memdesk.core.trust import is_allowed, refuse_once, transcripts_request

STATE_FILE = "ingest_state.json"
INBOX_DIR = "inbox"
STATE_VERSION = 1


@dataclass
class IngestResult(WriteResult):
    path: str = ""
    messages: int = 0
    skipped_lines: int = 0
    warnings: list[str] = field(default_factory=list)
    from_offset: int = 0
    to_offset: int = 0
    unchanged: bool = False  # nothing new since the last read


# -- state ------------------------------------------------------------------------------


def state_path(store: Any) -> Path:
    return Path(store.meta_dir) / STATE_FILE


def load_state(store: Any) -> dict[str, dict[str, Any]]:
    path = state_path(store)
    try:
        data = read_json(path)
    except FileNotFoundError:
        return {}
    except ValueError:
        log.warning("%s is not valid JSON; reading every source from the start", path)
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return files if isinstance(files, dict) else {}


def save_state(store: Any, files: dict[str, dict[str, Any]]) -> None:
    atomic_write_text(
        state_path(store),
        json.dumps(
            {"v": STATE_VERSION, "files": files}, ensure_ascii=False, indent=1, sort_keys=True
        ),
    )


def _key(store: Any, path: Path) -> str:
    """Paths under the working directory are stored relative, so the folder can move."""
    with contextlib.suppress(ValueError):
        return path.relative_to(Path(store.root).resolve()).as_posix()
    return path.as_posix()


# -- sources ----------------------------------------------------------------------------


def inbox_dir(store: Any) -> Path:
    return Path(store.meta_dir) / INBOX_DIR


def source_files(store: Any, settings: ExtractSettings | None = None) -> list[Path]:
    """Every file the sources name right now: inbox files and transcript glob matches."""
    settings = settings or ExtractSettings.from_mapping(store.settings)
    found: list[Path] = []
    if settings.sources.inbox and inbox_dir(store).is_dir():
        found += sorted(
            p
            for p in inbox_dir(store).rglob("*")
            if p.is_file() and not p.name.startswith(".") and not _leaves_store(store, p)
        )
    for pattern in settings.sources.transcripts:
        # Outside (by its text, a link on the way, a linked file): only if allowed here.
        matches = expand_source(store.root, pattern).matches
        found += sorted(Path(p) for p in matches if os.path.isfile(p))
    unique: dict[Path, None] = {}
    for path in found:
        unique.setdefault(path.resolve(), None)
    return list(unique)


def unmatched_globs(store: Any, settings: ExtractSettings | None = None) -> list[str]:
    """The `[sources] transcripts` globs that match no file (a typo, a string where a
    list was meant): said out loud, since an empty match looks like nothing new."""
    settings = settings or ExtractSettings.from_mapping(store.settings)
    unmatched: list[str] = []
    for pattern in settings.sources.transcripts:
        found = expand_source(store.root, pattern)
        if found.refused and not found.matches:
            continue  # its refusal is the line said about it
        if not any(os.path.isfile(p) for p in found.matches):
            unmatched.append(pattern)
    return unmatched


def watch_roots(store: Any, settings: ExtractSettings | None = None) -> list[Path]:
    """Directories a file watcher should watch (recursively) to see every source change:
    the inbox, and for each transcript glob the deepest folder without a wildcard."""
    settings = settings or ExtractSettings.from_mapping(store.settings)
    roots: list[Path] = []
    if settings.sources.inbox:
        roots.append(inbox_dir(store).resolve())
    for pattern in settings.sources.transcripts:
        expanded = full_pattern(pattern, store.root)
        if refused_outside_glob(store.root, pattern, expanded):
            continue  # an outside folder not allowed is not watched either
        fixed = fixed_parts(expanded)
        root = Path(*fixed) if fixed else Path(store.root)
        if root == Path(expanded):  # no wildcard at all: a single file
            root = root.parent
        request = transcripts_request(pattern)
        if (  # a link on the way out of the working directory: watched only if allowed
            not is_inside(root, store.root)
            and not names_outside(store.root, expanded)
            and not is_allowed(store.root, request)
        ):
            refuse_once(request, store.root)
            continue
        roots.append(root.resolve())
    unique: list[Path] = []
    for root in sorted(set(roots), key=lambda p: len(p.parts)):
        if not any(root.is_relative_to(kept) for kept in unique):
            unique.append(root)
    return unique


def is_source(store: Any, path: Path | str, settings: ExtractSettings | None = None) -> bool:
    """Whether a changed path is something `ingest_path` should read (for the watcher)."""
    path = Path(path).resolve()
    settings = settings or ExtractSettings.from_mapping(store.settings)
    if settings.sources.inbox:
        with contextlib.suppress(ValueError):
            path.relative_to(inbox_dir(store).resolve())
            return not path.name.startswith(".")
    for pattern in settings.sources.transcripts:
        expanded = full_pattern(pattern, store.root)
        if path.match(expanded) or Path(expanded).resolve() == path:
            return True
        if any(path == Path(p).resolve() for p in expand_source(store.root, pattern).matches):
            return True
    return False


# -- ingestion --------------------------------------------------------------------------


def ingest_sources(store: Any) -> list[IngestResult]:
    """Read what is new in every source (inbox + globs)."""
    settings = ExtractSettings.from_mapping(store.settings)
    return [_ingest_one(store, path, settings) for path in source_files(store, settings)]


def _ingest_one(store: Any, path: Path, settings: ExtractSettings) -> IngestResult:
    """One source file; what it cannot read (a name or text no codec takes, a value no
    parser holds) sets that file aside with its reason, and the others are still read."""
    try:
        return ingest_path(store, path, settings=settings)
    except (ValueError, RecursionError) as exc:  # UnicodeError is a ValueError
        return IngestResult(path=shown_path(path), error=f"{describe_error(exc)}; set aside")


def shown_path(path: Path | str) -> str:
    """`path` as text that prints and encodes: a name that is not UTF-8 (its bytes are
    surrogate-escaped) is shown as the repr of those bytes."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return repr(os.fsencode(text))
    return text


def ingest_path(
    store: Any, path: Path | str, *, settings: ExtractSettings | None = None, actor: str = "watcher"
) -> IngestResult:
    """Extract candidates from what is new in `path` and add them (deduped, screened)."""
    if _inside(Path(path).absolute(), inbox_dir(store)) and _leaves_store(store, Path(path)):
        why = leaves(path, store.root)
        return IngestResult(path=str(path), error=f"{why}; not read")
    path = Path(path).resolve()
    result = IngestResult(path=shown_path(path))
    if not path.is_file():
        return result
    if result.path != str(path):  # its name would reach every candidate, the guard, the journal
        result.error = "the file name is not UTF-8; set aside, not read (rename it to read it)"
        return result
    if not is_inside(path, store.root):
        refused = _outside_refusal(store, path, settings)
        if refused:
            result.error = refused
            return result
    if looks_binary(path):
        result.error = "not a text file (binary content): skipped"
        return result
    try:
        settings = settings or ExtractSettings.from_mapping(store.settings)
    except (SettingsError, StoreError) as exc:  # the watcher reports it; it must not crash
        result.error = str(exc)
        return result
    with store.lock.held():  # one reader per store at a time: offsets stay consistent
        states = load_state(store)
        key = _key(store, path)
        stat = path.stat()
        try:
            fmt = detect_format(path)
        except UnrecognisedFormat as exc:  # reported; the next change retries
            result.error = str(exc)
            return result
        line_based = is_line_based(fmt)
        previous = states.get(key) or {}
        offset, line = int(previous.get("offset", 0)), int(previous.get("line", 0))
        replaced = previous.get("inode") not in (None, stat.st_ino) or stat.st_size < offset
        if not line_based or replaced:  # whole-JSON files cannot be resumed mid-way
            offset, line = 0, 0
        if (
            previous
            and not replaced
            and previous.get("size") == stat.st_size
            and previous.get("mtime_ns") == stat.st_mtime_ns
        ):
            result.unchanged = True
            result.from_offset = result.to_offset = offset
            return result
        result.from_offset = offset
        stats = ReadStats(str(path))
        known = set(store.known_hashes())
        # The per-transcript cap holds across incremental reads of the same file.
        queued = 0 if replaced else int(previous.get("queued", 0))
        # Messages of the conversation read before this offset (a file read again from its
        # start counts them again).
        said = int(previous.get("said", 0)) if offset else 0
        batches = file_candidates(
            path,
            settings.extractor,
            stats=stats,
            start_offset=offset,
            start_line=line,
            complete_lines_only=line_based,
            fmt=fmt,
            cwd=os.fspath(store.root),
        )
        for found in batches:
            if not found.ok:
                result.error = found.error
                result.messages = stats.messages
                return result  # offsets not advanced: the next change retries
            if found.notice and found.notice not in result.warnings:
                result.warnings.append(found.notice)
            for candidate in found.candidates:
                if candidate.source.origin == "transcript" and _inside(path, inbox_dir(store)):
                    candidate.source.origin = "inbox"
            ranked, _ = rank_and_cap(found.candidates, len(found.candidates))
            # The cap grows with the conversation read so far, this batch included.
            cap = settings.extractor.transcript_cap(said + stats.said)
            chosen, written = select_new(ranked, known, max(0, cap - queued))
            queued += len(chosen)
            result.duplicates += written.duplicates
            result.refused += written.refused
            result.over_cap += written.over_cap
            if chosen:
                try:
                    result.added += store.add_many(chosen, actor=actor, label="ingest")
                except StoreError as exc:  # offsets not advanced: the next change retries
                    result.error = str(exc)
                    return result
        result.messages = stats.messages
        result.skipped_lines = stats.skipped
        result.warnings = stats.warnings
        end = stats.end_offset if line_based else stat.st_size
        result.to_offset = end
        states[key] = {
            "offset": end,
            "line": stats.end_line,
            "size": stat.st_size,
            "mtime_ns": stat.st_mtime_ns,
            "inode": stat.st_ino,
            "format": fmt,
            "queued": queued,
            "said": said + stats.said,
        }
        save_state(store, states)
    return result


def looks_binary(path: Path) -> bool:
    """A NUL byte in the first 8 KiB: an image or archive dropped in the inbox, not text."""
    try:
        with plain_file.open_plain(path) as handle:
            return b"\0" in handle.read(8192)
    except OSError:
        return True


def _outside_refusal(store: Any, path: Path, settings: ExtractSettings | None) -> str:
    """A file outside the working directory is read only through a transcript glob the
    person allowed on this machine (`memdesk trust`); else the refusal line."""
    try:
        settings = settings or ExtractSettings.from_mapping(store.settings)
    except (SettingsError, StoreError) as exc:
        return str(exc)
    refused = "memdesk: not a source of this working directory; not read"
    for pattern in settings.sources.transcripts:
        request = transcripts_request(pattern)
        if not is_allowed(store.root, request):
            # Not expanded: that would list what it leads to outside.
            if path.match(full_pattern(pattern, store.root)):
                refused = refuse_once(request, store.root)
            continue
        matches = glob.glob(full_pattern(pattern, store.root), recursive=True)
        if any(path == Path(p).resolve() for p in matches):
            return ""
    return refused


def _leaves_store(store: Any, path: Path) -> bool:
    """An inbox file linked outside the working directory: never read (the inbox is
    the repository's; what it links to is not)."""
    return leaves(path, store.root) is not None


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder.resolve())
    except ValueError:
        return False
    return True
