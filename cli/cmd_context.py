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
    from memdesk.core.context import SettingsError, assemble, load_settings
    from memdesk.core.entry import SCOPES

    store = ctx.store()
    try:
        settings = load_settings(store.root)
        if args.purpose and args.purpose not in settings.context.purpose_names():
            raise UserError(
                f"unknown purpose {args.purpose!r}; allowed: "
                f"{', '.join(settings.context.purpose_names())}"
            )
    except SettingsError as exc:
        raise UserError(str(exc)) from exc
    if args.budget is not None and args.budget < 0:
        raise UserError(f"--budget must be >= 0, got {args.budget}")
    bad = [s for s in args.scopes or [] if s not in SCOPES]
    if bad:
        raise UserError(f"unknown scope {bad[0]!r}; allowed: {', '.join(SCOPES)}")
    try:
        result = assemble(
            store.entries(),
            purpose=args.purpose,
            query=args.query,
            budget=args.budget,
            unit=args.unit,
            scopes=args.scopes,
            include_candidates=args.candidates,
            settings=settings,
            search=None if args.lexical else _search_for(store, args.query),
            format=args.format,
            metadata=args.metadata,
        )
    except ValueError as exc:
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


def _search_for(store, query: str | None):  # -> SearchFn | None
    """Hybrid search (memdesk.core.search) when there is a query and it can open; the
    assembler's built-in lexical score otherwise."""
    if not query:
        return None
    try:
        from memdesk.core.search import SearchService
    except ImportError:
        return None
    from memdesk.core.context.query import search_service_scorer

    try:
        service = SearchService.for_store(store)
    except Exception as exc:  # a broken index must not stop context printing
        print(f"memdesk: search unavailable ({exc}); using lexical relevance", file=sys.stderr)
        return None
    return search_service_scorer(service)
