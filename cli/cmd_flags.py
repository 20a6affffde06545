"""`clear-flag`: a person vouches for an entry the guard flagged.

The guard flags text that tries to instruct the agent (`suspicious`: never in a context
block; `review`: look before approving). Clearing is explicit, journaled and undoable,
and holds only for the text as it is now: an edit that changes it is screened again.
"""

from __future__ import annotations

import argparse

from memdesk.cli.context import CliContext, UserError
from memdesk.core.guard import FLAG_NAMES
from memdesk.core.store import StoreError

ACTOR = "cli"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "clear-flag",
        help="clear the guard's flag on entries you have read (suspicious / review)",
        description=(
            "Clear the guard's flag on entries a person has read and trusts. A suspicious "
            "entry never reaches a context block until its flag is cleared; the clearance "
            "lapses when the entry's text changes."
        ),
    )
    p.add_argument("ids", nargs="+", metavar="ID", help="ids or unique prefixes")
    p.add_argument("--flag", choices=FLAG_NAMES, default="suspicious", help="which flag")
    p.add_argument("--json", action="store_true", help="print the entries as JSON")
    p.set_defaults(func=run_clear_flag)


def run_clear_flag(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    done = []
    try:
        for prefix in args.ids:
            done.append(store.clear_flag(store.resolve_id(prefix), args.flag, actor=ACTOR))
    except StoreError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        ctx.print_json([entry.to_json() for entry in done])
    else:
        for entry in done:
            print(f"cleared {args.flag}: {entry.id}")
    return 0
