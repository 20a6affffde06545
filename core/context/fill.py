"""Filling the budget: entries in rank order, each with the headings and subject line it
needs, never cut; then the whole block re-counted, so the budget is a hard limit.

An entry is never cut: its facts may be dropped to keep its summary. Its cost counts
the headings it is the first to need and, when its section has a subject line that is
not in yet, that line too; all of it goes in together or not at all. After an entry
does not fit, smaller ones are still tried while at least `MIN_REMAINING` units are
left (seed 001).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memdesk.core.context.outline import Item, laid_out
from memdesk.core.context.records import EXHAUSTED, MIN_REMAINING
from memdesk.core.context.render import (
    footer_lines,
    header_lines,
    heading_line,
    item_lines,
    opened_headings,
)
from memdesk.core.context.tokens import TokenCounter


@dataclass
class Layout:
    """How the block is written: format, purpose (for its frame) and metadata switch."""

    fmt: str
    purpose: str
    metadata: bool = False

    def item(self, item: Item, with_facts: bool = True) -> list[str]:
        return item_lines(item.entry, self.fmt, with_facts=with_facts, metadata=self.metadata)


@dataclass
class Filled:
    chosen: list[Item] = field(default_factory=list)  # in the order they got in
    with_facts: dict[str, bool] = field(default_factory=dict)
    costs: dict[str, int] = field(default_factory=dict)
    over: dict[str, str] = field(default_factory=dict)  # entry id -> why it is out
    steps: list[list[str]] = field(default_factory=list)  # ids that went in together
    pulled: dict[str, str] = field(default_factory=dict)  # subject line id -> item id


def fill(
    ranked: list[Item],
    subject_of: dict[str, Item],
    layout: Layout,
    budget: int,
    counter: TokenCounter,
) -> Filled:
    """Greedy fill in rank order (see the module docstring)."""
    out = Filled()
    newline = counter.count("\n")
    frame = header_lines(layout.fmt, layout.purpose) + footer_lines(layout.fmt)
    remaining = budget - counter.count("\n".join(frame))
    if remaining < 0:
        for item in ranked:
            out.over[item.entry.id] = f"budget {budget} is smaller than the block's frame"
        return out
    unit = "chars" if counter.name == "chars" else "tokens"
    opened: set[tuple[str, ...]] = set()

    def headings(path: tuple[str, ...]) -> tuple[int, list[tuple[str, ...]]]:
        new = [path[:depth] for depth in range(1, len(path) + 1) if path[:depth] not in opened]
        cost = sum(newline + counter.count(heading_line(p[-1], layout.fmt, len(p))) for p in new)
        return cost, new

    def lines_cost(item: Item, with_facts: bool) -> int:
        return newline + counter.count("\n".join(layout.item(item, with_facts)))

    for item in ranked:
        entry_id = item.entry.id
        if entry_id in out.costs:
            continue  # came in earlier as a subject line
        lead = subject_of.get(entry_id)
        if lead is not None and lead.entry.id in out.costs:
            lead = None
        head_cost, new_heads = headings(item.path)
        lead_cost = lines_cost(lead, True) if lead is not None else 0
        full = head_cost + lead_cost + lines_cost(item, True)
        with_facts = True
        if full > remaining and item.entry.facts:
            short = head_cost + lead_cost + lines_cost(item, False)
            if short <= remaining:
                full, with_facts = short, False
        if full > remaining:
            out.over[entry_id] = f"needs {full} {unit}, {remaining} left" + (
                f" (with its subject line {lead.entry.id})" if lead is not None else ""
            )
            if remaining < MIN_REMAINING:
                break
            continue
        step: list[str] = []
        if lead is not None:
            out.chosen.append(lead)
            out.with_facts[lead.entry.id] = True
            out.costs[lead.entry.id] = head_cost + lead_cost
            out.pulled[lead.entry.id] = entry_id
            out.over.pop(lead.entry.id, None)
            step.append(lead.entry.id)
            head_cost = 0
        out.chosen.append(item)
        out.with_facts[entry_id] = with_facts
        out.costs[entry_id] = full - (out.costs[lead.entry.id] if lead is not None else 0)
        step.append(entry_id)
        out.steps.append(step)
        opened.update(new_heads)
        remaining -= full
    for item in ranked:
        if item.entry.id not in out.costs and item.entry.id not in out.over:
            out.over[item.entry.id] = EXHAUSTED
    return out


def render(items: list[Item], with_facts: dict[str, bool], layout: Layout) -> str:
    """The block: frame, then each item under the headings it needs, in block order."""
    lines = header_lines(layout.fmt, layout.purpose)
    previous: tuple[str, ...] = ()
    for item in items:
        for depth, title in opened_headings(previous, item.path):
            lines.append(heading_line(title, layout.fmt, depth))
        previous = item.path
        lines.extend(layout.item(item, with_facts[item.entry.id]))
    lines.extend(footer_lines(layout.fmt))
    return "\n".join(lines)


def render_within(
    filled: Filled, layout: Layout, budget: int, counter: TokenCounter
) -> tuple[list[Item], str, int]:
    """Lay the chosen items out and re-count the whole text; while a real tokenizer's
    merges across line breaks make it longer than the sum of its parts, take back the
    last step that went in (an item with the subject line it brought)."""
    while filled.steps:
        ordered = laid_out(filled.chosen)
        text = render(ordered, filled.with_facts, layout)
        used = counter.count(text)
        if used <= budget:
            return ordered, text, used
        for entry_id in filled.steps.pop():
            filled.costs.pop(entry_id, None)
            filled.pulled.pop(entry_id, None)
            filled.over[entry_id] = f"dropped after re-counting the whole block ({used} > {budget})"
        gone = set(filled.over)
        filled.chosen = [item for item in filled.chosen if item.entry.id not in gone]
    return [], "", 0
