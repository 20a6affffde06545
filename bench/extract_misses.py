"""Why each gold fact is missed: the analysis behind the extractor's recall.

    python bench/extract_misses.py [--data DIR] [--only NAME...] [--summary]

For every transcript of the dev set (`../shared/bench-data/real`, as bench/extract_real.py)
and every gold fact the default extractor's candidates do not match (rule of
gold/README.md, bench/gold_match.py), it prints the first reason that explains the miss,
looking at every sentence of every message (not only the extractor's sources):

- `cap`: an eligible sentence matching it was kept by the scorer but left out over
  `max_per_transcript` (or collapsed into a candidate that does not match);
- `score`: an eligible sentence matches, its score was under the threshold (the score
  is shown);
- `reject:<rule>`: a sentence of a source message matches but a rejection rule dropped it;
- `source:<why>`: only sentences of messages that may not speak for the person match
  (an assistant turn the person objected to or never answered, tool output, a
  sub-agent prompt, a compaction summary, injected text);
- `span:<n>`: no single sentence matches, n neighbouring sentences of one message do
  (the source kind is shown);
- `message`: only a whole message matches;
- `nowhere`: nothing in the transcript matches (the gold fact paraphrases).

Each miss is printed with the nearest candidate or sentence (most shared content
tokens). `--summary` prints only the count per reason.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extract_real import default_data  # noqa: E402
from gold_match import GoldFact, content_tokens, matches  # noqa: E402
from memdesk.core.extract.agreement import reply_agrees, sources  # noqa: E402
from memdesk.core.extract.heuristic import (  # noqa: E402
    clean_statement,
    eligible_sentences,
    in_transcript,
    judge,
    pick_scorer,
)
from memdesk.core.extract.messages import Message  # noqa: E402
from memdesk.core.extract.readers import read_messages  # noqa: E402
from memdesk.core.extract.rejects import reject_reason  # noqa: E402
from memdesk.core.extract.sentences import split_sentences  # noqa: E402
from memdesk.core.extract.signals import THRESHOLD  # noqa: E402
from memdesk.core.extract.transcript import transcript_candidates  # noqa: E402
from train_scorer import gold_of  # noqa: E402

logging.getLogger("memdesk").setLevel(logging.ERROR)

SPAN_MAX = 3  # neighbouring sentences tried together


@dataclass
class Seen:
    """One sentence of any message, with what the extractor made of it."""

    text: str
    message: int
    who: str  # person | assistant | note | not a source: <why>
    reject: str


def assistant_status(messages: list[Message]) -> dict[int, str]:
    """For each assistant text message: agreed, objected or unanswered (its turn's fate)."""
    status: dict[int, str] = {}
    turn: list[int] = []
    for index, message in enumerate(messages):
        if message.kind != "text":
            continue
        if message.is_person:
            verdict = "agreed" if reply_agrees(message.text) else "objected"
            status.update({i: verdict for i in turn})
            turn = []
        elif message.role == "assistant" and message.origin in ("", "assistant"):
            turn.append(index)
    status.update({i: "unanswered" for i in turn})
    return status


def who_of(messages: list[Message]) -> dict[int, str]:
    source_ids = {id(m): who for m, who in sources(messages)}
    status = assistant_status(messages)
    out: dict[int, str] = {}
    for index, message in enumerate(messages):
        who = source_ids.get(id(message))
        if who is not None:
            out[index] = {"assistant": "assistant"}.get(who, who)
        elif index in status:
            out[index] = f"not a source: assistant turn {status[index]}"
        else:
            label = message.origin or message.role
            out[index] = f"not a source: {label}/{message.kind}"
    return out


def sentences_of(messages: list[Message]) -> list[Seen]:
    who = who_of(messages)
    out: list[Seen] = []
    for index, message in enumerate(messages):
        role = who[index] if who[index] in ("person", "assistant", "note") else "assistant"
        for sentence in split_sentences(message.text):
            out.append(Seen(sentence.text, index, who[index], reject_reason(sentence, role)))
    return out


def nearest(fact: GoldFact, texts: list[str]) -> str:
    best, best_shared = "", 0
    for text in texts:
        shared = len(fact.tokens & content_tokens(text))
        if shared > best_shared:
            best, best_shared = text, shared
    return best


def explain(fact: GoldFact, path: Path, state: dict) -> tuple[str, str]:
    """(reason, the sentence or candidate that shows it)."""
    for item, (keep, value) in state["eligible"]:
        if matches(fact, item.text):
            return ("cap" if keep else f"score {value:.2f}", f"[{item.role}] {item.text}")
    seen: list[Seen] = state["seen"]
    for s in seen:
        if s.who in ("person", "assistant", "note") and s.reject and matches(fact, s.text):
            return f"reject:{s.reject}", f"[{s.who}] {s.text}"
    for s in seen:
        if s.who.startswith("not a source") and matches(fact, s.text):
            return f"source:{s.who.removeprefix('not a source: ')}", s.text
    for size in range(2, SPAN_MAX + 1):
        for start in range(len(seen) - size + 1):
            window = seen[start : start + size]
            if window[0].message != window[-1].message:
                continue
            text = " ".join(s.text for s in window)
            if matches(fact, text):
                return f"span:{size} ({window[0].who})", text
    for index, message in enumerate(state["messages"]):
        if matches(fact, message.text):
            return f"message ({state['who'][index]})", message.text[:300]
    return "nowhere", nearest(fact, [e.summary for e in state["entries"]] + [s.text for s in seen])


def analyse(path: Path, data: Path, show: bool) -> Counter[str]:
    facts = gold_of(data, path.name)
    result = transcript_candidates(path)
    texts = ["\n".join([e.summary, *e.facts]) for e in result.entries]
    missed = [f for f in facts if not any(matches(f, t) for t in texts)]
    reasons: Counter[str] = Counter()
    if not missed:
        return reasons
    messages = list(read_messages(path))
    items = list(eligible_sentences(messages))
    scorer = pick_scorer({})
    repeats, contexts = in_transcript(items)
    judged = [
        (item, judge(item, rep, THRESHOLD, scorer, context)[:2])
        for item, rep, context in zip(items, repeats, contexts, strict=True)
    ]
    state = {
        "eligible": judged,
        "seen": sentences_of(messages),
        "messages": messages,
        "who": who_of(messages),
        "entries": result.entries,
    }
    if show:
        print(f"\n== {path.name}: {len(missed)} of {len(facts)} missed")
    for fact in missed:
        reason, evidence = explain(fact, path, state)
        reasons[reason.split(" ")[0] if reason.startswith("score") else reason] += 1
        if show:
            print(f"  {fact.id} [{reason}] {fact.text[:120]}  {fact.keywords}")
            print(f"      > {clean_statement(evidence)[:220]}")
    return reasons


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--only", nargs="*", default=[], help="files whose name holds one")
    parser.add_argument("--summary", action="store_true", help="counts per reason only")
    args = parser.parse_args()
    data = args.data or default_data()
    files = sorted(p for p in (data / "transcripts").iterdir() if p.is_file())
    if args.only:
        files = [p for p in files if any(part in p.name for part in args.only)]
    total: Counter[str] = Counter()
    for path in files:
        total += analyse(path, data, not args.summary)
    print("\nmissed gold facts by first reason:")
    for reason, count in total.most_common():
        print(f"  {count:>3}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
