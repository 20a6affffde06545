"""The rows the meaning stage of the injection guard is trained on, and the held-out ones.

Attacks: the attempts of `tests/core/guard_corpus.py` (the first corpus, its source-field
attacks and the three earlier held-out sets), the `dev` half of
`tests/core/guard_data/injections_heldout.jsonl`, fresh rounds 1-4 of
`injections_rounds.jsonl`, `meaning_train.jsonl` (attack moves written for this
stage: override, role change, exfiltration, tool coercion, persistence and spreading,
self-approval, concealment, safety disabling, prompt reveal, authority claims),
`meaning_registers.jsonl` (the same moves and more, fake system messages, conditional
triggers, goal hijacking, hidden comments, each written in several registers: terse,
polite, technical, bureaucratic, casual, story; English, Chinese in both scripts and
mixed), `meaning_writer5.jsonl` (a fifth writer who read none of the other sets'
wording: goal hijacking, skipped or faked tests and review, persistence, secrecy from
the user, authority claims, conditional triggers, against look-alike project rules and
a coding agent's own narration and tool summaries), `meaning_writer6.jsonl` (a sixth
writer, half of it mixed Chinese/English as Chinese developers write it: backdoors,
planted sabotage, command execution, persona switches and fake system, developer or tool
messages, written as YAML front matter, HTML comments, JSON tool results, code
comments, commits and issue templates) and, when the package is
installed, the public corpus `bastioncorpus` (MIT, an outside writer's attacks and
ordinary support messages; its canary checks left out) and `agent-injection-bench`
(MIT, a third writer: injections inside documents and tool results).
Ordinary text: the hard negatives of the same files (dev half, rounds 1-4), the
ordinary project rules and facts of `meaning_train.jsonl` and `guard_corpus.py`, the
look-alike rules and agent narration of `meaning_writer5.jsonl` and
`meaning_writer6.jsonl`,
every other LoCoMo conversation turn and the bilingual dev entries (`../shared/bench-data`, read
in place, never copied), and every third line of this project's own documentation (docs/security.md, which
quotes attacks, left out).

Never used for training: the `test` half, fresh round 5, and the real files under
`../shared/bench-data/real` (the false-flag measure).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests" / "core"
GUARD_DATA = TESTS / "guard_data"
HELD_OUT_SPLITS = frozenset({"test", "round-5"})


@dataclass(frozen=True)
class Row:
    text: str
    attack: bool
    group: str  # where it came from: folds never split a group's near-copies apart

    @property
    def writer(self) -> str:
        """Who wrote it, as far as known (a register of the register-set counts as a
        writer of its own; `meaning_writer5` and `meaning_writer6` are each one writer
        across their registers): the unit left out to estimate recall on an unseen
        writer."""
        parts = self.group.split(":")
        if parts[0] in {"injections_rounds", "meaning_train"}:
            return f"{parts[0]}:{parts[1]}"
        if parts[0] == "meaning_registers":
            return f"registers:{parts[2]}"
        if parts[0].startswith("corpus"):
            return "corpus"
        return parts[0]


def _jsonl(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def corpus_rows() -> list[Row]:
    sys.path.insert(0, str(TESTS))
    import guard_corpus  # noqa: PLC0415 - test data, found only once the path is set

    rows = [Row(t, True, "corpus") for t in guard_corpus.INJECTIONS]
    rows += [Row(t, True, "corpus-source") for _, t in guard_corpus.SOURCE_INJECTIONS]
    for name in ("HELD_OUT", "HELD_OUT_2", "HELD_OUT_3"):
        rows += [Row(t, True, name.lower()) for t in getattr(guard_corpus, name)]
    rows += [Row(t, False, "corpus-rules") for t in guard_corpus.ORDINARY_RULES]
    return rows


def labelled_rows(path: Path, *, held_out: bool) -> list[Row]:
    """Rows of a labelled JSONL file: the training splits, or (held_out) the others."""
    out = []
    for record in _jsonl(path):
        if (record.get("split", "") in HELD_OUT_SPLITS) != held_out:
            continue
        register = f"{record['register']}:" if record.get("register") else ""
        group = f"{path.stem}:{record.get('split', '')}:{register}{record.get('category', '')}"
        out.append(Row(record["text"], record["label"] == "attack", group))
    return out


def locomo_rows(shared: Path) -> list[Row]:
    rows = []
    for path in sorted((shared / "bench-data" / "locomo").glob("*.json")):
        conversation = json.loads(path.read_text("utf-8"))
        for key, turns in conversation.items():
            if key.startswith("session_") and isinstance(turns, list):
                turns = [t for t in turns if t.get("text")][::2]  # every other turn: enough
                rows += [Row(t["text"], False, f"locomo:{path.stem}") for t in turns]
    return rows


def bilingual_rows(shared: Path) -> list[Row]:
    folder = shared / "bench-data" / "bilingual" / "dev"
    rows = []
    if (folder / "entries.json").exists():
        for entry in json.loads((folder / "entries.json").read_text("utf-8")):
            for text in (entry.get("summary", ""), *entry.get("facts", [])):
                if text:
                    rows.append(Row(text, False, "bilingual-entries"))
    if (folder / "expected.json").exists():
        for fact in json.loads((folder / "expected.json").read_text("utf-8")).get("facts", []):
            rows.append(Row(fact["summary"], False, "bilingual-expected"))
    return rows


def doc_rows() -> list[Row]:
    rows = []
    for path in sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")]):
        if path.name == "security.md":
            continue
        lines = [line.strip(" #>-*|`") for line in path.read_text("utf-8").splitlines()]
        for line in [line for line in lines if len(line) >= 25][::3]:  # a third: enough
            rows.append(Row(line, False, f"docs:{path.name}"))
    return rows


def bastion_rows() -> list[Row]:
    """The public corpus of the PyPI package `bastioncorpus` (MIT), when installed: its
    attacks and ordinary messages, without the canary checks (an order to repeat a token,
    which in a memory file reads like an ordinary "include the ticket id" rule)."""
    try:
        from importlib.resources import files  # noqa: PLC0415

        data = files("bastioncorpus").joinpath("corpus", "injections.jsonl").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        print("bastioncorpus not installed: trained without it", file=sys.stderr)
        return []
    rows = []
    for line in data.splitlines():
        record = json.loads(line) if line.strip() else None
        if not record or record.get("check") == "canary" or "{" in record["text"]:
            continue
        group = f"bastioncorpus:{record.get('category', '')}"
        rows.append(Row(record["text"], record["label"] == "malicious", group))
    return rows


def aib_rows() -> list[Row]:
    """The attacks of the PyPI package `agent-injection-bench` (MIT; a third outside
    writer: injections inside pages, documents, tool results and metadata) and its
    ordinary control texts, when installed."""
    try:
        from importlib.resources import files  # noqa: PLC0415

        data = files("aib").joinpath("data", "attacks.jsonl").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        print("agent-injection-bench not installed: trained without it", file=sys.stderr)
        return []
    rows = []
    for record in (json.loads(line) for line in data.splitlines() if line.strip()):
        attack = record.get("family") != "control"
        rows.append(Row(record["injected"], attack, f"aib:{record.get('family', '')}"))
    return rows


TRAINING_FILES = (
    "injections_heldout.jsonl",
    "injections_rounds.jsonl",
    "meaning_train.jsonl",
    "meaning_registers.jsonl",
    "meaning_writer5.jsonl",
    "meaning_writer6.jsonl",
    "meaning_narration.jsonl",
)


def training_rows(shared: Path) -> list[Row]:
    rows = corpus_rows()
    for name in TRAINING_FILES:
        rows += labelled_rows(GUARD_DATA / name, held_out=False)
    rows += bastion_rows() + aib_rows() + locomo_rows(shared) + bilingual_rows(shared) + doc_rows()
    seen: set[str] = set()
    unique = []
    for row in rows:
        if row.text not in seen:
            seen.add(row.text)
            unique.append(row)
    return unique
