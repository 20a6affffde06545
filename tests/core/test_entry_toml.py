"""The fast reader of memdesk's own entry TOML (core/entry_toml.py) reads a file exactly as
`tomllib` does, or declines (None) and `tomllib` reads it."""

from __future__ import annotations

import datetime as dt
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memdesk.core.entry import CONFIDENCES, KINDS, SCOPES, STATUSES, Entry, Source
from memdesk.core.entry_files import entry_to_toml, parse_entry_text, read_entry_file
from memdesk.core.entry_toml import loads_entry_toml

DEMO = Path(__file__).resolve().parents[2] / "core" / "demo_project" / "memdesk" / "entries"

# Any text a person or an agent may write: quotes, backslashes, control characters,
# new lines, tabs, DEL, non-BMP characters, text that looks like TOML syntax.
_TEXT = st.text(
    st.one_of(
        st.sampled_from(list('"\\\n\t\r\x00\x08\x1f\x7f\u2028 =[]{}#\'.,:+-"""')),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=40,
)
_TIMES = st.datetimes(
    min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31), timezones=st.just(dt.UTC)
) | st.datetimes(
    min_value=dt.datetime(1, 1, 2),
    max_value=dt.datetime(9999, 12, 30),
    timezones=st.sampled_from(
        [dt.timezone(dt.timedelta(hours=h, minutes=m)) for h, m in ((5, 30), (-8, 0), (-3, -30))]
    ),
)


@st.composite
def entries(draw: st.DrawFn) -> Entry:
    texts = st.lists(_TEXT, max_size=3)
    return Entry(
        summary=draw(_TEXT.filter(str.strip)) or "x",
        kind=draw(st.sampled_from(KINDS)),
        scope=draw(st.sampled_from(SCOPES)),
        status=draw(st.sampled_from(STATUSES)),
        confidence=draw(st.sampled_from(CONFIDENCES)),
        facts=draw(texts),
        section=draw(texts),
        tags=draw(texts),
        valid_until=draw(st.none() | st.dates()),
        superseded_by=draw(_TEXT),
        source=Source(
            origin=draw(_TEXT),
            locator=draw(_TEXT),
            excerpt=draw(_TEXT),
            files=draw(texts),
            role=draw(_TEXT),
        ),
        flags=draw(st.dictionaries(_TEXT, _TEXT, max_size=3)),
        id=draw(st.from_regex(r"[a-z0-9][a-z0-9_.-]{0,11}", fullmatch=True)),
        version=draw(st.integers(1, 10**30)),
        created=draw(_TIMES),
        updated=draw(_TIMES),
        last_access=draw(st.none() | _TIMES),
    )


def _tomllib(text: str) -> object:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        return exc


def _same_as_tomllib(text: str) -> bool:
    """The fast reader declined, or gave what tomllib gives (also the zones' kinds)."""
    fast = loads_entry_toml(text)
    if fast is None:
        return True
    slow = _tomllib(text)
    return fast == slow and repr(fast) == repr(slow)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(entries())
def test_what_memdesk_writes_is_read_as_tomllib_reads_it(entry: Entry) -> None:
    text = entry_to_toml(entry).decode("utf-8")
    fast = loads_entry_toml(text)
    slow = tomllib.loads(text)
    if "\r" not in text:
        assert fast is not None, text  # memdesk's own shape: the fast reader reads it
    if fast is not None:
        assert fast == slow and repr(fast) == repr(slow)


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(entries(), st.data())
def test_a_changed_file_is_read_as_tomllib_reads_it_or_declined(entry: Entry, data) -> None:  # type: ignore[no-untyped-def]
    text = entry_to_toml(entry).decode("utf-8")
    for _ in range(3):  # up to three edits: insert, delete or replace some characters
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 4))
        put = data.draw(
            st.text(
                st.sampled_from(list("\"\\\n =[]#'0123456789-:+.Tt ZzeuU{}x\t\r\x7f")), max_size=4
            )
        )
        text = text[:at] + put + text[at + cut :]
        assert _same_as_tomllib(text), text


@pytest.mark.parametrize(
    "text",
    [
        'a = "x"\na = "y"\n',  # a key twice
        'source = "x"\n\n[source]\norigin = "y"\n',  # a table over a value
        '[source]\na = "x"\n\n[source]\nb = "y"\n',  # a table twice
        'a = "\\ud800"\n',  # an escaped surrogate
        'a = "\\U00110000"\n',  # beyond Unicode
        'a = "\\e"\n',  # an escape tomllib (3.11) does not know
        "a = 2026-02-30\n",  # no such day
        "a = 2026-01-01 10:00:00\n",  # a local date-time
        "a = 2026-01-01T10:00:00Z\n",
        "a = 01\n",
        "a = 1_000\n",
        "a = +1\n",
        "a = 1.5\n",
        "a = true\n",
        "a = 'literal'\n",
        'a = "x" # comment\n',
        'a="x"\n',
        ' a = "x"\n',
        'a = "x" \n',
        'a.b = "x"\n',
        'a = [\n    "x"\n]\n',  # no trailing comma
        'a = [\n    "x",\n    ]\n',
        "a = [\n]\n",
        'a = [\n    "x",\n',  # never closed
        'a = """\nx\n',  # never closed
        'a = """\nsay "hi"\n"""\n',  # a quote inside
        'a = """\nx\\\n  y"""\n',  # a line-ending backslash
        'a = """x"""\n',
        'a = """\nx""""\n',
        'a = "x"\r\nb = "y"\r\n',
        '\ufeffa = "x"\n',
        'a = "tab\there"\n',
        'a = "del\x7f"\n',
        "[flags]\n",
        '"quoted key" = "x"\n"" = "y"\n',
        'a = """\n"""\n',
        'a = """\n\n"""\n',
        "a = 2026-01-01 10:00:00.1234567+05:30\n",
    ],
)
def test_other_shapes_are_declined_or_read_as_tomllib_reads_them(text: str) -> None:
    assert _same_as_tomllib(text)


def test_the_shapes_memdesk_writes_are_read_fast() -> None:
    text = (
        'id = "a"\nversion = 12\nsummary = "q \\" b \\\\ \\u0001 é"\ntags = [\n    "x",\n]\n'
        "facts = []\nvalid_until = 2026-03-01\ncreated = 2026-01-01 00:03:00.5+05:30\n"
        'notes = """\nline one\n\tline two \\\\"""\n\n[source]\norigin = "o"\n\n[flags]\n'
        '"odd key" = "v"\n'
    )
    fast = loads_entry_toml(text)
    assert fast is not None
    assert fast == tomllib.loads(text)
    assert fast["notes"] == "line one\n\tline two \\"
    assert fast["created"].microsecond == 500000


def test_every_demo_entry_reads_as_before(tmp_path: Path) -> None:
    for path in sorted(DEMO.glob("*.toml")):
        text = path.read_text("utf-8")
        assert _same_as_tomllib(text), path
        item = read_entry_file(path, DEMO.parent.parent)
        if isinstance(item, Entry):
            assert item == Entry.from_dict(tomllib.loads(text), path=str(path))


def test_a_damaged_file_still_names_its_line() -> None:
    from memdesk.core.entry import EntryError

    with pytest.raises(EntryError) as caught:
        parse_entry_text('summary = "x"\nkind = = "event"\n', "e.toml")
    assert caught.value.line == 2
