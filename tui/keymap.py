"""User key remapping from `[keys]` in .memdesk/settings.toml.

    [keys]
    approve = "A"          # binding id = key(s), comma separated
    undo = "u,ctrl+z"

Ids are the `Binding(..., id=...)` ids listed on the help screen (`?`).
"""

from __future__ import annotations

from memdesk.core.store import Store, StoreError


def binding_ids() -> set[str]:
    """Every binding id the desk defines (for validating `[keys]`)."""
    import importlib

    from memdesk.tui.app import LAZY_SCREENS, MemdeskApp
    from memdesk.tui.screens.browser import BrowserScreen
    from memdesk.tui.screens.queue import QueueScreen

    classes: list[type] = [MemdeskApp, QueueScreen, BrowserScreen]
    for module_name, class_name in LAZY_SCREENS.values():  # conflicts, context, stats...
        try:
            classes.append(getattr(importlib.import_module(module_name), class_name))
        except (ImportError, AttributeError):
            continue
    ids: set[str] = set()
    for cls in classes:
        for binding in cls.BINDINGS:
            binding_id = getattr(binding, "id", None)
            if binding_id:
                ids.add(binding_id)
    return ids


def load_keymap(store: Store) -> tuple[dict[str, str], list[str]]:
    """(keymap, problems): problems name the key and what is allowed."""
    try:
        table = store.settings.get("keys", {})
    except StoreError as exc:
        return {}, [str(exc)]
    if not isinstance(table, dict):
        return {}, ['[keys] must be a table of binding id = "key"']
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
