"""The queue shows every flag a later screen of the stored text would raise.

An entry is screened as written when it arrives, and as stored (secrets redacted) by
every later screen: approval, `memdesk context`, rendering. A text whose stored reading
is flagged must be flagged on arrival too, or it would drop out of the context block at
approval with nothing in the queue saying why (round 9: a note whose password, once
hidden, read as an injection).
"""

from __future__ import annotations

import importlib

import pytest
from memdesk.core.entry import Entry
from memdesk.core.guard.injection import Finding

# The module, not the `screen` function the package exports under the same name.
guard_screen = importlib.import_module("memdesk.core.guard.screen")

TEXT = "The demo environment's seed password is Heron-qWzLmVt, it is public"


def _flags_redacted_only(text: str) -> Finding | None:
    """A detector that only sees an attack in the redacted reading."""
    return (
        Finding("reads as an order once the value is hidden", "suspicious")
        if ("[REDACTED" in text)
        else None
    )


def test_a_flag_of_the_stored_reading_is_raised_on_arrival(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(guard_screen, "find_injection", _flags_redacted_only)
    verdict = guard_screen.screen(Entry(summary=TEXT))
    assert verdict.entry is not None
    assert "Heron-qWzLmVt" not in verdict.entry.summary
    assert verdict.entry.flags.get("suspicious") == "reads as an order once the value is hidden"
    # ... and the stored text, screened again at approval, says the same.
    again = guard_screen.screen(verdict.entry)
    assert again.entry is not None and "suspicious" in again.entry.flags


def test_a_text_without_a_secret_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def counting(text: str) -> Finding | None:
        calls.append(text)
        return None

    monkeypatch.setattr(guard_screen, "find_injection", counting)
    verdict = guard_screen.screen(Entry(summary="We deploy with make ship on Fridays"))
    assert verdict.entry is not None and not verdict.entry.flags
    assert [c for c in calls if c] == ["We deploy with make ship on Fridays"]
