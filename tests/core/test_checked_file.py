"""core/checked_file.py: the header-and-checked-payload format of derived files."""

from __future__ import annotations

import json

from memdesk.core import checked_file


def test_round_trip_keeps_header_and_payload() -> None:
    raw = checked_file.encode({"format": "f/1", "key": "k", "path": "é"}, b"a\nb")
    assert checked_file.decode(raw, "f/1") == (
        {"format": "f/1", "key": "k", "path": "é", "blake2b": checked_file.digest_of(b"a\nb")},
        b"a\nb",
    )
    head = json.loads(raw.partition(b"\n")[0])
    assert list(head)[-1] == "blake2b"  # the digest last, after the writer's fields


def test_anything_not_as_written_reads_as_nothing() -> None:
    raw = checked_file.encode({"format": "f/1"}, b"payload")
    assert checked_file.decode(raw, "f/2") is None  # another format
    assert checked_file.decode(raw[:-1], "f/1") is None  # truncated
    assert checked_file.decode(raw.replace(b"payload", b"paylaod"), "f/1") is None
    assert checked_file.decode(raw.partition(b"\n")[0], "f/1") is None  # no payload line
    assert checked_file.decode(b"[1]\nx", "f/1") is None  # not an object
    assert checked_file.decode(b"{\nx", "f/1") is None  # not JSON
    assert checked_file.decode(b"", "f/1") is None
