"""Managed memory files: adopt, files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memdesk.cli.context import CliContext, UserError
from memdesk.core.memfiles.adopt import adopt
from memdesk.core.memfiles.discover import Found, discover
from memdesk.core.memfiles.formats import FORMATS, UnknownFormat
from memdesk.core.memfiles.status import file_statuses
from memdesk.core.store import Store, StoreError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "adopt",
        help="take an agent's memory file as the confirmed baseline (the file is not rewritten)",
    )
    p.add_argument("path", nargs="?", help="the memory file (CLAUDE.md, AGENTS.md, MEMORY.md ...)")
    p.add_argument(
        "--as", dest="format", choices=sorted(FORMATS), help="its format (default: guessed)"
    )
    p.add_argument(
        "--discover", action="store_true", help="list the agents' memory files of this directory"
    )
    p.add_argument(
        "--all", action="store_true", help="with --discover: adopt every file not yet adopted"
    )
    p.add_argument("--json", action="store_true", help="what was adopted or found, as JSON")
    p.set_defaults(func=run_adopt)

    p = sub.add_parser("files", help="list managed memory files and their agents' load limits")
    p.add_argument("--json", action="store_true", help="one JSON object per managed file")
    p.set_defaults(func=run_files)


def run_adopt(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    if args.discover:
        try:
            settings = store.settings
        except StoreError as exc:
            raise UserError(str(exc)) from exc
        found = discover(store.root, store.meta_dir, settings)
        if args.all:
            for item in found:
                if item.refused:  # one line each, and the rest is adopted
                    print(f"memdesk: {item.refused}", file=sys.stderr)
            wanted = [f for f in found if not f.managed and not f.refused]
            return _adopt_all(ctx, store, wanted, args.json)
        if args.json:
            ctx.print_json([f.to_json() for f in found])
        else:
            for item in found:
                if item.refused:
                    print(f"refused: {item.refused}")
                    continue
                state = "managed" if item.managed else "not adopted"
                print(f"{item.path}  {item.format}  {state}")
            if not found:
                print("no agent memory files found for this directory")
        return 0
    if not args.path:
        raise UserError("adopt: give a PATH, or --discover to list candidates")
    try:
        result = adopt(store, Path(args.path), args.format)
    except (StoreError, UnknownFormat) as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        ctx.print_json(result.to_json())
    else:
        state = "unchanged" if result.unchanged else "NOT byte-identical (please report)"
        print(
            f"adopted {result.path} ({result.format}): {result.entries} entries in "
            f"{len(result.sections)} sections; file {state}"
        )
    for line in result.refused:
        print(f"kept in the file but not as an entry: {line}")
    _warn_secrets_left([Path(result.path)], store.root)
    return 0


def _warn_secrets_left(paths: list[Path], root: Path) -> None:
    """An adopted file is kept as it is, its own secrets too: say so (never the values)."""
    from memdesk.core.memfiles.secrets_left import secrets_in_file, warning
    from memdesk.core.safepath import shown

    for path in paths:
        found = secrets_in_file(path)
        if found is not None:
            print(f"memdesk: {warning(found, shown(path, root))}", file=sys.stderr)


def _adopt_all(ctx: CliContext, store: Store, found: list[Found], as_json: bool) -> int:
    results = []
    for item in found:
        try:
            results.append(adopt(store, item.path, item.format))
        except StoreError as exc:  # one file that cannot be adopted does not stop the rest
            print(f"memdesk: {exc}", file=sys.stderr)
    _warn_secrets_left([Path(r.path) for r in results], store.root)
    if as_json:
        ctx.print_json([r.to_json() for r in results])
    else:
        for r in results:
            print(f"adopted {r.path} ({r.format}): {r.entries} entries")
        if not results:
            print("nothing new to adopt")
    return 0


def run_files(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    statuses = file_statuses(store)
    if args.json:
        ctx.print_json([s.to_json() for s in statuses])
        return 0
    if not statuses:
        print("no managed memory files; `memdesk adopt --discover` lists candidates")
        return 0
    for s in statuses:
        if s.refused:
            print(f"{s.shown_path}  {s.format}  refused: {s.refused}")
            continue
        print(
            f"{s.shown_path}  {s.format}  {s.entries} entries, {len(s.candidates)} waiting, "
            f"{s.lines} lines, {s.bytes} bytes, loads {s.limit}"
        )
        if s.warning:
            print(f"  ! {s.warning}")
    return 0
