"""Adopt each real memory file and check what adoption promises.

For every file of `../shared/bench-data/real/memory/` (or --data / MEMDESK_REAL_DATA),
in a fresh temporary working directory under its agent's name (CLAUDE.md, AGENTS.md,
MEMORY.md): adopt it, then print

- whether the file is byte-identical right after adoption and after `render`;
- how many entries it became;
- how many gold facts are present as a confirmed entry with their section (the entry
  matches by the gold rule and its section path holds the heading the fact sits under);
- entries that are a lone code fence, table separator or heading (must be 0);
- the gate: a line appended to the file becomes one candidate, is held out of the file,
  and once approved is the only change to the file.

    python bench/adopt_real.py [--data DIR] [--show-missed] [OTHER.md ...]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gold_match import matches  # noqa: E402
from memdesk.core.memfiles.adopt import adopt  # noqa: E402
from memdesk.core.memfiles.manifest import load_manifest  # noqa: E402
from memdesk.core.store import Store  # noqa: E402

# `../shared` next to the repository (a worktree sits one level deeper: look upwards).
SHARED = next(
    (
        p / "shared"
        for p in Path(__file__).resolve().parents
        if (p / "shared" / "bench-data").is_dir()
    ),
    Path(__file__).resolve().parents[1].parent / "shared",
)
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)[\s#]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_BAD = re.compile(r"^\s*(`{3,}\w*|~{3,}\w*|\|?[\s:|-]*-{2,}[\s:|-]*\|?|#{1,6}(\s.*)?)\s*$")


def real_name(name: str) -> str:
    for agent in ("MEMORY.md", "CLAUDE.md", "AGENTS.md", "GEMINI.md"):
        if name.endswith(agent):
            return agent
    return name


def heading_at(lines: list[str], number: int) -> str:
    """The heading a 1-based line sits under, read straight from the file."""
    heading, in_code = "", False
    for line in lines[:number]:
        if _FENCE.match(line):
            in_code = not in_code
        elif not in_code and (m := _HEADING.match(line)):
            heading = m.group(1).strip()
    return heading


def where_lines(where: str) -> list[int]:
    """The first line of each place a fact is written ("12, 40-44" -> [12, 40])."""
    return [int(m.group(1)) for m in re.finditer(r"(\d+)(?:-\d+)?", where)]


def bad_entries(manifest_blocks: list, entries: dict) -> list[str]:
    bad = []
    for block in manifest_blocks:
        if not block.entry_id:
            continue
        content = [line for line in block.raw.splitlines() if line.strip()]
        if len(content) == 1 and _BAD.match(content[0]):
            bad.append(content[0])
    return bad


def run_file(source: Path, gold: dict | None, show_missed: bool) -> dict:
    work = Path(tempfile.mkdtemp(prefix="memdesk-adopt-"))
    try:
        target = work / real_name(source.name)
        shutil.copyfile(source, target)
        original = target.read_bytes()
        started = time.perf_counter()
        store = Store.init(work)  # a MEMORY.md already there is adopted by init
        if target.name != "MEMORY.md":
            adopt(store, target)
        adopt_ms = (time.perf_counter() - started) * 1000
        after_adopt = target.read_bytes() == original
        store.render_memory_md()
        after_render = target.read_bytes() == original
        manifest = load_manifest(store.meta_dir, target)
        entries = {e.id: e for e in store.entries()}
        confirmed = [e for e in entries.values() if e.status == "confirmed"]
        lines = original.decode("utf-8").splitlines()
        found, found_in_section, missed = 0, 0, []
        for fact in (gold or {}).get("facts", []):
            headings = {heading_at(lines, n) for n in where_lines(fact["where"])}
            ok = any(
                matches(fact, "\n".join([e.summary, *e.facts]))
                and any(not h or h in e.section for h in headings)
                for e in confirmed
            )
            found += ok
            # The same, reading the entry with its section path (its subject) in front.
            found_in_section += ok or any(
                matches(fact, "\n".join([*e.section, e.summary, *e.facts]))
                and any(not h or h in e.section for h in headings)
                for e in confirmed
            )
            if not ok:
                missed.append(f"{fact['id']} (line {fact['where']}): {fact['text']}")
        bad = bad_entries(manifest.blocks if manifest else [], entries)
        # The gate: append one line, ingest, approve.
        line = "- memdesk bench: appended fact about zebra crossings\n"
        prefix = "" if original.endswith(b"\n") else "\n"
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(prefix + line)
        added = store.ingest_memory_md()
        held = target.read_bytes() == original
        store.approve([e.id for e in added])
        approved_only = target.read_bytes() == original + (prefix + line).encode()
        result = {
            "file": source.name,
            "identical_adopt": after_adopt,
            "identical_render": after_render,
            "entries": len(confirmed),
            "adopt_ms": round(adopt_ms),
            "gold": len((gold or {}).get("facts", [])),
            "gold_found": found,
            "gold_found_with_section_text": found_in_section,
            "bad": len(bad),
            "append_candidates": len(added),
            "held": held,
            "approve_only_change": approved_only,
        }
        if show_missed:
            result["missed"] = missed
            result["bad_lines"] = bad
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="the real/ data folder")
    parser.add_argument("--show-missed", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "files", nargs="*", type=Path, help="other Markdown files to check (no gold facts)"
    )
    args = parser.parse_args()
    data = args.data or Path(os.environ.get("MEMDESK_REAL_DATA", SHARED / "bench-data" / "real"))
    # A sandbox home, so nothing in the real home folder is read or written.
    sandbox_home = tempfile.TemporaryDirectory(prefix="memdesk-home-")  # removed at exit
    os.environ["HOME"] = sandbox_home.name
    results = []
    sources = args.files or sorted((data / "memory").glob("*"))
    for source in sources:
        gold_path = data / "gold" / f"{source.name}.json"
        gold = json.loads(gold_path.read_text("utf-8")) if gold_path.exists() else None
        results.append(run_file(source, gold, args.show_missed))
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    yes = {True: "yes", False: "NO"}
    print(
        f"{'file':40} {'adopt':>5} {'render':>6} {'entries':>7} {'gold':>9} {'bad':>3} "
        f"{'append':>6} {'held':>4} {'only':>4} {'ms':>5}"
    )
    for r in results:
        print(
            f"{r['file'][:40]:40} {yes[r['identical_adopt']]:>5} {yes[r['identical_render']]:>6} "
            f"{r['entries']:>7} {r['gold_found']:>4}/{r['gold']:<4} {r['bad']:>3} "
            f"{r['append_candidates']:>6} {yes[r['held']]:>4} {yes[r['approve_only_change']]:>4} "
            f"{r['adopt_ms']:>5}"
        )
        for line in r.get("missed", []):
            print(f"    missed {line}")
        for line in r.get("bad_lines", []):
            print(f"    bad entry: {line}")
    gold = sum(r["gold"] for r in results)
    found = sum(r["gold_found"] for r in results)
    with_section = sum(r["gold_found_with_section_text"] for r in results)
    print(
        f"total: {sum(r['identical_adopt'] and r['identical_render'] for r in results)}/"
        f"{len(results)} byte-identical, {found}/{gold} gold facts "
        f"({100 * found / max(gold, 1):.1f}%; {with_section} reading the section path too), "
        f"{sum(r['bad'] for r in results)} bad entries, "
        f"{sum(r['approve_only_change'] for r in results)}/{len(results)} appends held and "
        f"approved as the only change"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
