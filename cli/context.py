"""Shared helpers for CLI verbs: opening the store, printing JSON, user errors."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memdesk.core.errors import describe_error

__all__ = ["CliContext", "UserError", "describe_error", "whole_number"]


def whole_number(low: int | None, high: int) -> Callable[[str], int]:
    """An argparse `type` for a whole number from `low` to `high`: a number past what the
    code under it can hold (a 20-digit --limit overflowed) is refused at the option.
    `low` None: the verb checks the lower end itself, with its own message."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None
        if value > high or (low is not None and value < low):
            span = f"from {low} to {high:,}" if low is not None else f"at most {high:,}"
            raise argparse.ArgumentTypeError(f"must be {span}, got {text[:40]}")
        return value

    parse.__name__ = "whole number"  # argparse's "invalid whole number value"
    return parse


def typed_file(name: str, root: Path) -> Path:
    """A file the person named on the command line. A path written outside the working
    directory is theirs to read; a name inside it that a symbolic link (perhaps one a
    repository brought) leads out of is refused, as `adopt` refuses it."""
    from memdesk.core.memfiles.confine import link_refusal

    why = link_refusal(name, root, outcome="not read")
    if why:
        raise UserError(f"{why} (give the path it leads to if you mean that file)")
    return Path(name)


class UserError(Exception):
    """A mistake the user can fix; printed as one line, exit code 1."""


class CliContext:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.dir = Path(args.dir)
        self.opened: list[Any] = []  # the stores this verb opened
        # Set by the desk: ends the process with the verb's code once it has said
        # everything (tui/run.py: not waiting for its worker threads or teardown).
        self.leave: Callable[[int], None] | None = None

    def store(self, *, create: bool = False):  # -> memdesk.core.store.Store
        from memdesk.core.store import Store, StoreError

        try:
            store = Store.init(self.dir) if create else Store.open(self.dir)
        except StoreError as exc:
            raise UserError(str(exc)) from exc
        self.opened.append(store)
        return store

    def reader(self):  # -> memdesk.core.storage.engine.EntryStore
        """The store opened as `store()` opens it, without the memory files attached
        (nothing is written through it): a verb that only reads, such as an agent's
        SessionStart hook, does not load the memory file code."""
        from memdesk.core.storage.engine import EntryStore
        from memdesk.core.storage.errors import StoreError

        try:
            store = EntryStore.open(self.dir)
        except StoreError as exc:
            raise UserError(str(exc)) from exc
        self.opened.append(store)
        return store

    def warnings(self) -> list[str]:
        """What committed changes could not finish (shown after the verb's output)."""
        return [w for store in self.opened for w in store.warnings]

    @staticmethod
    def print_json(data: Any) -> None:
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2, default=str)
        sys.stdout.write("\n")

    @staticmethod
    def print_jsonl(data: Any) -> None:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
