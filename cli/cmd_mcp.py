"""`memdesk mcp`: serve this working directory's memory to agents over MCP (stdio)."""

from __future__ import annotations

import argparse
import sys

from memdesk.cli.context import CliContext, UserError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mcp",
        help="MCP server over stdio: agents propose, search and load memory",
        description=(
            "Run an MCP server on stdin/stdout for an agent (Claude Code, Codex, Gemini CLI, "
            "Cursor...). Tools: remember (a candidate for review), search, context, get, "
            "pending. Creates .memdesk/ in --dir when it is missing. See docs/mcp.md."
        ),
    )
    p.set_defaults(func=run_mcp, raw_output=True)


def run_mcp(args: argparse.Namespace, ctx: CliContext) -> int:
    if not ctx.dir.is_dir():
        raise UserError(f"{ctx.dir}: no such directory")
    created = not (ctx.dir / ".memdesk").is_dir()
    store = ctx.store(create=created)
    if created:  # stdout is the protocol's: people read stderr
        print(f"memdesk: initialised {store.meta_dir}", file=sys.stderr)
    try:
        from memdesk.cli.mcp_server import serve
    except ImportError as exc:
        raise UserError(f"the MCP server needs the `mcp` package ({exc})") from exc
    serve(store)
    return 0
