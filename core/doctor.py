"""`memdesk doctor`: risky state in a working directory, reported, never repaired.

What it looks for:

* symbolic links in and around `.memdesk/` and `MEMORY.md`: those leading outside the
  working directory are risky (memdesk refuses them); those staying inside are noted;
* ids and names in memdesk's own files that are not ids (forged pending batch, journal,
  conflict files, MEMORY.md's state);
* an extractor command or callable, or transcripts outside, that the settings name and
  the person has not allowed on this machine (`memdesk trust`);
* private files under `.memdesk/` that any user of the machine can read (raw transcripts
  in the inbox, unscreened conflict texts, retired MEMORY.md copies, local state);
* secrets in existing entries and in the journal's copies of them, found by the guard's
  own secret scan (`guard.redact_text`), named by kind, never printed;
* entries that read as an injection but carry no `suspicious` flag (written before the
  guard knew the wording, on a machine screening by rules alone, or pulled from a
  branch), and injection screening by rules alone because the meaning model cannot
  load on this machine, as a note.
"""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memdesk.core.confinement import MEMORY_FILE, META_DIR, layout_problems
from memdesk.core.context.settings import SettingsError
from memdesk.core.entry import Entry
from memdesk.core.guard import SUSPICIOUS, meaning_status, secret_kinds
from memdesk.core.jsonfile import read_json
from memdesk.core.safepath import is_inside, leaves, shown
from memdesk.core.trust import TrustError, is_allowed, refusal, requests

# Local, unshared content: raw transcripts, conflict texts, retired copies of MEMORY.md,
# the search index, an in-flight batch. Entries and the journal are shared through git;
# memory_md.json and ingest_state.json hold only hashes and offsets.
PRIVATE = ("inbox", "conflicts", "retired", "index", "pending-batch.json")


@dataclass
class Finding:
    kind: str  # symlink, unsafe-id, unsafe-path, untrusted, permissions, secret, settings,
    # injection, guard (injection screening by rules only)
    path: str
    message: str
    risky: bool = True
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{'risky' if self.risky else 'note'}: {where}: {self.message}"


@dataclass
class Report:
    root: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def risky(self) -> bool:
        return any(f.risky for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "dir": self.root,
            "risky": self.risky,
            "findings": [asdict(f) for f in self.findings],
        }


def examine(root: Path | str) -> Report:
    """Every risky thing found in the working directory `root` (nothing is changed)."""
    from memdesk.core.store import Store, StoreError

    root = Path(root).resolve()
    report = Report(str(root))
    found = report.findings
    refused = layout_problems(root)
    found += [Finding(p.kind, p.path, p.message) for p in refused]
    found += _inside_links(root)
    if refused:
        return report  # the store does not open: nothing below is reachable safely
    try:
        store = Store.open(root)
    except StoreError as exc:
        found.append(Finding("settings", META_DIR, str(exc)))
        return report
    for problem in store.problems:
        if problem.kind in ("symlink", "unsafe-id", "unsafe-path"):
            found.append(Finding(problem.kind, problem.path, problem.message, line=problem.line))
    found += _untrusted(store)
    found += _settings_notes(root)
    found += _readable_by_others(root)
    found += _entry_secrets(store.entries(), root / META_DIR / "entries", root)
    found += _journal_secrets(store)
    found += _manifest_secrets(root)
    found += _managed_file_secrets(root)
    found += _unflagged_injections(store.entries(), root / META_DIR / "entries", root)
    found += _screening_notes()
    return report


def _unflagged_injections(entries: list[Entry], folder: Path, root: Path) -> list[Finding]:
    """Entries an agent would be given that the guard, as it is now, would flag. A
    clearance counts only when it is the fingerprint of the entry's current texts (as
    clearing writes it): a `cleared` flag pulled with a branch vouches for nothing."""
    from memdesk.core.context.verdicts import screen_now

    out: list[Finding] = []
    for entry in entries:
        if SUSPICIOUS in entry.flags:
            continue
        reason = screen_now(entry)
        if reason:
            out.append(
                Finding(
                    "injection",
                    shown(folder / f"{entry.id}.toml", root),
                    f"reads like an injection but is not flagged ({reason}); "
                    "read it before an agent does, then delete or edit it",
                )
            )
    return out


def _screening_notes() -> list[Finding]:
    status = meaning_status()
    if status.available or status.switched_off:  # a person's own choice is not news
        return []
    return [Finding("guard", "injection screening", status.line, risky=False)]


def _inside_links(root: Path) -> list[Finding]:
    """Links that stay inside the working directory: followed, but worth knowing."""
    out: list[Finding] = []
    meta = root / META_DIR
    candidates = [root / MEMORY_FILE, meta]
    if meta.is_dir() and not meta.is_symlink():
        candidates += sorted(meta.iterdir())
    for path in candidates:
        if path.is_symlink() and is_inside(path, root):
            target = os.path.realpath(path)
            out.append(
                Finding("symlink", shown(path, root), f"is a symbolic link to {target}", False)
            )
    return out


def _untrusted(store: Any) -> list[Finding]:
    from memdesk.core.store import StoreError

    try:
        wanted = requests(store.settings, store.root)
    except (SettingsError, StoreError) as exc:  # a bad settings file is a finding too
        return [Finding("settings", f"{META_DIR}/settings.toml", str(exc))]
    out: list[Finding] = []
    for request in wanted:
        try:
            allowed = is_allowed(store.root, request)
        except TrustError as exc:
            return [Finding("untrusted", f"{META_DIR}/settings.toml", str(exc))]
        if not allowed:
            confirm = request.key == "mcp.confirm_clients"
            instead = "the proposals stay candidates for review" if confirm else "skipped"
            line = refusal(request, store.root, instead).removeprefix("memdesk: ")
            out.append(Finding("untrusted", f"{META_DIR}/settings.toml", line))
    from memdesk.core.memfiles.manifest import all_manifests
    from memdesk.core.memfiles.outside import refusal as outside_refusal

    for manifest in all_manifests(store.meta_dir):
        if not os.path.isabs(manifest.path):
            continue  # a finding of `store.problems` (memfiles/confine.py)
        refused = outside_refusal(manifest.file, store.root)
        if refused:
            out.append(Finding("untrusted", f"{META_DIR}/files", refused))
    return out


def _settings_notes(root: Path) -> list[Finding]:
    """Every bad value or unknown table in settings.toml, one note each (that table runs
    on its defaults); a file that is not TOML is already a finding of `_untrusted`."""
    from memdesk.core.settings import load

    settings = load(root)
    if settings.problem_of.get(""):
        return []
    where = f"{META_DIR}/settings.toml"
    prefix = f"{settings.path}: "
    return [
        Finding("settings", where, line.removeprefix(prefix), risky=False)
        for line in settings.problems
    ]


def _readable_by_others(root: Path) -> list[Finding]:
    meta = root / META_DIR
    if not _reachable_by_others(meta):
        return []  # nobody else can get into .memdesk/ at all
    out: list[Finding] = []
    for name in PRIVATE:
        base = meta / name
        if base.is_symlink() or not base.exists():
            continue
        paths = [base] if base.is_file() else _files_under(base)
        for path in paths:
            try:
                st = path.lstat()
            except OSError:
                continue
            mode = st.st_mode
            if not st.st_size:  # an empty file (a `.keep`) tells nobody anything
                continue
            if stat.S_ISREG(mode) and mode & stat.S_IROTH and _reachable_by_others(path.parent):
                out.append(
                    Finding(
                        "permissions",
                        shown(path, root),
                        f"readable by every user of this machine (mode {stat.S_IMODE(mode):04o});"
                        f" consider `chmod go-rwx {shown(path, root)}`",
                    )
                )
    return out


def _files_under(folder: Path) -> list[Path]:
    out: list[Path] = []
    for dirpath, _, filenames in os.walk(folder):
        out += [Path(dirpath) / n for n in sorted(filenames)]
    return out


def _reachable_by_others(folder: Path) -> bool:
    """Others may enter `folder` (execute bit for others on it)."""
    try:
        return bool(folder.stat().st_mode & stat.S_IXOTH)
    except OSError:
        return False


def _kinds_in(texts: list[str]) -> list[str]:
    """Kinds of secret the guard's scan finds (markers it adds, not ones already there)."""
    return sorted({kind for text in texts for kind in secret_kinds(text)})


def _entry_texts(data: dict[str, Any]) -> list[str]:
    source = data.get("source") or {}
    texts = [data.get("summary") or "", *(data.get("facts") or []), *(data.get("tags") or [])]
    texts += [source.get("excerpt") or "", source.get("locator") or ""]
    texts += [*(source.get("commands") or []), *(source.get("files") or [])]
    texts += [str(v) for v in (data.get("flags") or {}).values()]
    return [t for t in texts if isinstance(t, str) and t]


def _entry_secrets(entries: list[Entry], folder: Path, root: Path) -> list[Finding]:
    out: list[Finding] = []
    for entry in entries:
        kinds = _kinds_in(_entry_texts(entry.to_json()))
        if kinds:
            out.append(
                Finding(
                    "secret",
                    shown(folder / f"{entry.id}.toml", root),
                    f"holds what looks like a secret ({', '.join(kinds)}); edit or delete "
                    "the entry, and rotate the secret if it was pushed",
                )
            )
    return out


def _journal_secrets(store: Any) -> list[Finding]:
    """The journal keeps every old version: a secret edited out of an entry stays there."""
    lines: dict[int, list[str]] = {}
    for number, record in store.journal.numbered():
        texts: list[str] = []
        for state in (record.before, record.after):
            if isinstance(state, dict):
                texts += _entry_texts(state)
        kinds = _kinds_in(texts)
        if kinds:
            lines[number] = kinds
    if not lines:
        return []
    kinds = sorted({k for found in lines.values() for k in found})
    return [
        Finding(
            "secret",
            f"{META_DIR}/journal.jsonl",
            f"{len(lines)} record(s) keep what looks like a secret ({', '.join(kinds)}); "
            "the journal keeps every old version",
            line=min(lines),
        )
    ]


def _manifest_secrets(root: Path) -> list[Finding]:
    """A manifest written before memdesk sealed secret lines (memfiles/seal.py), or one a
    branch brought, may keep an adopted file's secrets as they are."""
    out: list[Finding] = []
    folder = root / META_DIR / "files"
    if leaves(folder, root) is not None or not folder.is_dir():
        return out
    from memdesk.core.memfiles.manifest import manifest_files

    for path in manifest_files(root / META_DIR):  # never a link or a special file
        try:
            data = read_json(path) if leaves(path, root) is None else None
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        blocks = [b for b in data.get("blocks") or [] if isinstance(b, dict)]
        texts = [str(data.get("rendered") or "")]
        texts += [str(b.get("raw") or "") for b in blocks]
        texts += [str(b.get("summary") or "") for b in blocks]
        texts += [str(f) for b in blocks for f in b.get("facts") or []]
        kinds = _kinds_in([t for t in texts if t])
        if kinds:
            out.append(
                Finding(
                    "secret",
                    shown(path, root),
                    f"keeps what looks like a secret ({', '.join(kinds)}) as it is; the next "
                    "`memdesk render` seals it while the file exists; rotate the secret if "
                    "the manifest was pushed",
                )
            )
    return out


def _managed_file_secrets(root: Path) -> list[Finding]:
    """An adopted agent file is kept as it is: its own secrets stay in it for the agent."""
    from memdesk.core.memfiles.secrets_left import secrets_in_managed_files

    return [
        Finding(
            "secret",
            shown(found.path, root),
            f"{found.lines} line(s) hold what looks like a secret ({', '.join(found.kinds)}); "
            "memdesk keeps them redacted, but an agent reading this file sees them: remove "
            "them from the file and rotate the secret",
            line=found.first_line,
        )
        for found in secrets_in_managed_files(root, root / META_DIR)
    ]


__all__ = ["PRIVATE", "Finding", "Report", "examine"]
