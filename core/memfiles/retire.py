"""Late appends to a replaced file: memdesk writes a managed file by rename, so an agent
that still holds the old file open keeps appending to the old inode. Before each
rename the old inode is hard-linked under `.memdesk/files/retired/`; what lands there
later is read on the next sync, and the link goes once nobody holds it open."""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path

from memdesk.core import plain_file
from memdesk.core.memfiles.manifest import Manifest, files_dir, manifest_path
from memdesk.core.memory_md import RETIRED_IDLE_SECONDS, open_inodes
from memdesk.core.safepath import leaves

# `<manifest name>.<inode>`, as `retire` names a link. Names come back from the
# manifest, which git may carry from someone else: anything else is never opened or
# deleted.
RETIRED_LINK = re.compile(r"[A-Za-z0-9._-]{1,80}-[0-9a-f]{10}\.[0-9]{1,20}")


def retired_dir(meta_dir: Path) -> Path:
    return files_dir(meta_dir) / "retired"


def retired_link(meta_dir: Path, name: str) -> Path | None:
    """The retired link called `name`, or None when the name is not one memdesk makes
    or the path would lead out of `.memdesk/` (a link planted there)."""
    if not RETIRED_LINK.fullmatch(name):
        return None
    path = retired_dir(meta_dir) / name
    return None if leaves(path, meta_dir) else path


def retire(meta_dir: Path, manifest: Manifest, read_bytes: int) -> None:
    """Link the file's current inode; `read_bytes` of it were already read."""
    path = manifest.file
    try:
        st = os.stat(path)
    except OSError:
        return
    folder = retired_dir(meta_dir)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{manifest_path(meta_dir, path).stem}.{st.st_ino}"
    if name in manifest.retired:
        return
    with contextlib.suppress(FileExistsError):
        os.link(path, folder / name)
    manifest.retired[name] = read_bytes


def drain(meta_dir: Path, manifest: Manifest) -> tuple[str, list[str]]:
    """(text appended to retired inodes since they were read, names now drained).
    Delete the drained links only after the manifest that forgets them is saved."""
    texts: list[str] = []
    drained: list[str] = []
    if not manifest.retired:
        return "", drained
    holders = open_inodes()
    for name, consumed in list(manifest.retired.items()):
        path = retired_link(meta_dir, name)
        try:
            if path is None:
                raise FileNotFoundError(name)  # forgotten, never followed
            st = os.stat(path)
            with plain_file.open_plain(path) as handle:
                handle.seek(consumed)
                data = handle.read()
        except OSError:
            del manifest.retired[name]
            continue
        still_open = (
            (st.st_dev, st.st_ino) in holders
            if holders is not None
            else time.time() - st.st_mtime < RETIRED_IDLE_SECONDS
        )
        complete = data if not still_open else data[: data.rfind(b"\n") + 1]
        text = complete.decode("utf-8", "replace")
        if text and not text.endswith("\n"):
            text += "\n"
        texts.append(text)
        manifest.retired[name] = consumed + len(complete)
        if not still_open:
            del manifest.retired[name]
            drained.append(name)
    return "".join(texts), drained


def release_idle(meta_dir: Path, manifest: Manifest) -> list[str]:
    """Names of retired links nobody holds open and nobody wrote to since they were read:
    no one can append to them any more, so they go now rather than at the next sync (a
    retired link is the agent's old file, secrets and all). Delete them (`forget`) after
    the manifest that no longer names them is saved. Where open files cannot be known,
    the links wait for `drain`."""
    if not manifest.retired:
        return []
    holders = open_inodes()
    if holders is None:
        return []
    released: list[str] = []
    for name, consumed in list(manifest.retired.items()):
        path = retired_link(meta_dir, name)
        try:
            if path is None:
                continue
            st = os.stat(path)
        except OSError:
            continue
        if st.st_size == consumed and (st.st_dev, st.st_ino) not in holders:
            del manifest.retired[name]
            released.append(name)
    return released


def forget(meta_dir: Path, names: list[str]) -> None:
    for name in names:
        path = retired_link(meta_dir, name)
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()
