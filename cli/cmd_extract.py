"""Extraction verbs: `extract` (transcripts -> candidates), `flush` (messages on stdin)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memdesk.cli.context import CliContext, UserError, typed_file, whole_number
from memdesk.core.context.settings import SettingsError
from memdesk.core.entry import Entry
from memdesk.core.extract.flush import flush
from memdesk.core.extract.inbox import ingest_sources, looks_binary, unmatched_globs
from memdesk.core.extract.messages import Message, ReadStats
from memdesk.core.extract.readers import UnrecognisedFormat, detect_format, record_messages
from memdesk.core.extract.settings import ExtractSettings
from memdesk.core.extract.transcript import transcript_candidates
from memdesk.core.jsonfile import BadJSON, loads
from memdesk.core.store import StoreError

ACTOR = "cli"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "extract",
        help="extract candidate memories from agent transcripts (see docs/formats.md)",
        description=(
            "Read agent transcripts (Claude Code, Codex, Gemini CLI, Copilot CLI, Antigravity, "
            "Aider, SpecStory, ChatGPT exports, Markdown chat logs, memory/YYYY-MM-DD.md daily "
            "logs, generic {role, content} JSONL/JSON), extract candidates, screen them with "
            "the do-not-write guard and add the new ones. A file in no known format is an "
            "error (exit 1)."
        ),
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="transcript files to read")
    p.add_argument(
        "--sources",
        action="store_true",
        help="also read what is new in .memdesk/inbox/ and the [sources] transcripts globs",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="print what would be added; write nothing"
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run_extract)

    p = sub.add_parser(
        "flush",
        help="messages on stdin (before a compaction) -> deduplicated candidates + memory_flushed",
        description=(
            "Read messages from stdin (a JSON array or JSONL of {role, content} objects), "
            "extract at most [extractor] max_facts_per_flush new facts, write them as candidates "
            "and journal a memory_flushed event."
        ),
    )
    p.add_argument("--session-id", default="", help="session id for messages that have none")
    p.add_argument(
        "--max",
        type=whole_number(1, 100_000),
        default=None,
        help="cap (default: max_facts_per_flush, 10)",
    )
    p.add_argument("--json", action="store_true", help="print the memory_flushed payload as JSON")
    p.set_defaults(func=run_flush)


# -- extract ----------------------------------------------------------------------------


def run_extract(args: argparse.Namespace, ctx: CliContext) -> int:
    if not args.files and not args.sources:
        raise UserError("give transcript FILEs to read, or --sources")
    store = _store_for(ctx, args.dry_run)
    settings = _settings(store)
    known = set(store.known_hashes()) if store is not None else set()
    report: dict[str, Any] = {
        "files": [],
        "added": [],
        "duplicates": 0,
        "refused": [],
        "over_cap": 0,
        "max_per_transcript": settings.extractor.max_per_transcript,
        "cap_per_message": settings.extractor.cap_per_message,
    }
    for name in args.files:
        path = typed_file(name, ctx.dir)
        if not path.is_file():
            raise UserError(f"{name}: no such file")
        if looks_binary(path):
            raise UserError(f"{name}: not a text file (binary content)")
        try:
            fmt = detect_format(path)
        except UnrecognisedFormat as exc:
            raise UserError(str(exc)) from exc
        found = transcript_candidates(
            path, settings.extractor, known=known, cwd=str(ctx.dir), fmt=fmt
        )
        if found.error:
            raise UserError(f"{name}: extractor failed, nothing written: {found.error}")
        stats = found.stats or ReadStats(str(path))
        chosen_all: list[Entry] = found.entries
        # A file's candidates are written together, after the whole file was read: a
        # failing extractor half-way leaves the store untouched.
        if chosen_all and not args.dry_run:
            try:
                chosen_all = store.add_many(chosen_all, actor=ACTOR, label="extract")
            except StoreError as exc:
                raise UserError(f"{name}: nothing written: {exc}") from exc
        if not stats.messages:
            print(
                f"memdesk: note: {path}: read as {fmt}; it holds no conversation", file=sys.stderr
            )
        report["files"].append(
            {
                "path": str(path),
                "format": fmt,
                "messages": stats.messages,
                "skipped_lines": stats.skipped,
                "warnings": stats.warnings,
                "candidates": len(chosen_all),
                "over_cap": found.over_cap,
                "cap": found.cap,
            }
        )
        report["over_cap"] += found.over_cap
        report["added"] += [e.to_json() for e in chosen_all]
        report["duplicates"] += found.duplicates
        report["refused"] += [{"summary": s, "reasons": r} for s, r in found.refused]
        for warning in stats.warnings:
            print(f"memdesk: warning: {warning}", file=sys.stderr)
        if stats.skipped > len(stats.warnings):
            print(
                f"memdesk: warning: {path}: {stats.skipped} line(s) skipped in all",
                file=sys.stderr,
            )
    if args.sources:
        if store is None:
            raise UserError("--sources needs a memdesk working directory (run `memdesk init`)")
        if args.dry_run:
            raise UserError("--sources cannot be combined with --dry-run (it records offsets)")
        if store.lock.read_only_reason:  # nothing read could be kept: say so, not "added 0"
            raise UserError(
                f"cannot write to this store ({store.lock.read_only_reason}); "
                "the sources were not read"
            )
        for pattern in unmatched_globs(store):
            print(
                f"memdesk: warning: {store.settings_path}: [sources] transcripts "
                f"{pattern!r} matches no file",
                file=sys.stderr,
            )
        for result in ingest_sources(store):
            if result.error:
                named = result.error.startswith(result.path)  # a reader's error names it
                where = "" if named else f"{result.path}: "
                print(f"memdesk: warning: {where}{result.error}", file=sys.stderr)
            report["files"].append(
                {
                    "path": result.path,
                    "messages": result.messages,
                    "skipped_lines": result.skipped_lines,
                    "warnings": result.warnings,
                    "candidates": len(result.added),
                    "error": result.error,
                    "unchanged": result.unchanged,
                    "over_cap": result.over_cap,
                }
            )
            report["over_cap"] += result.over_cap
            report["added"] += [e.to_json() for e in result.added]
            report["duplicates"] += result.duplicates
            report["refused"] += [{"summary": s, "reasons": r} for s, r in result.refused]
    report["dry_run"] = bool(args.dry_run)
    if args.json:
        ctx.print_json(report)
        return 0
    _print_report(report)
    return 0


def _store_for(ctx: CliContext, dry_run: bool) -> Any:
    if not dry_run:
        return ctx.store()
    try:
        return ctx.store()
    except UserError:
        return None  # a dry run works without a store (nothing to dedupe against)


def _settings(store: Any) -> ExtractSettings:
    try:
        return ExtractSettings.from_mapping(store.settings if store is not None else None)
    except SettingsError as exc:
        raise UserError(str(exc)) from exc


def _print_report(report: dict[str, Any]) -> None:
    verb = "would add" if report["dry_run"] else "added"
    for entry in report["added"]:
        flag = (
            "  [suspicious: " + entry["flags"]["suspicious"] + "]"
            if "suspicious" in entry["flags"]
            else ""
        )
        where = entry["source"].get("locator") or ""
        print(
            f"+ {entry['id']}  {entry['kind']}/{entry['scope']} {entry['confidence']:<6} "
            f"{entry['summary']}{flag}  ({where})"
        )
    for item in report["refused"]:
        print(f"- refused: {'; '.join(item['reasons'])}: {item['summary'][:60]}")
    messages = sum(f["messages"] for f in report["files"])
    skipped = sum(f["skipped_lines"] for f in report["files"])
    line = (
        f"{verb} {len(report['added'])} candidate(s) from {messages} message(s) in "
        f"{len(report['files'])} file(s); {report['duplicates']} duplicate(s), "
        f"{len(report['refused'])} refused"
    )
    if report["over_cap"]:
        line += (
            f", {report['over_cap']} left out over the per-transcript cap "
            f"([extractor] max_per_transcript = {report['max_per_transcript']}), "
            f"more in long conversations (cap_per_message = {report['cap_per_message']:g})"
        )
    if skipped:
        line += f", {skipped} line(s) skipped"
    print(line)


# -- flush ------------------------------------------------------------------------------


def read_stdin_messages(text: str) -> list[Message]:
    """A JSON array (or object with `messages`) or JSONL of message records."""
    stats = ReadStats("<stdin>")
    records: list[tuple[str, Any]] = []
    stripped = text.strip()
    if not stripped:
        return []
    try:
        value = loads(stripped, "<stdin>")
    except BadJSON:
        for number, line in enumerate(stripped.splitlines(), 1):
            if not line.strip():
                continue
            try:
                records.append((f"<stdin>:{number}", loads(line, f"stdin line {number}")))
            except BadJSON as exc:
                raise UserError(f"stdin line {number}: not JSON ({exc.reason})") from None
    else:
        items = value if isinstance(value, list) else [value]
        records = [(f"<stdin>#{i}", item) for i, item in enumerate(items)]
    messages: list[Message] = []
    for where, record in records:
        found = record_messages(record, where, stats)
        if found is None:
            raise UserError(f"{where}: not a message (expected {{role, content}})")
        messages += [m for m in found if m.kind != "candidate"]
    return messages


def run_flush(args: argparse.Namespace, ctx: CliContext) -> int:
    messages = read_stdin_messages(sys.stdin.read())
    store = ctx.store(create=True)
    _settings(store)  # a bad [extractor] table is a user error, said up front
    if args.max is not None and args.max < 1:
        raise UserError("--max must be at least 1")
    result = flush(
        messages, store=store, session_id=args.session_id, max_facts_per_flush=args.max, actor=ACTOR
    )
    if result.error:
        raise UserError(f"extractor failed, nothing written: {result.error}")
    if args.json:
        ctx.print_json(
            {
                "event": "memory_flushed" if result.payload else None,
                "payload": result.payload,
                "ids": [e.id for e in result.added],
                "duplicates": result.duplicates,
                "over_cap": result.over_cap,
                "refused": [{"summary": s, "reasons": r} for s, r in result.refused],
            }
        )
        return 0
    for entry in result.added:
        print(f"+ {entry.id}  {entry.kind}/{entry.scope}  {entry.summary}")
    print(
        f"flushed {result.count} fact(s); {result.duplicates} duplicate(s), "
        f"{result.over_cap} over the cap, {len(result.refused)} refused"
    )
    return 0
