"""The block of a big store after a few changes, from the kept rows (`kept_rows.py`).

A full assembly (`assembler.assemble`) builds every entry to rank them; the block shows
a few dozen. Here the entries are ranked by their kept rows (the files whose stat
moved are read and ranked from their files), and only the entries the fill can look at
are built, from their own snapshot records: the text is the one `assemble_for_store`
prints, byte for byte, or None and the caller assembles in full:

- only a request without a query, with settings that validate, on a store of at least
  `kept_weights.MIN_ENTRIES` entries whose kept rows index the snapshot as it is;
- at most `MAX_READ` entry files read (changed since the snapshot, damaged, new);
- the fill must stop early inside the best-ranked entries built (`WINDOW`, widened up
  to `MAX_WINDOW`), with the full top-up window after the stop (`fill.TOP_UP_TRIES`)
  among them;
- the current guard screens what the block shows (`verdicts.py`): any entry it flags
  means a full assembly, which leaves it out and assembles again.
"""

from __future__ import annotations

import datetime as dt
import os
from math import exp2
from pathlib import Path
from typing import Any

from memdesk.core.context import kept_rows as kr
from memdesk.core.context.assembler import STATUS_WEIGHT, make_item, purpose_factor
from memdesk.core.context.fill import TOP_UP_TRIES, Layout, fill, render_within
from memdesk.core.context.kept_counts import COUNTS_NAME, KeptCounts, kept_counter
from memdesk.core.context.kept_weights import MIN_ENTRIES, WEIGHTS_NAME, KeptWeights
from memdesk.core.context.outline import Item
from memdesk.core.context.settings import (
    FORMATS,
    UNITS,
    ContextSettings,
    SettingsError,
    load_settings,
)
from memdesk.core.context.tokens import TokenCounter, get_counter
from memdesk.core.context.verdicts import VERDICTS_NAME, GuardVerdicts
from memdesk.core.entry import SCOPES, Entry
from memdesk.core.entry_files import read_entry_file
from memdesk.core.storage.entry_snapshot import SNAPSHOT_NAME, decode_record

# At most this many entry files are read (the rest must come from kept rows).
MAX_READ = 64
# How many of the best-ranked entries are built for the fill first (a block of ≈ 40-110
# entries stops near the top, with `fill.TOP_UP_TRIES` more after the stop); four times
# as many when the fill goes past them, up to `MAX_WINDOW`, then a full assembly.
WINDOW = 320
MAX_WINDOW = 5120

# (rank key: score x purpose factor and block order; (file name, entry id, section,
# headings, weight label, kept row or -1); its static score)
Ranked = tuple[
    tuple[float, tuple[int, str, int, float]],
    tuple[str, str, str, "kr.Headed | None", str, int],
    float,
]
# (section, its rank, status x confidence weight, text weight, purpose factor, label)
_Kind = tuple[str, int, float, float, float, str]


class _Unsure(Exception):
    """Something the quick path does not handle: assemble in full."""


class _Wider(Exception):
    """The fill went past the entries built: build more."""


def quick_block(
    root: Path,
    listing: tuple[tuple[str, os.stat_result | None], ...],
    file_keys: tuple[str, ...],
    today: dt.date,
    *,
    purpose: str | None = None,
    budget: int | None = None,
    unit: str | None = None,
    scopes: list[str] | None = None,
    include_candidates: bool | None = None,
    format: str | None = None,
    metadata: bool | None = None,
    window: int = WINDOW,
) -> str | None:
    """The text `assemble_for_store(...).text` gives for these arguments (no query) on
    the entry files of `listing` (their stats as taken, `file_keys` the rows the kept
    block's key made of them: `block_cache.BlockProbe`), or None: assemble in full."""
    meta = root / ".memdesk"
    index = meta / "index"
    kept = kr.read(index, index / SNAPSHOT_NAME)
    if kept is None or len(listing) < MIN_ENTRIES:
        return None
    try:
        settings = load_settings(root)
        cs = settings.context
        purpose = purpose or cs.purpose
        order = cs.sections_for(purpose)
    except SettingsError:
        return None
    budget = cs.budget if budget is None else budget
    unit = unit or cs.unit
    fmt = format or cs.format
    include_candidates = cs.include_candidates if include_candidates is None else include_candidates
    metadata = cs.metadata if metadata is None else metadata
    if unit not in UNITS or fmt not in FORMATS or budget < 0:
        return None
    if scopes is not None and any(s not in SCOPES for s in scopes):
        return None
    rows, snapshot_key = kept
    try:
        found = (listing, file_keys)
        ranked, count, read = _rank(root, found, rows, today, cs, order, scopes, include_candidates)
        if count < MIN_ENTRIES:
            return None
        counts = kept_counter(index / COUNTS_NAME, unit, cs.tokenizer)
        counter = counts or get_counter(unit, cs.tokenizer)
        if counter.name.startswith("tokenizer.json:"):
            return None  # a tokenizer file: not in the kept block's key (cmd_context.py)
        layout = Layout(fmt, purpose, metadata)
        while True:
            try:
                return _fill(
                    index, snapshot_key, rows, ranked, read, order, layout, budget, counts,
                    counter, window,
                )  # fmt: skip
            except _Wider:
                window *= 4
                if window > MAX_WINDOW:
                    return None
    except (_Unsure, TypeError, ValueError, KeyError, IndexError, OSError):
        return None


def _rank(
    root: Path,
    found: tuple[tuple[tuple[str, os.stat_result | None], ...], tuple[str, ...]],
    rows: kr.Rows,
    today: dt.date,
    cs: ContextSettings,
    order: tuple[str, ...],
    scopes: list[str] | None,
    include_candidates: bool,
) -> tuple[list[Ranked], int, dict[str, Entry | None]]:
    """The eligible entries ranked as `assemble` ranks them, how many entries there are,
    and the entries read from their files (None: a file that holds no entry)."""
    listing, file_keys = found
    if len(file_keys) != len(listing):
        raise _Unsure
    entries_dir = root / ".memdesk" / "entries"
    weights = None
    read: dict[str, Entry | None] = {}
    where = {key: n for n, key in enumerate(rows.keys)}
    # (created, id, file name, class, valid until, time, headings, kept row or -1)
    current: list[tuple[int, str, str, str, int | None, float, kr.Headed | None, int]] = []
    created, classes, until, times, headed = (
        rows.created, rows.classes, rows.until, rows.ts, rows.headed
    )  # fmt: skip
    for (name, st), key in zip(listing, file_keys, strict=True):
        n = where.get(key, -1)
        if n >= 0:
            current.append(
                (created[n], name[:-5], name, classes[n], until[n], times[n], headed.get(n), n)
            )
            continue
        if st is None or len(read) >= MAX_READ:
            raise _Unsure
        item = read_entry_file(entries_dir / name, root)
        if not isinstance(item, Entry):
            read[name] = None  # a problem: not an entry (`entries()` skips it too)
            continue
        if item.id != name[:-5]:
            raise _Unsure
        if weights is None:
            weights = KeptWeights(root / ".memdesk" / "index" / WEIGHTS_NAME)
        read[name] = item
        made, cls, valid, ts, head = kr.row_of(item, weights(item))
        if cls.endswith("|-1"):
            raise _Unsure  # a weight no class names
        current.append((made, item.id, name, cls, valid, ts, head, -1))
    current.sort(key=lambda row: (row[0], row[1]))
    rank_of_section = {s: i for i, s in enumerate(order)}
    scope_set = set(scopes) if scopes else None
    day = today.toordinal()
    now_ts = dt.datetime.combine(today, dt.time(12), tzinfo=dt.UTC).timestamp()
    per_second = 1.0 / (cs.half_life_days * 86400.0)
    # What each class of entry is: None when the rules leave it out whatever its dates,
    # else (its section, the section's rank, status x confidence x text weight parts).
    kinds: dict[str, _Kind | None] = {}
    keyed: list[Ranked] = []
    for _, entry_id, name, cls, valid, ts, head, n in current:
        kind = kinds.get(cls, _UNSEEN)
        if kind is _UNSEEN:
            kind = kinds[cls] = _class(cls, scope_set, include_candidates, order, rank_of_section)
        if kind is None or (valid is not None and valid < day):
            continue
        bucket, rank, status_weight, text_weight, by_section, label = kind
        static = exp2(min(0.0, ts - now_ts) * per_second) * status_weight * text_weight
        if head is None:
            place: tuple[int, str, int, float] = (2 + rank, "", 0, -static)
        elif head[0] is not None:
            place = (0, head[0], head[1], 0.0)
        else:
            place = (1, "", 0, -static)
        keyed.append(
            ((-static * by_section, place), (name, entry_id, bucket, head, label, n), static)
        )
    keyed.sort(key=lambda k: k[0])
    return keyed, len(current), read


_UNSEEN: Any = object()


def _class(
    cls: str,
    scope_set: set[str] | None,
    include_candidates: bool,
    order: tuple[str, ...],
    rank_of_section: dict[str, int],
) -> _Kind | None:
    """The rules of `assembler._gate` and the purpose's sections, for one class."""
    bucket, scope, status, confidence, superseded, suspicious, code = cls.split("|")
    if (
        (scope_set is not None and scope not in scope_set)
        or superseded
        or status == "expired"
        or suspicious
        or (status == "candidate" and (not include_candidates or confidence == "low"))
    ):
        return None
    rank = rank_of_section.get(bucket)
    if rank is None:
        return None
    weight = kr.WEIGHTS[int(code)]
    by_section = purpose_factor(rank, len(order))
    return bucket, rank, STATUS_WEIGHT[status, confidence], weight.factor, by_section, weight.label


def _fill(
    index: Path,
    snapshot_key: kr.StatKey,
    rows: kr.Rows,
    ranked: list[Ranked],
    read: dict[str, Entry | None],
    order: tuple[str, ...],
    layout: Layout,
    budget: int,
    counts: KeptCounts | None,
    counter: TokenCounter,
    window: int,
) -> str:
    """Fill the budget from the best `window` entries (built now), as `assemble` fills."""
    # The subject line of each section, as `outline.subject_lines` finds it over the
    # ranked items that have headings: the first placed one of a path, in block order.
    by_path: dict[tuple[str, ...], list[tuple[tuple[int, str, int, float], int]]] = {}
    for n, (key, (_, _, _, head, _, _), _) in enumerate(ranked):
        if head is not None and key[1][0] == 0:
            by_path.setdefault(head[2], []).append((key[1], n))
    lead_of: dict[str, int] = {}
    for members in by_path.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda m: m[0])
        lead = members[0][1]
        lead_head = ranked[lead][1][3]
        if lead_head is not None and lead_head[3]:
            for _, n in members[1:]:
                lead_of[ranked[n][1][1]] = lead
    top = len(ranked) if len(ranked) <= window else window
    wanted = set(range(top))
    wanted.update(lead_of[ranked[n][1][1]] for n in range(top) if ranked[n][1][1] in lead_of)
    needed = [(ranked[n][1][0], ranked[n][1][5]) for n in sorted(wanted)]
    entries = _build(index, snapshot_key, rows, needed, read)
    rank_of_section = {s: i for i, s in enumerate(order)}

    def item(n: int) -> Item:
        key, (name, _, bucket, _, label, _), static = ranked[n]
        made = make_item(entries[name], bucket, static, label, rank_of_section)
        if made.order != key[1]:
            raise _Unsure  # a row that is not what its entry gives
        return made

    items = {n: item(n) for n in sorted(wanted)}
    subject_of = {
        ranked[n][1][1]: items[lead_of[ranked[n][1][1]]]
        for n in range(top)
        if ranked[n][1][1] in lead_of
    }
    filler = fill([items[n] for n in range(top)], subject_of, layout, budget, counter)
    if top < len(ranked) and len(filler.unreached) < TOP_UP_TRIES:
        raise _Wider  # the fill went past the entries built
    shown, text, _ = render_within(filler, budget, counter)
    verdicts = GuardVerdicts(index / VERDICTS_NAME)
    if verdicts.flagged(item.entry for item in shown):
        raise _Unsure  # the full assembly leaves it out and assembles again
    verdicts.save()
    if counts is not None:
        counts.save()
    return text


def _build(
    index: Path,
    snapshot_key: kr.StatKey,
    rows: kr.Rows,
    needed: list[tuple[str, int]],
    read: dict[str, Entry | None],
) -> dict[str, Entry]:
    """The entries of `needed` (file name, kept row): read this run, or built from
    their own snapshot records."""
    out: dict[str, Entry] = {}
    raw = b""
    if any(n >= 0 for _, n in needed):
        with open(index / SNAPSHOT_NAME, "rb") as handle:
            if kr.stat_key(os.fstat(handle.fileno())) != snapshot_key:
                raise _Unsure
            raw = handle.read()
    for name, n in needed:
        if n < 0:
            entry = read[name]
            if entry is None:
                raise _Unsure
            out[name] = entry
            continue
        start = rows.offsets[n]
        record = decode_record(raw[start : start + rows.lengths[n]])
        if record is None or record[0] != name:
            raise _Unsure
        if "\x00".join(map(str, (name, *record[1]))) != rows.keys[n]:
            raise _Unsure  # not the record the row was made from
        entry = record[2]
        if f"{entry.id}.toml" != name:
            raise _Unsure
        out[name] = entry
    return out
