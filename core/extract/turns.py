"""Features of the turn a sentence sits in, not of the sentence alone.

The junk the sentence cues cannot tell from facts names the same identifiers as the
facts: the agent's plans and status summaries, the person's directions for the next
step. What tells them apart is where they sit in the conversation:

- `recap`: an assistant sentence whose names the assistant already wrote in an earlier
  message (a summary at the end of a turn repeats what the turn did);
- `later`: the share of a sentence's names that come back two turns or more after it
  (a standing rule or fact is referred to again; a one-off direction is done in the next
  turn and dropped);
- `turn_end`: an assistant sentence in the last message of a turn of several messages
  (where the agent reports what it did);
- `acted`: the share of a sentence's names that the agent's tool calls of the same turn
  name (a file read, written, a command run): the person's one-task direction is acted
  on at once; the agent's report of what it just did names what it just touched;
- `list_share` (features.Context, set per message): how much of the message is list
  items, grouped lists, headings and table rows (a plan, a checklist, a status table).

A turn is counted from each message of the person: the person's message opens turn k,
the assistant's replies to it are in turn k, the next message of the person opens k+1.
Only the messages the extractor reads (sources of eligible sentences) are counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple, Protocol

from memdesk.core.extract.messages import Message
from memdesk.core.extract.scoring import identifier_tokens

LATER_TURNS = 2  # names back this many turns after the sentence's own count as "later"


class Item(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def message(self) -> Message: ...
    @property
    def turn(self) -> int: ...
    @property
    def tools(self) -> set[str]: ...


class TurnCues(NamedTuple):
    recap: float = 0.0
    later: float = 0.0
    turn_end: bool = False
    acted: float = 0.0


def base_names(names: frozenset[str]) -> set[str]:
    """The last part of each name: a tool call reads /home/x/app/Gemfile, a sentence says
    Gemfile."""
    return {name.rstrip("/").rsplit("/", 1)[-1] for name in names}


class ToolWatch:
    """Passes messages through, collecting the names each turn's tool calls hold (turn k:
    from the person's k-th message to the next). Complete once the messages are read."""

    def __init__(self) -> None:
        self.turns: list[set[str]] = [set()]

    def watch(self, messages: Iterable[Message]) -> Iterator[Message]:
        for message in messages:
            if message.kind == "tool_use":
                self.turns[-1] |= base_names(identifier_tokens(message.text))
            elif message.kind == "text" and message.role == "user" and message.is_person:
                self.turns.append(set())
            yield message


def turn_cues(items: Sequence[Item]) -> list[TurnCues]:
    """The turn features of each item, in order."""
    position: dict[int, int] = {}  # id(message) -> its place among the messages read
    messages: list[tuple[Message, str, int]] = []
    for item in items:
        if id(item.message) not in position:
            position[id(item.message)] = len(messages)
            messages.append((item.message, item.role, item.turn))
    last_turn: dict[str, int] = {}  # name -> the last turn naming it
    first_said: dict[str, int] = {}  # name -> the first assistant message naming it
    last_of_turn: dict[int, int] = {}  # turn -> its last assistant message
    in_turn: dict[int, int] = {}  # turn -> how many assistant messages it has
    for index, (message, role, turn) in enumerate(messages):
        names = identifier_tokens(message.text)
        for name in names:
            last_turn[name] = turn
        if role == "assistant":
            for name in names:
                first_said.setdefault(name, index)
            last_of_turn[turn] = index
            in_turn[turn] = in_turn.get(turn, 0) + 1
    out: list[TurnCues] = []
    for item in items:
        names = identifier_tokens(item.text)
        here = position[id(item.message)]
        later = sum(last_turn.get(n, -1) >= item.turn + LATER_TURNS for n in names)
        recap = 0.0
        end = False
        if item.role == "assistant":
            recap = (
                sum(first_said.get(n, here) < here for n in names) / len(names) if names else 0.0
            )
            end = in_turn[item.turn] > 1 and last_of_turn[item.turn] == here
        acted = len(base_names(names) & item.tools) / len(names) if names else 0.0
        out.append(
            TurnCues(
                round(recap, 2),
                round(later / len(names), 2) if names else 0.0,
                end,
                round(acted, 2),
            )
        )
    return out
