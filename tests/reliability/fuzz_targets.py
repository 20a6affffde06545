"""What the fuzz suite throws at memdesk's parsers, and what each may answer.

One `Target` per parser: a hypothesis strategy for its input and a check that feeds one
input through the code a user's file meets (the parser, and where it matters the store
operations that read its result). A check may raise only the target's `allowed`
exceptions, the ones the command line turns into one clear line; anything else is a
finding. Shared by `test_fuzz_parsers.py` (pass/fail, brief in CI) and
`bench/fuzz_count.py` (counts findings per target over many cases).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w
from fuzz_inputs import (
    json_files,
    json_values,
    jsonl_bytes,
    jsonl_files,
    markdown_files,
    maybe,
    odd_text,
)
from hypothesis import strategies as st

ENTRY_KEYS = ("kind", "scope", "status", "confidence")
entry_dicts = st.fixed_dictionaries(
    {},
    optional={
        "id": maybe(st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True)),
        "summary": maybe(odd_text),
        "kind": maybe(st.sampled_from(["project", "decision", "opinion"])),
        "scope": maybe(st.sampled_from(["project", "user", "x"])),
        "status": maybe(st.sampled_from(["candidate", "confirmed", "expired", "gone"])),
        "confidence": maybe(st.sampled_from(["low", "medium", "high", "0.5"])),
        "facts": maybe(st.lists(odd_text, max_size=3)),
        "tags": maybe(st.lists(odd_text, max_size=3)),
        "valid_until": maybe(st.sampled_from(["2026-01-01", "soon", "", "2026-02-30"])),
        "version": maybe(st.integers(min_value=-2, max_value=5)),
        "created": maybe(st.sampled_from(["2026-01-01T00:00:00Z", "yesterday", "1e300"])),
        "source": maybe(st.fixed_dictionaries({}, optional={"origin": maybe(odd_text)})),
        "flags": maybe(st.dictionaries(odd_text, odd_text, max_size=2)),
    },
)

# -- the targets ------------------------------------------------------------------------


@dataclass
class Target:
    name: str
    strategy: st.SearchStrategy[Any]
    check: Callable[[Any, Path], None]  # (one input, a scratch folder)
    allowed: tuple[type[BaseException], ...] = ()


def _store(folder: Path):  # type: ignore[no-untyped-def]
    from memdesk.core.store import Store

    root = folder / "project"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    return Store.init(root)


# Entry TOML: any bytes, or TOML made from entry-shaped tables with odd values.
def _toml_of(data: dict[str, Any]) -> bytes:
    try:
        return tomli_w.dumps(_toml_safe(data)).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError):
        return json.dumps(data, default=str).encode("utf-8", "surrogatepass")


def _toml_safe(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float) and value != value:
        return 0.0
    if isinstance(value, list):
        return [_toml_safe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _toml_safe(v) for k, v in value.items()}
    return value


entry_files = st.one_of(st.binary(max_size=300), entry_dicts.map(_toml_of))


def check_entry_toml(raw: bytes, folder: Path) -> None:
    from memdesk.core.entry import Entry
    from memdesk.core.entry_files import Problem, read_entry_file

    path = folder / "entries" / "m-1.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    item = read_entry_file(path, folder)
    assert isinstance(item, Entry | Problem)
    str(item)


# An entry written is the entry read back (markers, surrogates, CR, NUL in its text).
def check_entry_roundtrip(data: dict[str, Any], folder: Path) -> None:
    from memdesk.core.entry import Entry
    from memdesk.core.entry_files import read_entry_file, write_entry_file

    entry = Entry.from_dict({**data, "id": "m-1"})  # EntryError: a refusal, allowed
    path = folder / "entries" / "m-1.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_entry_file(path, entry, durable=False)
    back = read_entry_file(path, folder)
    assert isinstance(back, Entry), f"written but not readable: {back}"
    assert back.to_json() == entry.to_json(), "read back differs"


# Journal lines: JSON values shaped like records, or any text.
record_dicts = st.fixed_dictionaries(
    {"op": maybe(st.sampled_from(["add", "edit", "reject", "delete", "merge", "undo"]))},
    optional={
        "entry_id": maybe(st.just("m-1")),
        "actor": maybe(st.sampled_from(["cli", "tui", "agent"])),
        "group": maybe(st.sampled_from(["g1", "g2"])),
        "time": maybe(st.just("2026-01-01T00:00:00+00:00")),
        "version_before": maybe(st.integers(0, 3)),
        "version_after": maybe(st.integers(0, 3)),
        "changes": maybe(st.dictionaries(odd_text, json_values, max_size=2)),
        "before": maybe(entry_dicts),
        "after": maybe(entry_dicts),
        "target_group": maybe(st.sampled_from(["g1", "g2"])),
        "payload": maybe(st.dictionaries(odd_text, json_values, max_size=2)),
    },
)
journal_lines = st.lists(
    st.one_of(record_dicts.map(lambda d: json.dumps(d, default=str)), odd_text), max_size=4
)


def check_journal(lines: list[str], folder: Path) -> None:
    from memdesk.core.entry import Entry
    from memdesk.core.journal import JournalRecord
    from memdesk.core.store import Store, StoreError

    for line in lines:
        try:
            JournalRecord.from_json(line)
        except ValueError:
            pass  # a line that is not a record: skipped by readers
    store = _store(folder)
    added = store.add(Entry(summary="Run the tests with pytest -q"), actor="cli")
    with open(store.journal.path, "a", encoding="utf-8", errors="surrogatepass") as handle:
        for line in lines:
            handle.write(line.replace("\n", " ") + "\n")
    store = Store.open(store.root)
    store.history(added.id)
    store.known_hashes()
    store.version_of(added.id, 1)
    for action in (
        lambda: store.undo(actor="cli"),
        lambda: store.approve([added.id], actor="cli"),
        lambda: store.undo(actor="cli"),
        lambda: store.redo(actor="cli"),
    ):
        try:
            action()
        except (StoreError, ValueError):
            pass  # said in one line at the command line
    store.ingest_memory_md()
    from memdesk.core.stats import compute_stats

    compute_stats(store, measure=False)


def _transcript_check(suffix: str) -> Callable[[bytes, Path], None]:
    def check(raw: bytes, folder: Path) -> None:
        from memdesk.core.extract.formats import NAMES, UnrecognisedFormat
        from memdesk.core.extract.inbox import ingest_path
        from memdesk.core.extract.messages import ReadStats
        from memdesk.core.extract.readers import read_messages

        store = _store(folder)
        path = store.root / f"session{suffix}"
        path.write_bytes(raw)
        try:  # the reader detection picks, as `extract` does
            for message in read_messages(path, stats=ReadStats(str(path))):
                str(message.text)
        except UnrecognisedFormat:
            pass  # said in one line: no reader recognises the file
        for name in NAMES:  # and every reader, forced, on the same bytes
            for message in read_messages(path, stats=ReadStats(str(path)), fmt=name):
                str(message.text)
        result = ingest_path(store, path)
        assert not result.error or "\n" not in result.error

    return check


# Settings: TOML built from the known tables with odd values, or any text.
settings_tables = st.dictionaries(
    st.sampled_from(["context", "search", "extractor", "sources", "consolidation", "keys", "x"]),
    st.dictionaries(
        st.sampled_from(
            [
                "purpose",
                "budget",
                "unit",
                "format",
                "tokenizer",
                "include_candidates",
                "mode",
                "model",
                "rrf_k",
                "fusion",
                "transcripts",
                "inbox",
                "command",
                "timeout",
                "every_days",
                "min_sessions",
                "purposes",
                "approve",
            ]
        ),
        json_values,
        max_size=4,
    ),
    max_size=4,
)
settings_files = st.one_of(
    settings_tables.map(_toml_of),
    st.binary(max_size=200),
    odd_text.map(lambda t: t.encode("utf-8", "surrogatepass")),
)


def check_settings(raw: bytes, folder: Path) -> None:
    from memdesk.core.consolidate.settings import consolidation_settings
    from memdesk.core.context.settings import load_settings
    from memdesk.core.extract.settings import ExtractSettings
    from memdesk.core.search.settings import SearchSettings
    from memdesk.core.store import StoreError

    store = _store(folder)
    store.settings_path.write_bytes(raw)
    for parse in (
        lambda: load_settings(store.root),
        lambda: ExtractSettings.from_mapping(store.settings),
        lambda: SearchSettings.from_mapping(store.settings.get("search")),
        lambda: consolidation_settings(store.settings),
        lambda: getattr(store, "settings_problem", lambda: None)(),
    ):
        try:
            parse()
        except (StoreError, ValueError):
            pass  # one line naming the file (and the key or line)
    from memdesk.core.entry import Entry

    try:  # a confirmed write re-renders MEMORY.md with these settings
        store.add(Entry(summary="Deploys go through make release", status="confirmed"))
    except (StoreError, ValueError):
        pass


# MEMORY.md: lines agents append, with bullets, headings, markers and junk.
memory_md_files = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "# Memory",
                "## Build",
                "- Use pnpm",
                "* [ ] todo",
                "<!-- note -->",
                "---",
                "<<<<<<< HEAD",
                "=======",
                ">>>>>>> main",
                "||||||| base",
                "- 用户 prefers tabs",
            ]
        ),
        odd_text.map(lambda t: "- " + t),
        odd_text,
    ),
    max_size=10,
).map(lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass"))


def check_memory_md(raw: bytes, folder: Path) -> None:
    store = _store(folder)
    (store.root / "MEMORY.md").write_bytes(raw)
    added = store.ingest_memory_md()
    from memdesk.core.memory_md import line_text

    lines = raw.decode("utf-8", "replace").splitlines()
    markers = ("<<<<<<<", "|||||||", "=======", ">>>>>>>")
    marker_lines = {line.strip() for line in lines if line.startswith(markers)}
    other_texts = {line_text(line) for line in lines if not line.startswith(markers)}
    for entry in added:  # git's own marker lines never become candidates
        assert entry.summary not in marker_lines - other_texts, entry.summary
    store.render_memory_md()
    getattr(store.memory_file, "conflict_problem", lambda: None)()


# Conflict markers in entry files: two entry TOMLs spliced with git's markers.
def _conflicted(parts: tuple[dict[str, Any], dict[str, Any], bool, bool]) -> bytes:
    ours, theirs, with_base, torn = parts
    a, b = _toml_of({**ours, "id": "m-1"}), _toml_of({**theirs, "id": "m-1"})
    text = b"<<<<<<< HEAD\n" + a
    if with_base:
        text += b"||||||| base\n" + a
    text += b"=======\n" + b
    if not torn:
        text += b">>>>>>> other\n"
    return text


conflict_files = st.one_of(
    st.tuples(entry_dicts, entry_dicts, st.booleans(), st.booleans()).map(_conflicted),
    st.lists(
        st.sampled_from(
            [b"<<<<<<< HEAD", b"=======", b">>>>>>> x", b"||||||| b", b'summary = "x"']
        ),
        max_size=8,
    ).map(lambda lines: b"\n".join(lines)),
)


def check_conflict_markers(raw: bytes, folder: Path) -> None:
    from memdesk.core.entry_files import split_conflict_markers

    split_conflict_markers(raw.decode("utf-8", "replace"))
    store = _store(folder)
    (store.entries_dir / "m-1.toml").write_bytes(raw)
    store.problems  # noqa: B018 - reading is the check
    for conflict in store.open_conflicts():
        conflict.to_json()


# Import files: JSON arrays or JSONL of entry-shaped objects, or any bytes.
import_files = st.one_of(
    st.lists(maybe(entry_dicts), max_size=4).map(
        lambda items: json.dumps(items, default=str).encode("utf-8", "surrogatepass")
    ),
    st.lists(maybe(entry_dicts), max_size=4).map(jsonl_bytes),
    st.binary(max_size=300),
)


def check_import(raw: bytes, folder: Path) -> None:
    from memdesk.core.importing import read_import_file

    path = folder / "import.json"
    path.write_bytes(raw)
    result = read_import_file(path)
    for error in result.errors:
        assert "\n" not in error, error


def _entry_error() -> tuple[type[BaseException], ...]:
    from memdesk.core.entry import EntryError

    return (EntryError,)


TARGETS: list[Target] = [
    Target("entry_toml", entry_files, check_entry_toml),
    Target("entry_roundtrip", entry_dicts, check_entry_roundtrip, _entry_error()),
    Target("journal_lines", journal_lines, check_journal),
    Target("transcript_jsonl", jsonl_files, _transcript_check(".jsonl")),
    Target("transcript_json", json_files, _transcript_check(".json")),
    Target("transcript_markdown", markdown_files, _transcript_check(".md")),
    Target("settings", settings_files, check_settings),
    Target("memory_md", memory_md_files, check_memory_md),
    Target("conflict_markers", conflict_files, check_conflict_markers),
    Target("import", import_files, check_import),
]
