"""An agent's `remember` (the MCP tool's core call, from another Store as another
process would) arrives in the open desk's review queue, with no key pressed."""

from __future__ import annotations

import pytest
from memdesk.core import agent_api
from memdesk.core.store import Store
from tui_helpers import SIZE, make_app, ready, wait_for

pytestmark = pytest.mark.anyio


async def test_a_remembered_fact_arrives_in_the_open_queue(store: Store) -> None:
    fact = "The release checklist lives in docs/RELEASING.md"
    app = make_app(store, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert fact not in [e.summary for e in app.screen.rows]
        made = agent_api.remember(Store.open(store.root), fact, client="claude-code")
        assert made.status == "candidate"
        await wait_for(pilot, lambda: made.id in [e.id for e in app.screen.rows])
        row = next(e for e in app.screen.rows if e.id == made.id)
        assert (row.summary, row.status) == (fact, "candidate")
        assert row.source.origin == "mcp:claude-code"
