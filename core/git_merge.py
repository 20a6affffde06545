"""A git merge driver for entry files: field-by-field 3-way merge instead of lines.

Configure once per repository (memdesk prints these lines with `merge-driver --install`):

    git config merge.memdesk.name "memdesk entry merge"
    git config merge.memdesk.driver "memdesk merge-driver %O %A %B %P"

(`memdesk init` writes `.memdesk/.gitattributes` naming the driver for entry files and a
union merge for the append-only journal.)

Disjoint edits of one entry on two branches then merge cleanly (git would conflict on
adjacent lines); a true conflict is written with git's conflict markers on the
conflicting fields only, which memdesk reads back and offers on its conflict screen.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from memdesk.core.entry import Entry, EntryError
from memdesk.core.entry_files import entry_to_toml, parse_entry_text
from memdesk.core.merge import merge_entry_dicts


@dataclass
class DriverResult:
    clean: bool
    text: str
    message: str


def _parse(path: Path, label: str) -> Entry | None:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.strip():
        return None
    try:
        return parse_entry_text(text, f"{label} ({path})")
    except EntryError:
        return None


def merge_files(base: Path, ours: Path, theirs: Path, name: str = "") -> DriverResult:
    """Merge three versions of one entry file; `ours` is what git will keep."""
    ours_entry, theirs_entry = _parse(ours, "ours"), _parse(theirs, "theirs")
    base_entry = _parse(base, "base")
    if ours_entry is None or theirs_entry is None:
        return DriverResult(
            False, "", f"{name or ours}: not a valid entry on both sides; leaving it to git"
        )
    result = merge_entry_dicts(
        base_entry.to_json() if base_entry else None, ours_entry.to_json(), theirs_entry.to_json()
    )
    version = max(ours_entry.version, theirs_entry.version) + 1
    merged_data = {k: v for k, v in result.merged.items() if v is not None}
    merged_data["version"] = version
    if result.clean:
        merged = Entry.from_dict(merged_data)
        return DriverResult(True, entry_to_toml(merged).decode("utf-8"), "merged field by field")
    # Conflict: ours-side and theirs-side files that differ only in conflicting fields,
    # so the markers wrap just those lines.
    ours_side = dict(merged_data)
    theirs_side = dict(merged_data)
    for field in result.conflicts:
        ours_side[field.name] = field.ours
        theirs_side[field.name] = field.theirs
    a = entry_to_toml(Entry.from_dict(_clean(ours_side))).decode().splitlines(keepends=True)
    b = entry_to_toml(Entry.from_dict(_clean(theirs_side))).decode().splitlines(keepends=True)
    names = ", ".join(f.name for f in result.conflicts)
    return DriverResult(False, _with_markers(a, b), f"conflicting field(s): {names}")


def _clean(data: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in data.items() if v is not None}


def _with_markers(a: list[str], b: list[str]) -> str:
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(a[i1:i2])
        else:
            out.append("<<<<<<< ours\n")
            out.extend(a[i1:i2])
            out.append("=======\n")
            out.extend(b[j1:j2])
            out.append(">>>>>>> theirs\n")
    return "".join(out)


INSTALL_LINES = (
    'git config merge.memdesk.name "memdesk entry merge"',
    'git config merge.memdesk.driver "memdesk merge-driver %O %A %B %P"',
)
