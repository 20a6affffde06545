"""Store verbs: init, add, list, show, approve, reject, edit, supersede, expire, delete,
undo, redo, render, ingest, import, export, problems."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from memdesk.cli.context import CliContext, UserError, typed_file, whole_number
from memdesk.core.entry import CONFIDENCES, KINDS, SCOPES, STATUSES, Entry, EntryError, Source
from memdesk.core.entry_view import describe
from memdesk.core.importing import export_entries, looks_like_markdown, read_import_file
from memdesk.core.merge import MergeConflict
from memdesk.core.store import GuardRefused, Store, StoreError

ACTOR = "cli"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("init", help="create .memdesk/ in the working directory")
    p.set_defaults(func=run_init)

    p = sub.add_parser("add", help="add an entry (a candidate unless --status says otherwise)")
    p.add_argument("text", help="the summary: one concise statement")
    _entry_options(p)
    p.add_argument("--fact", action="append", default=[], help="a supporting fact (repeatable)")
    p.add_argument("--json", action="store_true", help="print the new entry as JSON")
    p.set_defaults(func=run_add)

    p = sub.add_parser("list", help="list entries")
    p.add_argument("--status", choices=STATUSES, action="append", help="repeatable")
    p.add_argument("--kind", choices=KINDS, action="append", help="repeatable")
    p.add_argument("--scope", choices=SCOPES, action="append", help="repeatable")
    p.add_argument("--json", action="store_true", help="a JSON array of entries, every field")
    p.set_defaults(func=run_list)

    p = sub.add_parser("show", help="show one entry with its history")
    p.add_argument("id", help="the entry's id or any unique prefix of it")
    p.add_argument(
        "--json", action="store_true", help="the entry, its history and its links as JSON"
    )
    p.set_defaults(func=run_show)

    for verb, text in (
        ("approve", "confirm candidates"),
        ("reject", "reject candidates (undoable)"),
        ("expire", "mark entries expired"),
        ("delete", "delete entries (undoable)"),
    ):
        p = sub.add_parser(verb, help=text)
        p.add_argument("ids", nargs="+", metavar="ID", help="ids or unique prefixes")
        p.set_defaults(func=run_bulk, verb=verb)

    p = sub.add_parser("edit", help="change fields of an entry")
    p.add_argument("id", help="the entry's id or any unique prefix of it")
    p.add_argument("--summary", help="the new summary")
    _entry_options(p, defaults=False)
    p.add_argument("--facts", nargs="*", help="replace the facts")
    p.add_argument("--tags", nargs="*", help="replace the tags")
    p.add_argument(
        "--clear-flag",
        choices=("suspicious", "review"),
        help="clear the guard's flag: you have read the entry and trust it (as `clear-flag`)",
    )
    p.add_argument(
        "--base-version",
        type=whole_number(1, 2**53),
        help="the version you read; a newer version on disk is 3-way merged",
    )
    p.add_argument("--json", action="store_true", help="print the edited entry as JSON")
    p.set_defaults(func=run_edit)

    p = sub.add_parser("supersede", help="NEW replaces OLD (OLD becomes superseded)")
    p.add_argument("old", help="the entry being replaced")
    p.add_argument("new", help="the entry that replaces it")
    p.set_defaults(func=run_supersede)

    p = sub.add_parser("undo", help="undo the last change made by a person")
    p.set_defaults(func=run_undo, verb="undo")
    p = sub.add_parser("redo", help="redo the last undone change")
    p.set_defaults(func=run_undo, verb="redo")

    p = sub.add_parser("render", help="rewrite MEMORY.md and managed memory files from the store")
    p.add_argument(
        "--order",
        action="store_true",
        help="order managed files so what matters most stays above their agent's load limit",
    )
    p.set_defaults(func=run_render)

    p = sub.add_parser("ingest", help="turn lines others added to MEMORY.md into candidates")
    p.add_argument("--json", action="store_true", help="the new candidates and refusals as JSON")
    p.set_defaults(func=run_ingest)

    p = sub.add_parser("import", help="import entries from a JSON array or JSONL file")
    p.add_argument("file", help="a JSON array or JSONL file of entries (an export)")
    p.add_argument(
        "--json", action="store_true", help="imported ids, duplicates and invalid items as JSON"
    )
    p.set_defaults(func=run_import)

    p = sub.add_parser("export", help="print every entry")
    p.add_argument(
        "--format", choices=("json", "jsonl", "md"), default="json", help="the output format"
    )
    p.set_defaults(func=run_export)

    p = sub.add_parser("problems", help="list damaged files and open conflicts")
    p.add_argument("--json", action="store_true", help="the problems as one JSON object")
    p.set_defaults(func=run_problems)


def _entry_options(p: argparse.ArgumentParser, defaults: bool = True) -> None:
    p.add_argument(
        "--kind", choices=KINDS, default="project" if defaults else None, help="what it is"
    )
    p.add_argument(
        "--scope", choices=SCOPES, default="project" if defaults else None, help="who it is for"
    )
    p.add_argument(
        "--status",
        choices=STATUSES,
        default="candidate" if defaults else None,
        help="where it is in review",
    )
    p.add_argument(
        "--confidence",
        choices=CONFIDENCES,
        default="medium" if defaults else None,
        help="how sure the writer is",
    )
    p.add_argument("--valid-until", metavar="DATE", help="YYYY-MM-DD")
    p.add_argument("--tag", action="append", default=[], dest="tag", help="a tag (repeatable)")


def _guarded(fn):  # type: ignore[no-untyped-def]
    """Store errors are user errors: one line, exit 1."""

    def wrapper(args: argparse.Namespace, ctx: CliContext) -> int:
        try:
            return fn(args, ctx)
        except MergeConflict as exc:
            path = ctx.store().save_conflict(exc.conflict)
            raise UserError(f"{exc}; saved for resolution in {path}") from exc
        except (StoreError, EntryError, GuardRefused) as exc:
            raise UserError(str(exc)) from exc

    return wrapper


@_guarded
def run_init(args: argparse.Namespace, ctx: CliContext) -> int:
    from memdesk.core.store import is_store

    if is_store(ctx.dir):
        store = ctx.store()  # opened, not laid out: a read-only store is only read
        reason = store.lock.read_only_reason
        if reason:
            print(f"already initialised: {store.meta_dir} (read-only here: {reason})")
            return 0
        store = ctx.store(create=True)  # lays out what is missing
        print(f"already initialised: {store.meta_dir}")
        return 0
    store = ctx.store(create=True)
    print(f"initialised {store.meta_dir}")
    _warn_secrets_left(store.root)
    return 0


def _warn_secrets_left(root: Path) -> None:
    """An agent file adopted on init keeps its own secrets: say so (they are not printed)."""
    from memdesk.core.confinement import META_DIR
    from memdesk.core.memfiles.secrets_left import secrets_in_managed_files, warning
    from memdesk.core.safepath import shown

    for found in secrets_in_managed_files(root, root / META_DIR):
        print(f"memdesk: {warning(found, shown(found.path, root))}", file=sys.stderr)


@_guarded
def run_add(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    entry = Entry.from_dict(
        {
            "summary": args.text,
            "kind": args.kind,
            "scope": args.scope,
            "status": args.status,
            "confidence": args.confidence,
            "valid_until": args.valid_until,
            "facts": args.fact,
            "tags": args.tag,
        }
    )
    entry.source = Source(origin="cli")
    added = store.add(entry, actor=ACTOR)
    if args.json:
        ctx.print_json(added.to_json())
    else:
        print(added.id)
    return 0


def _filtered(store: Store, args: argparse.Namespace) -> list[Entry]:
    entries = store.entries()
    if args.status:
        entries = [e for e in entries if e.status in args.status]
    if args.kind:
        entries = [e for e in entries if e.kind in args.kind]
    if args.scope:
        entries = [e for e in entries if e.scope in args.scope]
    return entries


@_guarded
def run_list(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    entries = _filtered(store, args)
    if args.json:
        ctx.print_json([e.to_json() for e in entries])
        return 0
    for e in entries:
        flag = " !" if e.suspicious else ""
        print(
            f"{e.id}  {e.status:<10} {e.kind:<10} {e.scope:<9} {e.confidence:<6}{flag} {e.summary}"
        )
    for problem in store.problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 0


@_guarded
def run_show(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    entry = store.get(store.resolve_id(args.id))
    described = describe(store, entry)
    history = described["history"]
    if args.json:
        ctx.print_json(described)
        return 0
    data = entry.to_json()
    for key, value in data.items():
        if key == "source":
            for skey, svalue in value.items():
                if svalue:
                    print(f"source.{skey}: {svalue}")
        elif value not in (None, "", [], {}):
            print(f"{key}: {value}")
    print("history:")
    for item in history:
        changed = ", ".join(sorted(item["changes"])) or "-"
        print(
            f"  {item['time']}  {item['actor']:<9} {item['op']:<10} "
            f"v{item['version_before'] or '-'} -> v{item['version_after'] or '-'}  {changed}"
        )
    return 0


@_guarded
def run_bulk(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    ids = [store.resolve_id(i) for i in args.ids]
    done = getattr(store, args.verb)(ids, actor=ACTOR)
    for entry in done:
        print(f"{args.verb}: {entry.id}")
    return 0


@_guarded
def run_edit(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    entry_id = store.resolve_id(args.id)
    changes: dict[str, Any] = {}
    for name in (
        "summary",
        "kind",
        "scope",
        "status",
        "confidence",
        "valid_until",
        "facts",
        "tags",
    ):
        value = getattr(args, name, None)
        if value is not None:
            changes[name] = value
    if not changes and not args.tag and not args.clear_flag:
        raise UserError("nothing to change: give --summary, --kind, --scope, ... ")
    # --tag adds to the tags on disk: read them and write under one hold of the lock,
    # or a tag another process added in between is lost.
    with store.lock.held():
        if args.tag:
            changes["tags"] = [*changes.get("tags", store.get(entry_id).tags), *args.tag]
        entry = store.get(entry_id)
        if changes:
            entry = store.edit(entry_id, changes, base_version=args.base_version, actor=ACTOR)
    if args.clear_flag:
        entry = store.clear_flag(entry_id, args.clear_flag, actor=ACTOR)
    if args.json:
        ctx.print_json(entry.to_json())
    else:
        print(f"edited: {entry.id} (version {entry.version})")
    return 0


@_guarded
def run_supersede(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    old, new = store.supersede(store.resolve_id(args.old), store.resolve_id(args.new), actor=ACTOR)
    print(f"{new.id} supersedes {old.id}")
    return 0


@_guarded
def run_undo(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    result = store.undo(actor=ACTOR) if args.verb == "undo" else store.redo(actor=ACTOR)
    print(f"{args.verb}: {result.op} of {', '.join(result.ids)}")
    return 0


@_guarded
def run_render(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    ordered: list[str] = []
    if args.order:
        from memdesk.core.memfiles.sync import order_files

        ordered = [r.path for r in order_files(store) if r.written]
    changed = store.render_memory_md()
    for path in ordered:
        print(f"{path} ordered")
    print(f"{store.memory_file.path} {'rewritten' if changed else 'already current'}")
    return 0


@_guarded
def run_ingest(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    added = store.ingest_memory_md()
    if added:
        store.render_memory_md()
    if args.json:
        ctx.print_json([e.to_json() for e in added])
    else:
        for entry in added:
            print(f"candidate: {entry.id}  {entry.summary}")
        print(f"{len(added)} new candidate(s) from MEMORY.md")
    return 0


@_guarded
def run_import(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    path = typed_file(args.file, ctx.dir)
    if path.is_dir():
        raise UserError(f"{path}: is a folder; import takes one JSON or JSONL file")
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    if looks_like_markdown(path):
        raise UserError(
            f"{path}: a Markdown file, not JSON entries; use `memdesk adopt {path}` to manage "
            f"it as an agent's memory file, or `memdesk ingest` for lines added to MEMORY.md"
        )
    result = read_import_file(path)
    added: list[Entry] = []
    refused: list[str] = []
    duplicates: list[str] = []
    # Like ingest and extract: a text the store holds (or rejected) is not added again,
    # so importing a file twice, or an export back, doubles nothing.
    known = store.known_hashes()
    with store.batch(ACTOR, "import"):
        for position, entry in result.entries:
            if entry.text_hash in known:
                duplicates.append(f"{path}: item {position}: already in the store")
                continue
            try:
                added.append(store.add(entry, actor=ACTOR))
            except GuardRefused as exc:
                refused.append(f"{path}: item {position}: {exc}")
                continue
            known.add(entry.text_hash)
    errors = [*result.errors, *refused]
    if args.json:
        ctx.print_json(
            {"imported": [e.id for e in added], "errors": errors, "duplicates": duplicates}
        )
    else:
        for error in errors:
            print(error, file=sys.stderr)
        skipped = f", {len(duplicates)} duplicate(s) skipped" if duplicates else ""
        print(
            f"imported {len(added)} entr{'y' if len(added) == 1 else 'ies'}, "
            f"{len(errors)} invalid{skipped}"
        )
    return 1 if errors and not added else 0


@_guarded
def run_export(args: argparse.Namespace, ctx: CliContext) -> int:
    store = ctx.store()
    sys.stdout.write(export_entries(store.entries(), args.format))
    return 0


@_guarded
def run_problems(args: argparse.Namespace, ctx: CliContext) -> int:
    from memdesk.core.confinement import layout_problems

    refused = layout_problems(ctx.dir)
    if refused:  # the store does not open: say everything it refuses, then fail
        if args.json:
            ctx.print_json(
                {
                    "problems": [p.to_json() for p in refused],
                    "conflicts": [],
                    "journal_skipped_lines": [],
                }
            )
        else:
            for problem in refused:
                print(problem)
        return 1
    store = ctx.store()
    problems = store.problems
    conflicts = store.open_conflicts()
    settings = store.settings_problem()
    # A file that is TOML may still hold a wrong value or an unknown table: each such
    # table is named here too (the verb that needs it stops with the same line).
    tables = [] if settings else _settings_table_problems(ctx.dir)
    memory_md = store.memory_file.conflict_problem()
    store.journal.records()  # a full read finds the lines that are not records
    if args.json:
        ctx.print_json(
            {
                "problems": [p.to_json() for p in problems],
                "conflicts": [c.to_json() for c in conflicts],
                "journal_skipped_lines": store.journal.skipped_lines,
                "settings": settings,
                "settings_tables": tables,
                "memory_md": memory_md,
            }
        )
        return 0
    for line in (settings, *tables, memory_md):
        if line:
            print(line)
    for line in store.journal.skipped_lines:
        print(f"{store.journal.path}:{line}: skipped: not a journal record")
    for problem in problems:
        print(problem)
    for conflict in conflicts:
        print(f"conflict ({conflict.kind}): {conflict.entry_id}: {', '.join(conflict.field_names)}")
    if not (
        problems or conflicts or settings or tables or memory_md or store.journal.skipped_lines
    ):
        print("no problems")
    return 0


def _settings_table_problems(root: Path) -> list[str]:
    """One line per table of settings.toml that holds its defaults because it is wrong."""
    from memdesk.core.settings import load  # every component's parser: only when asked

    return list(load(root).problems)


def dump(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, default=str)
