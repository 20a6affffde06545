"""Import entries from JSON/JSONL (seed 004's format) and export them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from memdesk.core.entry import Entry, EntryError, entry_from_json
from memdesk.core.jsonfile import BadJSON, loads


@dataclass
class ImportResult:
    entries: list[tuple[int, Entry]] = field(default_factory=list)  # (position, entry)
    errors: list[str] = field(default_factory=list)


def read_import_file(path: Path) -> ImportResult:
    """A JSON array or JSONL of entries. Invalid items are reported with their position
    (array index or line number); the valid ones are returned."""
    result = ImportResult()
    raw = path.read_bytes()
    items: list[tuple[str, object]] = []
    if raw.lstrip().startswith(b"["):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad_line = raw[: exc.start].count(b"\n") + 1
            result.errors.append(f"{path}:{bad_line}: not UTF-8 text (byte {exc.start})")
            return result
        try:
            data = loads(text, str(path))
        except BadJSON as exc:
            result.errors.append(str(exc))
            return result
        items = [(f"item {i}", item) for i, item in enumerate(data)]
    else:
        # JSONL: each line on its own, so one bad byte costs one line, not the file.
        for number, raw_line in enumerate(raw.splitlines(), 1):
            try:
                line = raw_line.decode("utf-8")
            except UnicodeDecodeError as exc:
                result.errors.append(f"{path}:{number}: not UTF-8 text (byte {exc.start})")
                continue
            if not line.strip():
                continue
            try:
                items.append((f"line {number}", loads(line, f"{path}:{number}")))
            except BadJSON as exc:
                result.errors.append(f"{path}:{number}: {exc.reason}")
    for position, item in items:
        if not isinstance(item, dict):
            result.errors.append(
                f"{path}: {position}: expected an object, got {type(item).__name__}"
            )
            continue
        try:
            entry = entry_from_json(item, path=f"{path}: {position}")
        except EntryError as exc:
            result.errors.append(str(exc))
            continue
        number = int(position.split()[-1])
        result.entries.append((number, entry))
    return result


def looks_like_markdown(path: Path) -> bool:
    """A `.md` file, or text whose first line is not JSON (a heading, a list ...)."""
    if path.suffix.lower() in (".md", ".markdown", ".mdx"):
        return True
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    first = next((line.strip() for line in head.splitlines() if line.strip()), "")
    return first.startswith(("# ", "## ", "- ", "* ", "---"))


def export_entries(entries: list[Entry], fmt: str) -> str:
    if fmt == "json":
        return json.dumps([e.to_json() for e in entries], ensure_ascii=False, indent=2) + "\n"
    if fmt == "jsonl":
        return "".join(json.dumps(e.to_json(), ensure_ascii=False) + "\n" for e in entries)
    if fmt == "md":
        lines = ["# memdesk export", ""]
        for status in ("confirmed", "candidate", "superseded", "expired"):
            chosen = [e for e in entries if e.status == status]
            if not chosen:
                continue
            lines.append(f"## {status}")
            for e in chosen:
                lines.append(f"- {e.summary}  `{e.id}` ({e.kind}, {e.scope}, {e.confidence})")
                lines.extend(f"  - {fact}" for fact in e.facts)
            lines.append("")
        return "\n".join(lines)
    raise ValueError(f"unknown export format {fmt!r}; allowed: json, jsonl, md")
