"""Small stores for consolidation tests: entries written with chosen dates."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memdesk.core.entry import Entry, Source, now
from memdesk.core.entry_files import entry_to_toml
from memdesk.core.store import Store

NOW = now()


def days_ago(days: float) -> dt.datetime:
    return NOW - dt.timedelta(days=days)


def put(store: Store, entry_id: str, summary: str, *, age: float = 2, **fields) -> Entry:
    """Write an entry file as an agent or an import would (bypassing add's timestamps)."""
    created = fields.pop("created", days_ago(age))
    entry = Entry(
        summary=summary,
        id=entry_id,
        created=created,
        updated=fields.pop("updated", created),
        status=fields.pop("status", "confirmed"),
        source=fields.pop("source", Source(origin="test", session_id=fields.pop("session", ""))),
        **fields,
    )
    (store.entries_dir / f"{entry_id}.toml").write_bytes(entry_to_toml(entry))
    return entry


def small_store(root: Path) -> Store:
    """One of each case, among ordinary entries."""
    store = Store.init(root)
    put(store, "ok-1", "The docs site is built with mkdocs-material", kind="project")
    put(store, "ok-2", "我喜欢先看测试再看实现", kind="preference", scope="user")
    put(store, "dup-a", "Run `make lint` before every commit", kind="workflow", age=5)
    put(
        store, "dup-b", "run `make lint`   before every commit", kind="workflow", status="candidate"
    )
    put(store, "old-port", "The api server listens on port 8080", age=10)
    put(store, "new-port", "The api server now listens on port 9090", status="candidate")
    put(
        store,
        "past",
        "Code freeze until the release",
        kind="event",
        valid_until=(NOW - dt.timedelta(days=3)).date(),
    )
    put(store, "shaky", "Maybe the cache is flaky on Mondays", confidence="low", age=40)
    put(store, "sess", "Session: profiled the build", kind="session", age=200)
    put(
        store,
        "unused",
        "The legacy importer lives in tools/legacy",
        age=120,
        last_access=days_ago(100),
    )
    return Store.open(root)
