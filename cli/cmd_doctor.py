"""`memdesk doctor [--json]`: report risky state in the working directory; change nothing.

Exit status 0 when nothing risky was found, 1 when something was (notes alone are fine).
"""

from __future__ import annotations

import argparse

from memdesk.cli.context import CliContext
from memdesk.core.doctor import examine


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="report risky state: links out, untrusted commands, open permissions, secrets",
        description="Looks for symbolic links in and around .memdesk/ and MEMORY.md, forged "
        "ids, an extractor command not allowed on this machine, private files others can "
        "read, and secrets in entries and the journal. Reports only; exit 1 when risky.",
    )
    p.add_argument("--json", action="store_true", help="the findings as one JSON object")
    p.set_defaults(func=run_doctor)


def run_doctor(args: argparse.Namespace, ctx: CliContext) -> int:
    report = examine(ctx.dir)
    if args.json:
        ctx.print_json(report.to_json())
    else:
        for finding in report.findings:
            print(finding)
        if not report.risky:
            print(f"{report.root}: nothing risky found")
    return 1 if report.risky else 0
