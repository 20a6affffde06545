"""The bundled demo project: copied to a folder of the user's, never used in place."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

DEMO_SOURCE = Path(__file__).resolve().parent / "demo_project"
# The day the demo's story is told from: relative to it, some entries are past their
# `valid_until`, some low-confidence ones have gone stale, an event is coming up. A copy
# made with `today=` keeps those distances. (Tests that pin dates copy it unshifted.)
DEMO_TODAY = dt.date(2026, 11, 30)


def copy_demo_project(target: Path, *, today: dt.date | None = None) -> Path:
    """Copy the demo into `target` (created if needed) and return it.

    The package keeps the store folder as `memdesk/` (dot-folders are easy to lose in
    packaging); the copy restores the real name `.memdesk/`. With `today`, every date in
    the entries moves by (today - DEMO_TODAY), so the demo tells the same story whenever
    it is opened (nothing silently expires or goes stale as the calendar moves on).
    """
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    if (target / ".memdesk").exists():
        raise FileExistsError(f"{target} already holds a memdesk store")
    for child in DEMO_SOURCE.iterdir():
        name = ".memdesk" if child.name == "memdesk" else child.name
        if child.is_dir():
            shutil.copytree(child, target / name)
        else:
            shutil.copy2(child, target / name)
    (target / ".memdesk" / "index").mkdir(exist_ok=True)
    (target / ".memdesk" / "conflicts").mkdir(exist_ok=True)
    (target / ".memdesk" / "journal.jsonl").touch()
    from memdesk.core.store import GITATTRIBUTES, GITIGNORE

    (target / ".memdesk" / ".gitignore").write_text(GITIGNORE, "utf-8")
    (target / ".memdesk" / ".gitattributes").write_text(GITATTRIBUTES, "utf-8")
    if today is not None and today != DEMO_TODAY:
        _shift_dates(target / ".memdesk" / "entries", today - DEMO_TODAY)
    return target


def _shift_dates(entries_dir: Path, delta: dt.timedelta) -> None:
    from memdesk.core.entry import Entry
    from memdesk.core.entry_files import read_entry_file, write_entry_file

    for path in sorted(entries_dir.glob("*.toml")):
        entry = read_entry_file(path, entries_dir.parent.parent)
        if not isinstance(entry, Entry):
            continue  # the file with conflict markers stays as git left it
        entry.created += delta
        entry.updated += delta
        if entry.last_access is not None:
            entry.last_access += delta
        if entry.valid_until is not None:
            entry.valid_until += delta
        write_entry_file(path, entry, durable=False)
