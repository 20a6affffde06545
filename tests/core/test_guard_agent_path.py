"""No secret reaches disk through the agent path (MCP `remember`): every kind of the
corpus, in the text and in every source field, is searched for in every file after."""

from __future__ import annotations

from pathlib import Path

from guard_corpus import SECRETS
from memdesk.core import agent_api
from memdesk.core.store import Store
from test_guard_write_paths import ALL, leaks


def test_remember_stores_no_secret_in_text_or_source(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    for kind, _, text in SECRETS:
        agent_api.remember(
            store,
            f"Deploy notes for the {kind} rotation: {text}",
            source={
                "session_id": text,
                "locator": text,
                "excerpt": text,
                "files": [text],
                "commands": [f"echo {text}"],
            },
            client="test-agent",
        )
    assert leaks(tmp_path, ALL) == []
