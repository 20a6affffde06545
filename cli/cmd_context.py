"""`memdesk context`: print the memory block an agent would be given (hooks call this)."""

from __future__ import annotations

import argparse
import sys

from memdesk.cli.context import CliContext, UserError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "context",
        help="print the memory block an agent would receive",
        description=(
            "Assemble memory for a purpose under a budget and print it. Defaults come from "
            "[context] in .memdesk/settings.toml."
        ),
    )
    p.add_argument("--purpose", help="coding, chat or a purpose from settings")
    p.add_argument("--budget", type=int, help="hard limit, in --unit (default from settings)")
    p.add_argument("--unit", choices=("tokens", "chars"), help="budget unit")
    p.add_argument("--query", help="the user's next message: ranks and filters by relevance")
    p.add_argument(
        "--scope",
        action="extend",
        nargs="+",
        dest="scopes",
        metavar="S",
        help="only these scopes: user, project, workspace, session, global",
    )
    p.add_argument("--format", choices=("agent", "markdown"), help="output format")
    p.add_argument(
        "--lexical",
        action="store_true",
        help="rank a --query by word/character overlap only (skip the search index)",
    )
    p.add_argument(
        "--candidates",
        action="store_true",
        default=None,
        help="include unconfirmed candidates (not low-confidence ones)",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="after the block, list each entry put in (why, and its kind, scope, source and "
        "time) and each left out (why)",
    )
    p.add_argument(
        "--metadata",
        action="store_true",
        default=None,
        help="write each entry's kind, scope, source and time into the block "
        "(default: context.metadata)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run_context)


def run_context(args: argparse.Namespace, ctx: CliContext) -> int:
    from memdesk.core.context.request import (
        ContextRequestError,
        assemble_for_store,
        hybrid_scorer,
    )

    store = ctx.store()
    if args.budget is not None and args.budget < 0:
        raise UserError(f"--budget must be >= 0, got {args.budget}")
    search = None
    if args.query and not args.lexical:
        search = hybrid_scorer(
            store, on_warning=lambda text: print(f"memdesk: {text}", file=sys.stderr)
        )
    try:
        result = assemble_for_store(
            store,
            purpose=args.purpose,
            query=args.query,
            budget=args.budget,
            unit=args.unit,
            scopes=args.scopes,
            include_candidates=args.candidates,
            format=args.format,
            search=search,
            metadata=args.metadata,
        )
    except ContextRequestError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        ctx.print_json(result.to_json())
        return 0
    if result.text:
        sys.stdout.write(result.text + "\n")
    if args.explain:
        sys.stdout.write(
            f"\n# {result.tokens}/{result.budget} {result.unit} ({result.counter}); "
            f"{len(result.included)} included, {len(result.excluded)} left out\n"
        )
        sys.stdout.write(result.explain_included() + "\n\n")
        sys.stdout.write(result.explain() + "\n")
    return 0
