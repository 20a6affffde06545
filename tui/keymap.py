"""User key remapping from `[keys]` in .memdesk/settings.toml.

    [keys]
    approve = "A"          # binding id = key(s), comma separated
    undo = "u,ctrl+z"

Ids are the binding ids of tui/actions.py, listed on the help screen (`?`).
"""

from __future__ import annotations

from collections.abc import Mapping

from memdesk.tui.actions import binding_ids


def load_keymap(table: Mapping[str, object]) -> tuple[dict[str, str], list[str]]:
    """(keymap, problems) from the `[keys]` table: problems name the key and what is
    allowed."""
    known = binding_ids()
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, keys in table.items():
        if binding_id not in known:
            problems.append(
                f"keys.{binding_id}: unknown binding id; allowed: {', '.join(sorted(known))}"
            )
        elif not isinstance(keys, str) or not keys.strip():
            problems.append(f'keys.{binding_id}: must be a key string such as "A" or "ctrl+a"')
        else:
            keymap[binding_id] = keys.strip()
    return keymap, problems
