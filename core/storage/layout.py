"""The `.memdesk/` folder: what `init` lays down, and when a store refuses to open."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memdesk.core.confinement import layout_problems
from memdesk.core.storage.errors import StoreError

# The TOML parser and the writers load where they are used: checking that a store opens
# is on the path of every agent's SessionStart hook (a kept context block), which reads
# no TOML.

META_DIR = ".memdesk"
DEFAULT_SETTINGS = """\
# memdesk settings for this working directory. Every key is optional.

[context]
purpose = "coding"       # coding | chat | a purpose defined under [context.purposes]
budget = 2000            # MEMORY.md and the default preview are limited to this
unit = "tokens"          # tokens | chars
"""


# What is local to one checkout (derived or in-flight) stays out of git.
GITIGNORE = """\
# derived from the entries, or local to this checkout
index/
lock
retired/
conflicts/
pending-batch.json
memory_md.json
ingest_state.json
"""
# The journal is append-only: a union merge keeps both branches' records. Entry files
# merge field by field with `memdesk merge-driver` once git is told about it (see
# `memdesk merge-driver --install`); without that, git's text merge leaves markers that
# memdesk offers as a conflict.
GITATTRIBUTES = """\
journal.jsonl merge=union
entries/*.toml merge=memdesk
"""


def lay_out(root: Path) -> None:
    """Make `root` (when its parent exists) and the `.memdesk/` folder in it; files
    already there are kept."""
    from memdesk.core.atomic import atomic_write_text

    if not root.exists() and root.parent.is_dir():
        root.mkdir()  # `init` on a new folder makes it, like `git init DIR`
    if not root.is_dir():
        raise StoreError(f"{root}: not a directory")
    refuse_layout(root)
    meta = root / META_DIR
    for sub in ("entries", "inbox", "index", "conflicts"):
        (meta / sub).mkdir(parents=True, exist_ok=True)
    for name, text in ((".gitignore", GITIGNORE), (".gitattributes", GITATTRIBUTES)):
        if not (meta / name).exists():
            atomic_write_text(meta / name, text)
    settings = meta / "settings.toml"
    if not settings.exists():
        atomic_write_text(settings, DEFAULT_SETTINGS)
    (meta / "journal.jsonl").touch()


def check_openable(root: Path) -> None:
    """StoreError unless `root` is a memdesk working directory that may be opened."""
    if not root.exists():
        raise StoreError(
            f"{root}: not a memdesk working directory (no such folder); `memdesk init` makes it"
        )
    if not (root / META_DIR).is_dir():
        raise StoreError(
            f"{root}: not a memdesk working directory (no {META_DIR}/); run `memdesk init`"
        )
    refuse_layout(root)


def refuse_layout(root: Path) -> None:
    """`.memdesk/` or something directly in it linked outside the working directory:
    every command would read or write there, so the store does not open."""
    refused = layout_problems(root)
    if refused:
        more = f" (and {len(refused) - 1} more; see `memdesk problems`)" if len(refused) > 1 else ""
        raise StoreError(f"{root / refused[0].path}: {refused[0].message}{more}")


def is_store(root: Path) -> bool:
    return (Path(root) / META_DIR).is_dir()


def read_settings(path: Path) -> dict[str, Any]:
    """`settings.toml` as raw TOML ({} when missing); StoreError naming the line when
    it cannot be read."""
    import tomllib

    from memdesk.core import plain_file
    from memdesk.core.toml_errors import describe_toml_error, loads_toml

    try:
        return loads_toml(plain_file.read_text(path))
    except FileNotFoundError:
        return {}
    except plain_file.NotPlainFile as exc:
        raise StoreError(str(exc)) from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise StoreError(describe_toml_error(path, exc)) from exc
