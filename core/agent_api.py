"""What an agent may do with a working directory's memory, as plain functions over a
Store: the logic behind the MCP server's tools (`remember`, `search`, `context`, `get`,
`pending`), testable without MCP.

The person stays in the loop: `remember` only proposes. What an agent asks to keep is
screened by the do-not-write guard (a secret is redacted, or the whole text refused,
before anything reaches disk), de-duplicated against everything the store holds or has
rejected, and written as a candidate through the store (same lock, journal and
subscribers as the CLI), so an open desk shows it in its queue. Only a client named in
`[mcp] confirm_clients` writes confirmed entries, never a suspicious one, and only once
the person allowed that list on this machine (`memdesk trust`: the repository wrote it).

Every bad call raises `AgentCallError` with one line an agent can act on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memdesk.core.context.request import ContextRequestError, assemble_for_store, hybrid_scorer
from memdesk.core.entry import SOURCE_ORDER, STATUSES, Entry, EntryError, Source, text_hash
from memdesk.core.entry_view import describe
from memdesk.core.extract.heuristic import classify
from memdesk.core.guard import screen
from memdesk.core.search import MODES
from memdesk.core.store import GuardRefused, Store, StoreError

ACTOR = "mcp"  # not a person: a person's `undo` never takes back what an agent proposed
MAX_SEARCH_LIMIT = 100
# What the journal calls a removal, and what `remember` reports for a text removed so.
_REMOVED_AS = {"reject": "rejected", "delete": "deleted", "merge": "merged"}


class AgentCallError(ValueError):
    """A call an agent got wrong (bad value, unknown id, text too long...)."""


@dataclass(frozen=True)
class AgentSettings:
    """The `[mcp]` table of `.memdesk/settings.toml`."""

    # Client names (as the MCP client introduces itself) whose proposals are written
    # confirmed, skipping the review queue. Empty: every proposal waits for a person.
    confirm_clients: tuple[str, ...] = ()
    # A memory is one concise statement; longer text is refused, not cut.
    max_text_chars: int = 4000

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any]) -> AgentSettings:
        table = settings.get("mcp", {})
        if not isinstance(table, Mapping):
            raise AgentCallError("settings.toml: [mcp] must be a table")
        unknown = sorted(set(table) - {"confirm_clients", "max_text_chars"})
        if unknown:
            raise AgentCallError(
                f"settings.toml: unknown key mcp.{unknown[0]}; "
                "allowed: confirm_clients, max_text_chars"
            )
        clients = table.get("confirm_clients", [])
        if not isinstance(clients, list) or not all(isinstance(c, str) for c in clients):
            raise AgentCallError("settings.toml: mcp.confirm_clients must be a list of names")
        limit = table.get("max_text_chars", cls.max_text_chars)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise AgentCallError("settings.toml: mcp.max_text_chars must be a whole number >= 1")
        return cls(tuple(clients), limit)


def agent_settings(store: Store) -> AgentSettings:
    try:
        return AgentSettings.from_mapping(store.settings)
    except StoreError as exc:  # settings.toml does not parse
        raise AgentCallError(str(exc)) from exc


def _confirm_allowed(store: Store) -> bool:
    """`[mcp] confirm_clients` comes with the repository: it lets an agent skip the
    person's review only once allowed on this machine (`memdesk trust`). Until then the
    proposal stays a candidate, and one line (once per process) says why."""
    from memdesk.core.trust import confirm_clients_request, is_allowed, refuse_once

    request = confirm_clients_request(store.settings)
    if request is None or is_allowed(store.root, request):
        return request is not None
    refuse_once(request, store.root, "the proposals stay candidates for review")
    return False


# -- remember ----------------------------------------------------------------------------


@dataclass
class Remembered:
    """What became of a proposal. `status` is the entry's status (candidate, or confirmed
    for a trusted client); for a duplicate, the status of the entry already holding the
    text; `rejected`, `deleted` or `merged` when a person removed that text before (it
    is not queued again); `refused` when the guard let nothing be stored (`id` is None).
    `flags` says what happened on the way: `duplicate`, `redacted`, `home_paths`,
    `refused`, and the entry's own flags (`suspicious`)."""

    id: str | None
    status: str
    flags: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "status": self.status, "flags": dict(self.flags)}


def remember(
    store: Store,
    text: str,
    *,
    kind: str | None = None,
    scope: str | None = None,
    confidence: str | None = None,
    valid_until: str | None = None,
    source: str | Mapping[str, Any] | None = None,
    client: str = "",
) -> Remembered:
    """Propose `text` as a memory (see the module docstring)."""
    settings = agent_settings(store)
    if not isinstance(text, str) or not text.strip():
        raise AgentCallError("text must be a non-empty string")
    if len(text) > settings.max_text_chars:
        raise AgentCallError(
            f"text is {len(text)} characters; the limit is {settings.max_text_chars} "
            "(one concise statement per memory)"
        )
    proposal = _proposal(text, kind, scope, confidence, valid_until, source, client)
    verdict = screen(proposal)
    if verdict.entry is None:
        return Remembered(None, "refused", {"refused": "; ".join(verdict.reasons) or "refused"})
    flags = _guard_flags(verdict.reasons)
    clean = verdict.entry
    named = client and client in settings.confirm_clients and not clean.suspicious
    if named and _confirm_allowed(store):  # the list is the repository's: trust first
        clean.status = "confirmed"
    hashes = {text_hash(proposal.summary), text_hash(clean.summary)}
    # Look and write under the store's lock: two agents proposing the same text at once
    # get one entry, and both hear its id.
    with store.lock.held():
        existing = _holding(store, hashes)
        if existing is not None:
            return Remembered(
                existing.id, existing.status, {**existing.flags, **flags, "duplicate": "yes"}
            )
        removed = _removed(store, hashes)
        if removed is not None:
            entry_id, how = removed
            return Remembered(entry_id, how, {**flags, "duplicate": f"{how} before"})
        try:
            added = store.add(clean, actor=ACTOR)
        except GuardRefused as exc:
            return Remembered(None, "refused", {"refused": "; ".join(exc.reasons)})
    return Remembered(added.id, added.status, {**added.flags, **flags})


def _proposal(
    text: str,
    kind: str | None,
    scope: str | None,
    confidence: str | None,
    valid_until: str | None,
    source: str | Mapping[str, Any] | None,
    client: str,
) -> Entry:
    guessed_kind, guessed_scope = classify(text, {}, "user")
    data: dict[str, Any] = {
        "summary": text,
        "kind": kind or guessed_kind,
        "scope": scope or guessed_scope,
        "status": "candidate",
        "confidence": confidence or "medium",
        "valid_until": valid_until,
    }
    try:
        entry = Entry.from_dict(data)
        entry.source = _source(source)
    except EntryError as exc:
        raise AgentCallError(str(exc)) from exc
    entry.source.origin = f"mcp:{client}" if client else "mcp"
    return entry


def _source(source: str | Mapping[str, Any] | None) -> Source:
    """The agent's provenance: free text (kept as the locator), or an object with any of
    session_id, timestamp, files, commands, locator, excerpt."""
    if source is None:
        return Source()
    if isinstance(source, str):
        return Source(locator=source)
    if not isinstance(source, Mapping):
        raise AgentCallError("source must be text or an object")
    allowed = [k for k in SOURCE_ORDER if k != "origin"]
    unknown = sorted(set(source) - set(allowed))
    if unknown:
        raise AgentCallError(f"source has unknown key(s) {unknown}; allowed: {', '.join(allowed)}")
    return Source.from_dict(dict(source))


def _guard_flags(reasons: list[str]) -> dict[str, str]:
    flags: dict[str, str] = {}
    for reason in reasons:
        if reason.startswith("redacted"):
            flags["redacted"] = reason
        elif reason.startswith("shortened"):
            flags["home_paths"] = reason
    return flags


def _holding(store: Store, hashes: set[str]) -> Entry | None:
    for entry in store.entries():
        if entry.text_hash in hashes:
            return entry
    return None


def _removed(store: Store, hashes: set[str]) -> tuple[str, str] | None:
    """The id and fate of an entry with this text that a person removed, if any."""
    for record in reversed(store.journal.records_of(tuple(_REMOVED_AS))):
        if record.before and text_hash(record.before.get("summary", "")) in hashes:
            return record.entry_id, _REMOVED_AS[record.op]
    return None


# -- reading -----------------------------------------------------------------------------


@dataclass
class SearchHit:
    id: str
    summary: str
    kind: str
    status: str
    score: float

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "summary": self.summary,
            "kind": self.kind,
            "status": self.status,
            "score": round(self.score, 6),
        }


def open_search(store: Store) -> Any:  # -> memdesk.core.search.SearchService
    """A search service on the store's index (loads the embedding model the settings
    name). Long-lived callers open it once and pass it to `search` and `context`."""
    from memdesk.core.search import SearchService, SearchSettingsError

    try:
        return SearchService(store.index_dir, store.settings)
    except (SearchSettingsError, StoreError) as exc:
        raise AgentCallError(str(exc)) from exc


def search(
    store: Store,
    query: str,
    *,
    limit: int = 10,
    mode: str = "hybrid",
    status: str | Iterable[str] | None = None,
    service: Any = None,
) -> list[SearchHit]:
    """Ranked hits for `query`, confirmed entries only unless `status` says otherwise."""
    if not isinstance(query, str) or not query.strip():
        raise AgentCallError("query must be a non-empty string")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_SEARCH_LIMIT:
        raise AgentCallError(f"limit must be a whole number from 1 to {MAX_SEARCH_LIMIT}")
    if mode not in MODES:
        raise AgentCallError(f"unknown mode {mode!r}; allowed: {', '.join(MODES)}")
    statuses = [status] if isinstance(status, str) else list(status or ["confirmed"])
    bad = [s for s in statuses if s not in STATUSES]
    if bad:
        raise AgentCallError(f"unknown status {bad[0]!r}; allowed: {', '.join(STATUSES)}")
    service = service if service is not None else open_search(store)
    entries = store.entries()
    service.sync(entries)
    by_id = {e.id: e for e in entries}
    hits = service.search(query, mode=mode, limit=limit, status=statuses)
    return [
        SearchHit(h.entry_id, e.summary, e.kind, e.status, h.score)
        for h in hits
        if (e := by_id.get(h.entry_id)) is not None
    ]


def context(
    store: Store,
    *,
    purpose: str | None = None,
    budget: int | None = None,
    query: str | None = None,
    service: Any = None,
) -> dict[str, Any]:
    """What `memdesk context --json` prints for the same purpose, budget and query."""
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)):
        raise AgentCallError("budget must be a whole number")
    scorer = None
    if query:
        if service is not None:
            service.sync(store.entries())
        scorer = hybrid_scorer(store, service=service)
    try:
        result = assemble_for_store(
            store, purpose=purpose, budget=budget, query=query or None, search=scorer
        )
    except ContextRequestError as exc:
        raise AgentCallError(str(exc)) from exc
    return result.to_json()


def get(store: Store, entry_id: str) -> dict[str, Any]:
    """The entry (an id or a unique prefix) with its history and links."""
    if not isinstance(entry_id, str) or not entry_id.strip():
        raise AgentCallError("id must be a non-empty string")
    try:
        entry = store.get(store.resolve_id(entry_id.strip()))
    except StoreError as exc:
        raise AgentCallError(str(exc)) from exc
    return describe(store, entry)


def pending(store: Store) -> dict[str, int]:
    """How many candidates wait for a person (and how many of them look suspicious)."""
    candidates = [e for e in store.entries() if e.status == "candidate"]
    return {"pending": len(candidates), "suspicious": sum(e.suspicious for e in candidates)}
