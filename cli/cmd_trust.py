"""`memdesk trust`: allow what this working directory's settings ask to run, on this machine.

A repository's `.memdesk/settings.toml` may name an extractor command or callable, or
transcript files outside the working directory. None of it runs until the person allows
it here; the record is kept outside the repository (see `memdesk.core.trust`).
"""

from __future__ import annotations

import argparse
import os

from memdesk.cli.context import CliContext, UserError
from memdesk.core.context.settings import SettingsError
from memdesk.core.memfiles.outside import outside_requests
from memdesk.core.trust import TrustError, allow, load_records, requests, revoke, trust_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "trust",
        help="allow the extractor command (and outside transcripts) the settings name",
        description="Allow, on this machine, what .memdesk/settings.toml asks to run or "
        "read outside the working directory: [extractor] command or callable, and "
        "[sources] transcripts outside it (by their text or through a link), and the "
        "agents' folders outside it ([sources] homes, [memfiles] claude_dir, codex_home). "
        "A changed setting needs allowing again.",
    )
    group = p.add_mutually_exclusive_group()
    group.add_argument("--list", action="store_true", help="list every allowed directory")
    group.add_argument("--revoke", action="store_true", help="forget what was allowed here")
    p.add_argument("--json", action="store_true", help="what is allowed, as JSON")
    p.set_defaults(func=run_trust)


def run_trust(args: argparse.Namespace, ctx: CliContext) -> int:
    try:
        if args.list:
            return _list(args, ctx)
        root = os.path.realpath(ctx.dir)
        if args.revoke:
            done = revoke(root)
            if args.json:
                ctx.print_json({"dir": root, "revoked": done, "file": str(trust_file())})
            else:
                print(f"revoked trust for {root}" if done else f"nothing was allowed for {root}")
            return 0
        store = ctx.store()
        try:
            wanted = requests(store.settings, store.root)
            wanted += outside_requests(store.meta_dir, store.root)
        except SettingsError as exc:
            raise UserError(str(exc)) from exc
        record = allow(store.root, wanted)
    except TrustError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        ctx.print_json(record.to_dict() | {"file": str(trust_file())})
        return 0
    if not wanted:
        print(f"{record.dir}: the settings ask to run nothing; nothing to allow")
    for line in record.what:
        print(f"allowed: {line}")
    return 0


def _list(args: argparse.Namespace, ctx: CliContext) -> int:
    records = load_records()
    if args.json:
        ctx.print_json({"file": str(trust_file()), "allow": [r.to_dict() for r in records]})
        return 0
    if not records:
        print(f"nothing allowed ({trust_file()})")
    for record in records:
        print(f"{record.dir}  ({record.time})")
        for line in record.what or ["(nothing)"]:
            print(f"  {line}")
    return 0
