"""`memdesk consolidate`: the seed 001 consolidation run as a reviewable plan.

memdesk consolidate                 show the plan (applies safe items if
                                    [consolidation] auto_apply_safe = true)
memdesk consolidate --dry-run       show the plan, write nothing
memdesk consolidate --dry-run --json   a JSON list of proposals
memdesk consolidate --apply [--only ID ...]   apply all / some proposals (one undoable batch)
memdesk consolidate --check [--message TEXT]   is a consolidation due, and why
memdesk consolidate --metrics --json           run metrics (latency p95, compression...)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memdesk.cli.context import CliContext, UserError

ACTOR = "cli"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "consolidate",
        help="merge duplicates, supersede contradictions, prune stale memory (as a plan)",
        description=(
            "Run orient / gather / consolidate / prune and print the proposals with their "
            "reasons. Nothing changes without --apply (except safe expiries when "
            "[consolidation] auto_apply_safe = true and --dry-run is not given)."
        ),
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="print the plan; write nothing")
    mode.add_argument("--apply", action="store_true", help="apply the plan (or --only some of it)")
    mode.add_argument("--check", action="store_true", help="only say whether consolidation is due")
    mode.add_argument("--metrics", action="store_true", help="print consolidation metrics")
    p.add_argument(
        "--only",
        nargs="+",
        metavar="ID",
        help="with --apply: only these proposal ids (or prefixes)",
    )
    p.add_argument("--explicit", action="store_true", help="an explicit request (trigger)")
    p.add_argument("--message", default="", help="a user message to test for an explicit request")
    p.add_argument("--if-due", action="store_true", help="with --apply: do nothing unless due")
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=run_consolidate)


def _services(store: Any, settings: Any) -> Any:
    """The search model (when one is installed) unless settings say `similarity = "lexical"`."""
    if settings.similarity == "lexical":
        return None
    from types import SimpleNamespace

    from memdesk.core.search import SearchService

    return SimpleNamespace(search=SearchService.for_store(store))


def run_consolidate(args: argparse.Namespace, ctx: CliContext) -> int:
    from memdesk.core.consolidate import (
        ConsolidationError,
        apply,
        build_plan,
        consolidation_settings,
        load_state,
        metrics_summary,
        should_consolidate,
    )
    from memdesk.core.context.settings import SettingsError

    if args.only and not args.apply:
        raise UserError("--only needs --apply")
    store = ctx.store()
    try:
        settings = consolidation_settings(store.settings)
    except SettingsError as exc:
        raise UserError(str(exc)) from exc
    if args.metrics:
        summary = metrics_summary(store)
        if args.json:
            ctx.print_json(summary)
        else:
            _print_metrics(summary)
        return 0
    if args.check:
        decision = should_consolidate(
            store,
            load_state(store.meta_dir),
            settings,
            explicit=args.explicit,
            message=args.message,
        )
        if args.json:
            ctx.print_json(decision.to_json())
        else:
            print(("due: " + "; ".join(decision.reasons)) if decision.due else "not due")
        return 0
    try:
        plan = build_plan(
            store,
            _services(store, settings),
            settings=settings,
            explicit=args.explicit,
            message=args.message,
        )
    except SettingsError as exc:
        raise UserError(str(exc)) from exc
    if args.apply and args.if_due and not plan.trigger.get("due"):
        if args.json:
            ctx.print_json({"due": False, "applied": []})
        else:
            print("not due; nothing applied")
        return 0
    accepted: list[str] | None = None
    if args.apply:
        accepted = args.only
    elif not args.dry_run and settings.auto_apply_safe and plan.safe:
        accepted = [p.id for p in plan.safe]
    if accepted is None and not args.apply:
        if args.json:
            ctx.print_json([p.to_json() for p in plan.proposals])
        else:
            _print_plan(plan)
        return 0
    try:
        result = apply(store, plan, accepted, actor=ACTOR, settings=settings)
    except KeyError as exc:
        raise UserError(str(exc.args[0]) + " (see `memdesk consolidate --dry-run`)") from exc
    except ConsolidationError as exc:
        if exc.warning:
            print(f"memdesk: warning: {exc.warning}", file=sys.stderr)
        raise UserError(str(exc)) from exc
    if args.json:
        ctx.print_json(result.to_json() | {"plan": [p.to_json() for p in plan.proposals]})
    else:
        if not args.apply:
            _print_plan(plan)
            print()
        m = result.metrics
        print(
            f"applied {len(result.applied)} of {len(plan.proposals)} proposal(s): "
            f"{m.added} added, {m.merged} merged, {m.superseded} superseded, "
            f"{m.expired} expired, {m.deleted} deleted; memory {m.before_size} -> "
            f"{m.after_size} bytes (ratio {m.compression_ratio:.3f}); `memdesk undo` reverses it"
        )
    return 0


def _print_plan(plan: Any) -> None:
    trigger = plan.trigger
    due = "due: " + "; ".join(trigger["reasons"]) if trigger.get("due") else "not due"
    print(f"Consolidation plan — {len(plan.proposals)} proposal(s) ({due})")
    for note in plan.notes:
        print(f"  note: {note}")
    o = plan.orientation
    if o:
        print(
            f"  orient: scope {o['scope']} (project relevance {o['relevance']:.2f}), "
            f"{o['recent_entries']} recent entries, {len(o['sessions'])} session(s); "
            f"topics: {', '.join(o['topics']) or '-'}"
        )
    if plan.gathered:
        print("  gather: " + ", ".join(f"{k} {v}" for k, v in sorted(plan.gathered.items())))
    if not plan.proposals:
        print("nothing to do")
        return
    print()
    for p in plan.proposals:
        flag = "  [safe]" if p.safe else ""
        print(f"{p.id}  {p.action:<9} {' '.join(p.entry_ids)}{flag}")
        print(f"    why: {p.reason}")
        for line in p.evidence:
            print(f"      - {line}")
    print()
    print("apply all: memdesk consolidate --apply   some: --apply --only ID ...")


def _print_metrics(summary: dict[str, Any]) -> None:
    if not summary["runs"]:
        print("no consolidation applied yet")
        return
    lat, comp, totals = summary["latency_ms"], summary["compression_ratio"], summary["totals"]
    print(f"runs: {summary['runs']} (last {summary['last_run']})")
    print(f"latency ms: last {lat['last']}, mean {lat['mean']}, p95 {lat['p95']}")
    print(f"compression ratio (after/before): last {comp['last']}, mean {comp['mean']}")
    print("totals: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    if summary["consecutive_failures"]:
        print(f"consecutive failures: {summary['consecutive_failures']} ({summary['last_error']})")
