"""The store's errors: each message says why, for a person."""

from __future__ import annotations


class StoreError(Exception):
    """A store operation that cannot be done; the message says why, for a person."""


class NotFound(StoreError):
    pass


class GuardRefused(StoreError):
    """The do-not-write guard refused an entry (a secret, a recalled memory block...)."""

    def __init__(self, reasons: list[str]) -> None:
        self.reasons = reasons
        super().__init__("refused by the do-not-write guard: " + "; ".join(reasons))


class TooLarge(GuardRefused):
    """An entry bigger than the store reads back (`MAX_ENTRY_BYTES` on disk)."""

    def __init__(self, size: int) -> None:
        from memdesk.core.entry_files import MAX_ENTRY_BYTES  # not on every start-up

        self.reasons = [f"{size:,} bytes on disk; an entry is at most 1 MB"]
        StoreError.__init__(
            self,
            f"the entry would be {size:,} bytes on disk; an entry is at most 1 MB "
            f"({MAX_ENTRY_BYTES:,} bytes): keep the summary short, put the rest in a file",
        )
