"""Filling the budget: entries in rank order, each with the headings and subject line it
needs, never cut; then the whole block re-counted, so the budget is a hard limit.

An entry is never cut mid-line: when it is too big, its last facts are dropped (as few
as needed) to keep its summary. Its cost counts the headings it is the first to need
and, when its section has a subject line that is not in yet, that line too; all of it
goes in together or not at all. After an entry does not fit, smaller ones are still
tried while at least `MIN_REMAINING` units are left (seed 001). The sum of the parts
over-counts a real tokenizer a little, so the re-counted block usually leaves room: it
is offered once more to the entries that were out (`render_within`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memdesk.core.context.outline import Item, laid_out
from memdesk.core.context.records import MIN_REMAINING
from memdesk.core.context.render import (
    footer_lines,
    header_lines,
    heading_line,
    item_lines,
    opened_headings,
)
from memdesk.core.context.tokens import TokenCounter

# After the early stop, how many more items the re-counted block's room is offered to.
TOP_UP_TRIES = 200


@dataclass
class Layout:
    """How the block is written: format, purpose (for its frame) and metadata switch."""

    fmt: str
    purpose: str
    metadata: bool = False

    def item(self, item: Item, facts_kept: int | None = None) -> list[str]:
        return item_lines(item.entry, self.fmt, metadata=self.metadata, facts_kept=facts_kept)


@dataclass
class Filled:
    chosen: list[Item] = field(default_factory=list)  # in the order they got in
    facts_kept: dict[str, int] = field(default_factory=dict)  # how many of its facts
    costs: dict[str, int] = field(default_factory=dict)
    over: dict[str, str] = field(default_factory=dict)  # entry id -> why it is out
    steps: list[list[str]] = field(default_factory=list)  # ids that went in together
    pulled: dict[str, str] = field(default_factory=dict)  # subject line id -> item id
    needed: dict[str, int] = field(default_factory=dict)  # what an item out would cost
    failed: list[Item] = field(default_factory=list)  # offered and out, in rank order


class Filler:
    """The greedy fill: offer items in rank order; each goes in whole (with the headings
    and subject line it needs) when it fits what is left."""

    def __init__(
        self,
        subject_of: dict[str, Item],
        layout: Layout,
        budget: int,
        counter: TokenCounter,
    ) -> None:
        self.out = Filled()
        self.subject_of = subject_of
        self.layout = layout
        self.budget = budget
        self.counter = counter
        self.newline = counter.count("\n")
        frame = header_lines(layout.fmt, layout.purpose) + footer_lines(layout.fmt)
        self.remaining = budget - counter.count("\n".join(frame))
        self.unit = "chars" if counter.name == "chars" else "tokens"
        self.opened: set[tuple[str, ...]] = set()
        self.unreached: list[Item] = []  # the next items after the early stop

    def _headings(self, path: tuple[str, ...]) -> tuple[int, list[tuple[str, ...]]]:
        new = [path[:d] for d in range(1, len(path) + 1) if path[:d] not in self.opened]
        fmt = self.layout.fmt
        cost = sum(self.newline + self.counter.count(heading_line(p[-1], fmt, len(p))) for p in new)
        return cost, new

    def _lines(self, item: Item, facts_kept: int | None = None) -> int:
        return self.newline + self.counter.count("\n".join(self.layout.item(item, facts_kept)))

    def _facts_that_fit(self, item: Item, room: int) -> tuple[int, int]:
        """(facts kept, cost) for the most facts, in order, that fit in `room` (the
        summary alone when none do)."""
        facts = item.entry.facts
        cost = self._lines(item, 0)
        kept = 0
        for fact in facts:  # additive estimate first, then checked below
            step = self.newline + self.counter.count(fact)
            if cost + step > room:
                break
            cost += step
            kept += 1
        cost = self._lines(item, kept)
        while cost > room and kept > 0:
            kept -= 1
            cost = self._lines(item, kept)
        return kept, cost

    def offer(self, item: Item) -> bool:
        """Put `item` in if it fits; False (and why, in `out.over`) when it does not."""
        out = self.out
        entry_id = item.entry.id
        if entry_id in out.costs:
            return True  # came in earlier as a subject line
        lead = self.subject_of.get(entry_id)
        if lead is not None and lead.entry.id in out.costs:
            lead = None
        head_cost, new_heads = self._headings(item.path)
        lead_cost = self._lines(lead) if lead is not None else 0
        kept = len(item.entry.facts)
        full = head_cost + lead_cost + self._lines(item)
        if full > self.remaining and kept:
            # Too big: keep the summary and as many of its facts as fit.
            kept, cost = self._facts_that_fit(item, self.remaining - head_cost - lead_cost)
            full = head_cost + lead_cost + cost
        if full > self.remaining:
            out.needed[entry_id] = full
            out.failed.append(item)
            out.over[entry_id] = f"needs {full} {self.unit}, {self.remaining} left" + (
                f" (with its subject line {lead.entry.id})" if lead is not None else ""
            )
            return False
        step: list[str] = []
        if lead is not None:
            out.chosen.append(lead)
            out.facts_kept[lead.entry.id] = len(lead.entry.facts)
            out.costs[lead.entry.id] = head_cost + lead_cost
            out.pulled[lead.entry.id] = entry_id
            out.over.pop(lead.entry.id, None)
            step.append(lead.entry.id)
        out.chosen.append(item)
        out.facts_kept[entry_id] = kept
        out.costs[entry_id] = full - (head_cost + lead_cost if lead is not None else 0)
        out.over.pop(entry_id, None)
        step.append(entry_id)
        out.steps.append(step)
        self.opened.update(new_heads)
        self.remaining -= full
        return True


def fill(
    ranked: list[Item],
    subject_of: dict[str, Item],
    layout: Layout,
    budget: int,
    counter: TokenCounter,
) -> Filler:
    """Greedy fill in rank order (see the module docstring)."""
    filler = Filler(subject_of, layout, budget, counter)
    out = filler.out
    if filler.remaining < 0:
        for item in ranked:
            out.over[item.entry.id] = f"budget {budget} is smaller than the block's frame"
        return filler
    for index, item in enumerate(ranked):
        if not filler.offer(item) and filler.remaining < MIN_REMAINING:
            filler.unreached = ranked[index + 1 : index + 1 + TOP_UP_TRIES]
            break
    return filler  # items never reached are out with EXHAUSTED (see `assemble`)


def render(items: list[Item], facts_kept: dict[str, int], layout: Layout) -> str:
    """The block: frame, then each item under the headings it needs, in block order."""
    lines = header_lines(layout.fmt, layout.purpose)
    previous: tuple[str, ...] = ()
    for item in items:
        for depth, title in opened_headings(previous, item.path):
            lines.append(heading_line(title, layout.fmt, depth))
        previous = item.path
        lines.extend(layout.item(item, facts_kept[item.entry.id]))
    lines.extend(footer_lines(layout.fmt))
    return "\n".join(lines)


def render_within(
    filler: Filler, budget: int, counter: TokenCounter
) -> tuple[list[Item], str, int]:
    """Lay the chosen items out and count the whole text.

    The fill adds up the cost of each part, which over-counts a real tokenizer a little
    (it merges across line breaks): when the whole text leaves room, the items still
    out are offered once more against what is really left. When a tokenizer's merges
    make the whole longer than its parts, the last step that went in (an item with the
    subject line it brought) is taken back until the text fits."""
    filled, layout = filler.out, filler.layout
    topped_up = False
    while filled.steps:
        ordered = laid_out(filled.chosen)
        text = render(ordered, filled.facts_kept, layout)
        used = counter.count(text)
        if used <= budget:
            if topped_up or not filled.over:
                return ordered, text, used
            topped_up = True
            filler.remaining = budget - used
            before = len(filled.steps)
            # what was measured and would fit, then the next few the early stop did
            # not reach (a bounded number: a store of thousands is not walked again)
            for item in list(filled.failed):
                if item.entry.id not in filled.costs and (
                    filled.needed[item.entry.id] <= filler.remaining
                ):
                    filler.offer(item)
            for item in filler.unreached:
                if filler.remaining <= 0:
                    break
                filler.offer(item)
            if len(filled.steps) == before:
                return ordered, text, used
            continue
        for entry_id in filled.steps.pop():
            filled.costs.pop(entry_id, None)
            filled.pulled.pop(entry_id, None)
            filled.over[entry_id] = f"dropped after re-counting the whole block ({used} > {budget})"
        gone = set(filled.over)
        filled.chosen = [item for item in filled.chosen if item.entry.id not in gone]
    return [], "", 0
