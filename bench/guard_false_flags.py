"""How often the guard flags or redacts ordinary text: real memory files and transcripts.

Every content line of the real instruction/memory files (CLAUDE.md, AGENTS.md, agent
MEMORY.md) and every text message of the real transcripts is screened as the guard
screens an entry. Nothing in these files is an attack, so every `suspicious` flag is a
false flag (it would hide a normal rule from the agent); `review` flags only ask a
person to look. Redactions are listed too (real files hold two credentials replaced by
fake values of the same shape).

    python bench/guard_false_flags.py [--shared DIR] [--list] [--rules-only]
                                      [--only memory|transcripts]

DIR defaults to ../shared next to the repository (env MEMDESK_SHARED overrides).
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from pathlib import Path

from memdesk.core.extract.readers import read_messages
from memdesk.core.guard import find_injection, meaning_status, redact_text
from memdesk.core.guard.meaning import STAGE
from memdesk.core.memory_md import is_content_line, line_text


def shared_dir(given: str | None) -> Path:
    if given:
        return Path(given)
    if os.environ.get("MEMDESK_SHARED"):
        return Path(os.environ["MEMDESK_SHARED"])
    default = Path(__file__).resolve().parents[1].parent / "shared"
    for folder in Path(__file__).resolve().parents:  # a worktree sits one level deeper
        if (folder / "shared" / "bench-data").is_dir():
            return folder / "shared"
    return default


def memory_lines(folder: Path) -> list[tuple[str, str]]:
    out = []
    for path in sorted(folder.glob("*.md")):
        for number, raw in enumerate(path.read_text("utf-8", "replace").splitlines(), 1):
            if is_content_line(raw):
                out.append((f"{path.name}:{number}", line_text(raw)))
    return out


def transcript_messages(folder: Path) -> list[tuple[str, str]]:
    out = []
    for path in sorted(folder.iterdir()):
        try:
            for message in read_messages(path):
                if message.kind == "text" and message.text.strip():
                    out.append((message.locator or path.name, message.text))
        except (OSError, ValueError):
            continue
    return out


def measure(items: list[tuple[str, str]]) -> dict[str, list[tuple[str, str, str]]]:
    found: dict[str, list[tuple[str, str, str]]] = {"suspicious": [], "review": [], "redacted": []}
    for where, text in items:
        finding = find_injection(text)
        if finding is not None:
            found[finding.severity].append((where, finding.reason, text))
        redacted, count = redact_text(text)
        if count:
            found["redacted"].append((where, f"{count} secret(s)", redacted))
    return found


def main() -> None:
    logging.getLogger("memdesk.extract").setLevel(logging.ERROR)  # reader warnings
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", help="the shared data folder (holds bench-data/real)")
    parser.add_argument("--list", action="store_true", help="print every flagged item")
    parser.add_argument("--rules-only", action="store_true", help="switch the meaning stage off")
    parser.add_argument("--only", choices=("memory", "transcripts"), help="count one kind")
    args = parser.parse_args()
    if args.rules_only:
        STAGE.use(None)
    print(f"screening: {meaning_status().line}")
    real = shared_dir(args.shared) / "bench-data" / "real"
    kinds = []
    if args.only != "transcripts":
        kinds.append(("memory-file lines", memory_lines(real / "memory")))
    if args.only != "memory":
        kinds.append(("transcript messages", transcript_messages(real / "transcripts")))
    for label, items in kinds:
        start = time.perf_counter()
        found = measure(items)
        took = time.perf_counter() - start
        total = len(items) or 1
        print(
            f"{label}: {len(items)}; suspicious {len(found['suspicious'])} "
            f"({100 * len(found['suspicious']) / total:.2f}%), review {len(found['review'])} "
            f"({100 * len(found['review']) / total:.2f}%), redacted {len(found['redacted'])}; "
            f"{took:.1f} s"
        )
        if args.list:
            for severity in ("suspicious", "review", "redacted"):
                for where, why, text in found[severity]:
                    flat = " ".join(text.split())
                    print(f"  [{severity}] {where}: {why} | {flat[:160]}")


if __name__ == "__main__":
    main()
