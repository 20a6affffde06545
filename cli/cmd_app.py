"""`memdesk open [DIR]` (also plain `memdesk [DIR]`) and `memdesk demo`: the TUI."""

from __future__ import annotations

import argparse
import datetime as dt
import shutil
import sys
import tempfile
from pathlib import Path

from memdesk.cli.context import CliContext, UserError
from memdesk.core.demo import copy_demo_project
from memdesk.core.store import Store, StoreError, is_store


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("open", help="open the TUI on a working directory (the default verb)")
    p.add_argument("path", nargs="?", help="working directory (default: --dir or .)")
    p.add_argument("--init", action="store_true", help="create .memdesk/ if it is missing")
    p.set_defaults(func=run_open, raw_output=True)

    p = sub.add_parser("demo", help="open the TUI on a copy of the bundled demo project")
    p.add_argument(
        "--path",
        help="copy the demo here (kept; opened again if a copy is already there) instead "
        "of a temporary folder removed when the desk closes",
    )
    p.add_argument(
        "--no-open",
        "--no-tui",
        dest="no_tui",
        action="store_true",
        help="only copy it and print where (for scripts and tests)",
    )
    p.set_defaults(func=run_demo, raw_output=True)


def _run_tui(store: Store, ctx: CliContext, *, removed_after: bool = False) -> int:
    """The desk on `store` until it quits; `ctx.leave` then ends the process without
    waiting for its workers (tui/run.py). `removed_after`: the folder is deleted once
    the desk has closed (a temporary demo): its workers are waited for first, so that
    none writes there after."""
    from memdesk.tui import run
    from memdesk.tui.app import build_app

    app = build_app(store)
    try:
        code = run.run(app)
    finally:
        if removed_after:
            run.join_workers()
    ctx.leave = lambda code: run.leave(app, code)
    return code


def run_open(args: argparse.Namespace, ctx: CliContext) -> int:
    root = Path(args.path) if args.path else ctx.dir
    try:
        if not is_store(root):
            if not args.init:
                raise UserError(
                    f"{root}: not a memdesk working directory (no .memdesk/); "
                    "run `memdesk init` there, or `memdesk demo` to try the demo project"
                )
            store = Store.init(root)
        else:
            store = Store.open(root)
    except StoreError as exc:
        raise UserError(str(exc)) from exc
    return _run_tui(store, ctx)


def run_demo(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.path:
        target = Path(args.path)
        if is_store(target):  # a copy made earlier: open it again, changes and all
            print(f"{target}: the demo copy already there", file=sys.stderr)
            return _open_demo(target, args.no_tui, ctx)
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise UserError(f"{target}: not empty and not a demo copy; give a new or empty folder")
        copy_demo_project(target, today=dt.date.today())
        return _open_demo(target, args.no_tui, ctx)
    scratch = Path(tempfile.mkdtemp(prefix="memdesk-demo-"))
    root = copy_demo_project(scratch, today=dt.date.today())
    if args.no_tui:
        print(root)  # the caller asked for the copy: it stays
        return 0
    try:
        return _open_demo(root, False, ctx, temporary=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # a temporary demo leaves nothing


def _open_demo(root: Path, no_open: bool, ctx: CliContext, temporary: bool = False) -> int:
    try:
        store = Store.open(root)
    except StoreError as exc:
        raise UserError(str(exc)) from exc
    if no_open:
        print(root)
        return 0
    return _run_tui(store, ctx, removed_after=temporary)
