"""Entry point of the `memdesk` command.

`memdesk [--dir DIR] VERB ...` runs a verb; `memdesk [DIR]` (no verb) opens the TUI.
Each verb lives in a `cmd_*.py` module exposing `register(subparsers)`; the parser's
`func(args, ctx) -> int` does the work. Exit codes: 0 ok, 1 user error (one line on
stderr), 2 usage.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path

import memdesk.cli as cli_package
from memdesk.cli import safe_output
from memdesk.cli.context import CliContext, UserError, describe_error
from memdesk.core.safepath import UnsafePath

# Every `cmd_*.py` module in this package is a verb group (found at start-up, so a new
# group needs no registration here). Order decides the order in `memdesk --help`.
COMMAND_ORDER: tuple[str, ...] = (
    "store",
    "files",
    "app",
    "extract",
    "sources",
    "search",
    "context",
    "mcp",
    "consolidate",
    "stats",
    "git",
)


def command_modules() -> list[str]:
    names = [
        m.name for m in pkgutil.iter_modules(cli_package.__path__) if m.name.startswith("cmd_")
    ]
    rank = {name: i for i, name in enumerate(COMMAND_ORDER)}
    names.sort(key=lambda n: (rank.get(n.removeprefix("cmd_"), len(rank)), n))
    return [f"memdesk.cli.{name}" for name in names]


def build_parser(verb: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `verb`, first try a parser of just the module named after
    it (`context` -> cmd_context.py): a hook such as `memdesk context` then imports what
    it runs and not every verb's dependencies (the extraction rules, the guard...)."""
    if verb:
        own = f"memdesk.cli.cmd_{verb.replace('-', '_')}"
        if own in command_modules():
            parser, sub = _bare_parser()
            importlib.import_module(own).register(sub)
            if _is_verb(verb, parser):
                return parser
    parser, sub = _bare_parser()
    for name in command_modules():
        importlib.import_module(name).register(sub)
    return parser


def _bare_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = argparse.ArgumentParser(
        prog="memdesk",
        description="Review, curate and preview the long-term memory AI agents keep.",
    )
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument(
        "--dir", default=".", help="working directory holding MEMORY.md and .memdesk/ (default: .)"
    )
    sub = parser.add_subparsers(dest="verb", metavar="VERB")
    return parser, sub


class _VersionAction(argparse.Action):
    """argparse's `version` action, with the version looked up only when asked for:
    reading the package metadata costs every other run (the agents' hooks) time."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(
            option_strings,
            dest=argparse.SUPPRESS,
            default=argparse.SUPPRESS,
            nargs=0,
            help="show program's version number and exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        sys.stdout.write(f"memdesk {_version()}\n")
        parser.exit()


def _version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("memdesk")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return "unknown"


def _is_verb(word: str, parser: argparse.ArgumentParser) -> bool:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return word in action.choices
    return False


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # `memdesk` or `memdesk DIR` (no verb) opens the TUI on that directory.
    positional = _positionals(args_list)
    parser = build_parser(positional[0] if positional else None)
    if not positional or not _is_verb(positional[0], parser):
        if any(a in ("-h", "--help", "--version") for a in args_list):
            if "--version" in args_list:
                print(f"memdesk {_version()}")
                return 0
            parser.print_help()
            return 0
        if positional and (len(positional) > 1 or not Path(positional[0]).is_dir()):
            print(
                f"memdesk: {positional[0]!r} is neither a verb nor a directory "
                "(see `memdesk --help`)",
                file=sys.stderr,
            )
            return 2
        args_list = [*args_list, "open"] if not positional else _as_open(args_list, positional[0])
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    ctx = CliContext(args)
    if getattr(args, "raw_output", False):  # the desk draws, the MCP server speaks JSON-RPC
        code = _run(args, ctx)
        if ctx.leave is not None:
            ctx.leave(code)  # the desk's quick way out (tui/run.py)
        return code
    saved = sys.stdout, sys.stderr
    safe_output.install(sys)  # a stored terminal escape is shown, never run
    try:
        return _run(args, ctx)
    finally:
        sys.stdout, sys.stderr = saved


def _run(args: argparse.Namespace, ctx: CliContext) -> int:
    try:
        code = int(args.func(args, ctx) or 0)
        for warning in ctx.warnings():
            print(f"memdesk: warning: {warning}", file=sys.stderr)
        return code
    except (UserError, UnsafePath) as exc:  # UnsafePath: a refused link or id, one line
        print(f"memdesk: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `memdesk list | head`: the reader left; not an error
        sys.stderr.close()
        return 0
    except Exception as exc:  # the boundary: one line, never a traceback
        print(f"memdesk: {describe_error(exc)}", file=sys.stderr)
        if os.environ.get("MEMDESK_DEBUG"):
            import traceback

            traceback.print_exc()
        return 1


def _positionals(args_list: list[str]) -> list[str]:
    """Words that are not options or the value of --dir."""
    out: list[str] = []
    skip = False
    for word in args_list:
        if skip:
            skip = False
            continue
        if word == "--dir":
            skip = True
            continue
        if not word.startswith("-"):
            out.append(word)
    return out


def _as_open(args_list: list[str], directory: str) -> list[str]:
    rest = [a for a in args_list if a != directory]
    return [*rest, "open", directory]


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
