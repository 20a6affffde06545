"""`memdesk merge-driver BASE OURS THEIRS [PATH]`: git's merge driver for entry files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memdesk.cli.context import CliContext
from memdesk.core.atomic import atomic_write_text
from memdesk.core.git_merge import INSTALL_LINES, merge_files


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "merge-driver",
        help="git merge driver: 3-way merge entry files field by field",
        description="Called by git as `memdesk merge-driver %O %A %B %P`. Writes the "
        "result to OURS; exit 0 when clean, 1 with conflict markers on the conflicting "
        "fields only. `--install` prints the git configuration lines.",
    )
    p.add_argument("base", nargs="?", help="the common ancestor's version (git's %%O)")
    p.add_argument("ours", nargs="?", help="our version, where the result is written (%%A)")
    p.add_argument("theirs", nargs="?", help="their version (%%B)")
    p.add_argument("path", nargs="?", default="", help="the file's path in the repository")
    p.add_argument("--install", action="store_true", help="print how to configure git")
    p.set_defaults(func=run_merge_driver)


def run_merge_driver(args: argparse.Namespace, ctx: CliContext) -> int:
    if args.install or not (args.base and args.ours and args.theirs):
        print("\n".join(INSTALL_LINES))
        return 0 if args.install else 2
    result = merge_files(Path(args.base), Path(args.ours), Path(args.theirs), args.path)
    if not result.text:
        print(f"memdesk merge-driver: {result.message}", file=sys.stderr)
        return 1
    atomic_write_text(Path(args.ours), result.text)
    if not result.clean:
        print(f"memdesk merge-driver: {args.path or args.ours}: {result.message}", file=sys.stderr)
    return 0 if result.clean else 1
