"""The memory entry: seed 004's candidate format plus identity, versioning and links.

An entry is one TOML file under `.memdesk/entries/`. Field order on disk is fixed by
`FIELD_ORDER` so that diffs stay small and readable.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.controls import strip_controls
from memdesk.core.safepath import ENTRY_ID

KINDS: tuple[str, ...] = (
    "profile",
    "preference",
    "project",
    "decision",
    "event",
    "experience",
    "workflow",
    "resource",
    "session",
)
SCOPES: tuple[str, ...] = ("user", "project", "workspace", "session", "global")
STATUSES: tuple[str, ...] = ("candidate", "confirmed", "superseded", "expired")
CONFIDENCES: tuple[str, ...] = ("low", "medium", "high")
# Seed 001 works with numeric confidence (prune below 0.3, signals 0.6..0.95); these are
# the values the labels stand for when a number is needed.
CONFIDENCE_VALUE: dict[str, float] = {"low": 0.25, "medium": 0.6, "high": 0.9}

FIELD_ORDER: tuple[str, ...] = (
    "id",
    "version",
    "kind",
    "scope",
    "status",
    "confidence",
    "summary",
    "facts",
    "section",
    "tags",
    "valid_until",
    "related",
    "supersedes",
    "superseded_by",
    "created",
    "updated",
    "last_access",
    "flags",
    "source",
)
SOURCE_ORDER: tuple[str, ...] = (
    "origin",
    "session_id",
    "timestamp",
    "files",
    "commands",
    "locator",
    "role",
    "excerpt",
)
# Fields a user edits; the rest is bookkeeping the store maintains.
EDITABLE_FIELDS: tuple[str, ...] = (
    "kind",
    "scope",
    "status",
    "confidence",
    "summary",
    "facts",
    "section",
    "tags",
    "valid_until",
    "related",
    "supersedes",
    "superseded_by",
    "flags",
    "source",
)


class EntryError(ValueError):
    """A value that does not fit the entry model; names where it came from."""

    def __init__(self, message: str, *, path: str = "", field: str = "", value: Any = None):
        self.path = path
        self.field = field
        self.value = value
        self.line: int | None = None  # set where the text's line is known (TOML syntax)
        where = f"{path}: " if path else ""
        super().__init__(f"{where}{message}")


def now() -> dt.datetime:
    """Current time, timezone-aware, to the second (keeps TOML files tidy)."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def new_id() -> str:
    """A short, stable, sortable-enough id: date prefix + random suffix."""
    import uuid  # only where ids are made, not on every start-up

    return f"m-{dt.datetime.now(dt.UTC):%Y%m%d}-{uuid.uuid4().hex[:8]}"


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


def clean_text(text: str) -> str:
    """Text that can be written as UTF-8: a surrogate pair becomes its character, a lone
    surrogate (a broken emoji in a transcript, a non-UTF-8 byte in a shell argument)
    becomes U+FFFD instead of failing every write later. Terminal control characters
    (an escape sequence, a carriage return) are dropped: a memory text never needs
    them, and printed they could hide text from the reviewer or write to the terminal."""
    text = strip_controls(text)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def normalise_text(text: str) -> str:
    """Canonical form for de-duplication: NFKC, no list bullet, collapsed space, casefold."""
    text = unicodedata.normalize("NFKC", clean_text(text))
    text = _BULLET.sub("", text)
    # str.split() splits on exactly what `\s` matches, several times faster than a regex
    # (every entry's hash is worked out when a big store is first ingested into).
    return " ".join(text.split()).casefold()


@functools.lru_cache(maxsize=1 << 16)
def text_hash(text: str) -> str:
    """sha256 of the normalised text (seed 000 dedupes facts by sha256). Memoised: the
    store asks for every entry's hash on each ingest."""
    return hashlib.sha256(normalise_text(text).encode("utf-8")).hexdigest()


@dataclass
class Source:
    """Where an entry came from: enough to go back and check it."""

    origin: str = ""  # "cli", "MEMORY.md", "transcript", "inbox", "import", "flush", ...
    session_id: str = ""
    timestamp: str = ""  # as the source gave it (ISO 8601 when known)
    files: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    locator: str = ""  # file:line or file#message-index, for provenance ("; " between several)
    excerpt: str = ""
    # Who said it in a transcript: "person", "assistant" (agreed to by the person) or
    # "note"; "; " between several when copies collapsed. Left out of the file when empty.
    role: str = ""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "origin": self.origin,
            "session_id": self.session_id,
            "timestamp": self.timestamp,
            "files": list(self.files),
            "commands": list(self.commands),
            "locator": self.locator,
        }
        if self.role:
            out["role"] = self.role
        out["excerpt"] = self.excerpt
        return out

    @classmethod
    def from_dict(cls, data: Any, *, path: str = "") -> Source:
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise EntryError(
                f"field 'source' must be a table, got {type(data).__name__}",
                path=path,
                field="source",
                value=data,
            )
        unknown = set(data) - set(SOURCE_ORDER)
        if unknown:
            raise EntryError(
                f"field 'source' has unknown key(s) {sorted(unknown)}; allowed: {list(SOURCE_ORDER)}",
                path=path,
                field="source",
                value=sorted(unknown),
            )
        kwargs: dict[str, Any] = {}
        for key in ("origin", "session_id", "timestamp", "locator", "role", "excerpt"):
            value = data.get(key, "")
            if value is None:
                value = ""
            if isinstance(value, dt.datetime | dt.date):
                value = value.isoformat()
            if not isinstance(value, str):
                raise EntryError(
                    f"field 'source.{key}' must be text, got {value!r}",
                    path=path,
                    field=f"source.{key}",
                    value=value,
                )
            kwargs[key] = clean_text(value)
        for key in ("files", "commands"):
            kwargs[key] = _str_list(data.get(key), f"source.{key}", path)
        return cls(**kwargs)


@dataclass
class Entry:
    """One memory entry. `id` never changes; `version` grows by one per write."""

    summary: str
    kind: str = "project"
    scope: str = "project"
    status: str = "candidate"
    confidence: str = "medium"
    facts: list[str] = field(default_factory=list)
    # The heading path the entry sits under in its memory file, outermost first
    # (["Build", "Tests"]); empty when it has none. Keeps a line's subject.
    section: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    valid_until: dt.date | None = None
    related: list[str] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)
    superseded_by: str = ""
    source: Source = field(default_factory=Source)
    flags: dict[str, str] = field(default_factory=dict)  # e.g. {"suspicious": "why"}
    id: str = field(default_factory=new_id)
    version: int = 1
    created: dt.datetime = field(default_factory=now)
    updated: dt.datetime = field(default_factory=now)
    last_access: dt.datetime | None = None

    # -- derived -----------------------------------------------------------------
    @property
    def text_hash(self) -> str:
        return text_hash(self.summary)

    @property
    def suspicious(self) -> bool:
        return "suspicious" in self.flags

    @property
    def confidence_value(self) -> float:
        return CONFIDENCE_VALUE[self.confidence]

    def is_past_valid_until(self, today: dt.date | None = None) -> bool:
        if self.valid_until is None:
            return False
        return self.valid_until < (today or dt.date.today())

    def search_text(self) -> str:
        """Everything a person would search for in this entry."""
        return "\n".join([self.summary, *self.facts])

    # -- conversion --------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain data in FIELD_ORDER, with dates as date/datetime objects (TOML-native).

        `None` values are left out: TOML has no null.
        """
        out: dict[str, Any] = {}
        for name in FIELD_ORDER:
            value = getattr(self, name)
            if name == "source":
                value = self.source.to_dict()
            elif isinstance(value, list):
                value = list(value)
            elif isinstance(value, dict):
                value = dict(value)
            if value is None or (name in ("flags", "section") and not value):
                continue
            out[name] = value
        return out

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: every field present, dates as ISO strings, None as null."""
        out: dict[str, Any] = {}
        for name in FIELD_ORDER:
            value = getattr(self, name)
            if name == "source":
                value = self.source.to_dict()
            elif isinstance(value, dt.date | dt.datetime):
                value = value.isoformat()
            elif isinstance(value, list | dict):
                value = type(value)(value)
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, path: str = "") -> Entry:
        """Validate and build. Errors name the file, the field and the value."""
        if not isinstance(data, dict):
            raise EntryError(
                f"an entry must be a table/object, got {type(data).__name__}", path=path
            )
        unknown = set(data) - set(FIELD_ORDER)
        if unknown:
            raise EntryError(
                f"unknown field(s) {sorted(unknown)}",
                path=path,
                field=sorted(unknown)[0],
                value=sorted(unknown),
            )
        summary = data.get("summary")
        if not isinstance(summary, str) or not summary.strip():
            raise EntryError(
                f"field 'summary' must be non-empty text, got {summary!r}",
                path=path,
                field="summary",
                value=summary,
            )
        kwargs: dict[str, Any] = {"summary": clean_text(summary.strip())}
        for name, allowed in (
            ("kind", KINDS),
            ("scope", SCOPES),
            ("status", STATUSES),
            ("confidence", CONFIDENCES),
        ):
            if name in data and data[name] is not None:
                kwargs[name] = _choice(data[name], name, allowed, path)
        for name in ("facts", "section", "tags", "related"):
            kwargs[name] = _str_list(data.get(name), name, path)
        supersedes = data.get("supersedes")
        if isinstance(supersedes, str):
            supersedes = [supersedes] if supersedes else []
        kwargs["supersedes"] = _str_list(supersedes, "supersedes", path)
        superseded_by = data.get("superseded_by") or ""
        if not isinstance(superseded_by, str):
            raise EntryError(
                f"field 'superseded_by' must be an entry id, got {superseded_by!r}",
                path=path,
                field="superseded_by",
                value=superseded_by,
            )
        kwargs["superseded_by"] = clean_text(superseded_by)
        kwargs["valid_until"] = parse_date(data.get("valid_until"), "valid_until", path)
        kwargs["source"] = Source.from_dict(data.get("source"), path=path)
        flags = data.get("flags") or {}
        if not isinstance(flags, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in flags.items()
        ):
            raise EntryError(
                f"field 'flags' must be a table of text, got {flags!r}",
                path=path,
                field="flags",
                value=flags,
            )
        kwargs["flags"] = {clean_text(k): clean_text(v) for k, v in flags.items()}
        if data.get("id") is not None:
            entry_id = data["id"]
            if not isinstance(entry_id, str) or not ENTRY_ID.fullmatch(entry_id):
                raise EntryError(
                    f"field 'id' must be letters, digits, '-', '_' or '.', got {entry_id!r}",
                    path=path,
                    field="id",
                    value=entry_id,
                )
            kwargs["id"] = entry_id
        if data.get("version") is not None:
            version = data["version"]
            if not isinstance(version, int) or isinstance(version, bool) or version < 1:
                raise EntryError(
                    f"field 'version' must be a whole number >= 1, got {version!r}",
                    path=path,
                    field="version",
                    value=version,
                )
            kwargs["version"] = version
        for name in ("created", "updated", "last_access"):
            if data.get(name) is not None:
                kwargs[name] = parse_datetime(data[name], name, path)
        return cls(**kwargs)

    def copy(self, **changes: Any) -> Entry:
        clone = dataclasses.replace(
            self,
            facts=list(self.facts),
            section=list(self.section),
            tags=list(self.tags),
            related=list(self.related),
            supersedes=list(self.supersedes),
            flags=dict(self.flags),
            source=dataclasses.replace(
                self.source, files=list(self.source.files), commands=list(self.source.commands)
            ),
        )
        for key, value in changes.items():
            setattr(clone, key, value)
        return clone


def _choice(value: Any, name: str, allowed: tuple[str, ...], path: str) -> str:
    if isinstance(value, str) and value.strip().lower() in allowed:
        return value.strip().lower()
    raise EntryError(
        f"unknown {name} {value!r}; allowed: {', '.join(allowed)}",
        path=path,
        field=name,
        value=value,
    )


def _str_list(value: Any, name: str, path: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [clean_text(value)] if value else []
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return [clean_text(v) for v in value]
    raise EntryError(
        f"field '{name}' must be a list of text, got {value!r}",
        path=path,
        field=name,
        value=value,
    )


def parse_date(value: Any, name: str = "valid_until", path: str = "") -> dt.date | None:
    """Accept a TOML/JSON date, datetime or ISO text; None/"" mean no date."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            pass
    raise EntryError(
        f"field '{name}' is not a date (YYYY-MM-DD): {value!r}",
        path=path,
        field=name,
        value=value,
    )


def parse_datetime(value: Any, name: str, path: str = "") -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    if isinstance(value, str):
        try:
            parsed = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)
        except ValueError:
            pass
    raise EntryError(
        f"field '{name}' is not a date-time (ISO 8601): {value!r}",
        path=path,
        field=name,
        value=value,
    )


def linked(a: Entry, b: Entry) -> bool:
    """Are the two already joined by a supersede link (a pair settled, not news)?"""
    return (
        a.id in b.supersedes
        or b.id in a.supersedes
        or a.superseded_by == b.id
        or b.superseded_by == a.id
    )


def parse_timestamp(text: str) -> dt.datetime | None:
    """A timestamp as sources write it (ISO 8601, maybe with Z); None when it is not one."""
    if not text:
        return None
    try:
        return parse_datetime(text, "timestamp")
    except EntryError:
        return None


def entry_from_json(data: dict[str, Any], *, path: str = "") -> Entry:
    """Like Entry.from_dict but tolerant of JSON nulls for optional fields."""
    cleaned = {k: v for k, v in data.items() if v is not None}
    return Entry.from_dict(cleaned, path=path)
