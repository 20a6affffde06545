"""Where each chosen entry sits in the block: under its heading path, in file order.

An entry adopted from a memory file carries its heading path (`Entry.section`) and its
place in the file (`source.locator`, `FILE:LINE`); it is shown under those headings,
nested, in the order the file has them, so every line keeps its subject. An entry with
no heading path (extracted from a conversation, added by hand) is shown under the title
of its kind's section ("Project facts & architecture", ...), those sections in the
purpose's order, best score first inside each.

A section's *subject line* is the entry that introduces what follows it: the first
entry of a section, in file order, that ends with a colon ("It's part of a
three-component system:"). It is never left out while an item of its section is in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from memdesk.core.context.render import SECTION_TITLES, one_line
from memdesk.core.entry import Entry

# `CLAUDE.md:12`, `notes/MEMORY.md:40-44`, `CLAUDE.md#L12`
_LOCATOR = re.compile(r"^(?P<file>.*?)(?::|#L)(?P<line>\d+)(?:-\d+)?$")
_TRAILING_MARKUP = re.compile(r"[\s*_`]+$")

Place = tuple[str, int]


@dataclass(slots=True)
class Item:
    """One eligible entry with everything the fill and the layout need."""

    entry: Entry
    bucket: str  # the kind-based section ("project", "commands", ...), for purposes
    order: tuple[int, str, int, float]  # position in the block (see `order_key`)
    score: float = 0.0
    weight_label: str = ""

    @property
    def path(self) -> tuple[str, ...]:
        """The heading path it is shown under, outermost first."""
        return heading_path(self.entry, self.bucket)


def heading_path(entry: Entry, bucket: str) -> tuple[str, ...]:
    """The entry's own heading path, or its kind's section title when it has none."""
    if entry.section:
        path = tuple(one_line(title) for title in entry.section if title.strip())
        if path:
            return path
    return (SECTION_TITLES.get(bucket, bucket),)


def place_of(entry: Entry) -> Place | None:
    """(file, line) of an entry that sits under headings in a memory file."""
    if not entry.section:
        return None
    match = _LOCATOR.match(entry.source.locator.strip())
    if match is None:
        return None
    file = match["file"] or (entry.source.files[0] if entry.source.files else "")
    return file, int(match["line"])


def order_key(entry: Entry, bucket_rank: int, static: float) -> tuple[int, str, int, float]:
    """Entries from memory files first, in file order; then the others by the purpose's
    section order and their score (best first)."""
    place = place_of(entry)
    if place is not None:
        return (0, place[0], place[1], 0.0)
    if entry.section:  # headings but no line: after the placed ones, best first
        return (1, "", 0, -static)
    return (2 + bucket_rank, "", 0, -static)


def introduces(entry: Entry) -> bool:
    """A line that ends with a colon opens a list of what follows it."""
    first = entry.summary.strip().split("\n", 1)[0]
    return _TRAILING_MARKUP.sub("", first).endswith((":", "："))


def subject_lines(items: Iterable[Item]) -> dict[str, Item]:
    """entry id -> the subject line of its section, for entries that have one."""
    by_path: dict[tuple[str, ...], list[Item]] = {}
    for item in items:
        if item.order[0] == 0:
            by_path.setdefault(item.path, []).append(item)
    out: dict[str, Item] = {}
    for members in by_path.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda i: i.order)
        lead = members[0]
        if introduces(lead.entry):
            for member in members[1:]:
                out[member.entry.id] = lead
    return out


@dataclass
class Node:
    """A heading and what sits under it (items first, then sub-sections)."""

    title: str
    depth: int
    items: list[Item] = field(default_factory=list)
    children: dict[str, Node] = field(default_factory=dict)
    first: tuple[int, str, int, float] | None = None  # smallest order key below


def outline(items: Iterable[Item]) -> Node:
    """The tree of headings over `items`, each level in block order."""
    root = Node("", 0)
    for item in items:
        node = root
        _note(node, item)
        for depth, title in enumerate(item.path, start=1):
            node = node.children.setdefault(title, Node(title, depth))
            _note(node, item)
        node.items.append(item)
    _sort(root)
    return root


def _note(node: Node, item: Item) -> None:
    if node.first is None or item.order < node.first:
        node.first = item.order


def _sort(node: Node) -> None:
    node.items.sort(key=lambda i: i.order)
    ordered = sorted(node.children.values(), key=lambda n: n.first or (0, "", 0, 0.0))
    node.children = {child.title: child for child in ordered}
    for child in ordered:
        _sort(child)


def walk(node: Node) -> Iterable[tuple[Node | None, Item | None]]:
    """Depth first, in block order: (heading, None) when a heading opens, (None, item)
    for each item. The root has no heading."""
    if node.depth:
        yield node, None
    for item in node.items:
        yield None, item
    for child in node.children.values():
        yield from walk(child)


def laid_out(items: Iterable[Item]) -> list[Item]:
    """`items` in block order."""
    return [item for _, item in walk(outline(items)) if item is not None]
