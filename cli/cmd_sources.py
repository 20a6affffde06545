"""`memdesk sources`: where the agents used in this directory keep their sessions."""

from __future__ import annotations

import argparse
from typing import Any

from memdesk.cli.context import CliContext, UserError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sources",
        help="list the agents' session files for this directory (--add: watch them)",
        description=(
            "Find the sessions the coding agents used in this working directory keep: Claude "
            "Code, Codex, Gemini CLI, Copilot CLI, Aider, SpecStory (see docs/formats.md). "
            "--add puts them into [sources] transcripts, so `extract --sources` and the desk "
            "read them as they grow."
        ),
    )
    p.add_argument("--json", action="store_true", help="print a JSON list of sources")
    p.add_argument(
        "--add", action="store_true", help="add them to [sources] transcripts in the settings"
    )
    p.set_defaults(func=run_sources)


def run_sources(args: argparse.Namespace, ctx: CliContext) -> int:
    from memdesk.core.context.settings import SettingsError
    from memdesk.core.extract.agent_sources import AgentHomes, find_agent_sources
    from memdesk.core.extract.settings import ExtractSettings, add_transcript_globs
    from memdesk.core.store import StoreError
    from memdesk.core.trust import (
        allow_also,
        allowed_folders,
        glob_leaves,
        transcripts_request,
    )

    store = ctx.store() if args.add else None
    root = store.root if store is not None else ctx.dir
    try:
        raw = store.settings if store is not None else _settings_if_any(ctx)
        named = ExtractSettings.from_mapping(raw).sources.homes
        # A folder outside that the repository's settings name: only if allowed here.
        homes = AgentHomes.resolve(allowed_folders(root, "sources.homes", named))
    except (SettingsError, StoreError) as exc:
        raise UserError(str(exc)) from exc
    found = find_agent_sources(root, homes)
    added: list[str] = []
    if args.add:
        try:
            added = add_transcript_globs(root, [g for s in found for g in s.globs])
        except (SettingsError, OSError) as exc:
            raise UserError(f"settings not changed: {exc}") from exc
        # The person added these on this machine: their sessions outside the working
        # directory may be read (a repository's own settings still need `memdesk trust`).
        outside = [g for g in added if glob_leaves(g, root)]
        if outside:
            allow_also(root, [transcripts_request(g) for g in outside])
    if args.json:
        records: list[dict[str, Any]] = [s.to_json() for s in found]
        if args.add:
            ctx.print_json({"sources": records, "added": added})
        else:
            ctx.print_json(records)
        return 0
    if not found:
        print(f"no agent sessions found for {root.resolve()}")
    for source in found:
        print(
            f"{source.agent:<12} {source.format:<12} {source.sessions:>4} session(s) "
            f"{_size(source.bytes):>8}  {source.path}"
        )
    if args.add:
        for glob in added:
            print(f"+ [sources] transcripts: {glob}")
        print(f"added {len(added)} source(s) to the settings" if added else "nothing new to add")
    return 0


def _settings_if_any(ctx: CliContext) -> Any:
    """Settings of the store in the directory, or none when it has no store yet."""
    try:
        return ctx.store().settings
    except UserError:
        return None


def _size(count: int) -> str:
    size = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{count} B"
