"""An agent's append costs the desk the new entry, not the store: counted calls, not
time (the timings are benchmarks, bench/tui_bench.py)."""

from __future__ import annotations

import pytest
from memdesk.core.entry import Entry
from memdesk.core.store import Store
from memdesk.tui.services import Services
from tui_helpers import TODAY


def test_the_pairs_after_an_append_compare_only_the_new_entry(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memdesk.core.pairs import QueuePairs

    services = Services(store, load_model=False, today=lambda: TODAY)
    services.refresh_duplicates()
    told: list[object] = []
    update = QueuePairs.update

    def spied(self, entries, search=None, changes=None):  # type: ignore[no-untyped-def]
        told.append(changes)
        return update(self, entries, search, changes)

    monkeypatch.setattr(QueuePairs, "update", spied)
    first = store.entries()[0]
    (added,) = store.add_many([Entry(summary=first.summary + " again")], actor="agent")
    services.invalidate([added.id])
    services.refresh_duplicates()
    assert told == [{added.id: services.entries()[-1]}]  # the keeper is told what changed
    assert any(added.id in (p.a, p.b) for p in services.duplicates)

    store.edit(added.id, {"summary": "a different fact altogether"}, actor="agent")
    services.invalidate([added.id])
    services.refresh_duplicates()
    assert [set(c) for c in told[1:]] == [{added.id}]  # not every entry of the store
    assert not any(added.id in (p.a, p.b) for p in services.duplicates)


def test_the_list_moved_by_a_change_equals_a_fresh_read(store: Store) -> None:
    services = Services(store, load_model=False, today=lambda: TODAY)
    services.entries()
    changed: list[str] = []
    store.subscribe(lambda change: changed.extend(change.ids))  # what the desk hears
    (added,) = store.add_many([Entry(summary="a fact from an agent")], actor="agent")
    gone = store.entries()[3].id
    store.delete([gone], actor="user")
    edited = store.entries()[5].id
    store.edit(edited, {"summary": "edited by a person"}, actor="user")
    assert {added.id, gone, edited} <= set(changed)
    services.invalidate(changed)
    assert [e.id for e in services.entries()] == [e.id for e in store.entries()]
    assert services.counts()["entries"] == len(store.entries())


@pytest.mark.anyio
async def test_an_append_in_the_open_desk_does_not_stat_every_entry_file(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The desk's watcher follows the entries folder: the ingestion's look at the
    store (the known texts) and the refreshes after the commit stat the new file and
    the few others named, not the 60 of the demo (10k in a big store)."""
    import os

    import memdesk.core.storage.file_cache as file_cache_module
    from tui_helpers import SIZE, make_app, ready, wait_for

    stated: set[int] = set()
    key = file_cache_module.file_key

    def counted(st: os.stat_result) -> tuple[int, int]:
        stated.add(st.st_ino)
        return key(st)

    total = len(store.entries())
    app = make_app(store, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.services.flags_ready)
        await pilot.pause(0.3)
        monkeypatch.setattr(file_cache_module, "file_key", counted)
        text = "remember: the release notes live in docs/changes.md"
        with (store.root / "MEMORY.md").open("a", encoding="utf-8") as f:
            f.write(f"- {text}\n")
        await wait_for(pilot, lambda: text in [e.summary for e in app.screen.rows])
        await pilot.pause(0.3)
    assert total > 50
    assert len(stated) <= 5
