"""The store as every caller opens it: the journaled entry store with the memory files
following it.

`memdesk.core.storage` is the store proper (commit and recovery, the file cache,
history and undo, field conflicts); it knows nothing above it. `Store` is that store
with its standard subscriber attached: `MemoryFileRenderer` (core/memory_render.py)
rewrites MEMORY.md and the managed memory files after each commit that could change
them. Everything a caller needs is importable from here.

    watcher -> core ingestion -> store commit -> subscribers
                                                 (memory files, search index, desk)
"""

from __future__ import annotations

from pathlib import Path
from typing import Self

from memdesk.core.entry import Entry
from memdesk.core.entry_files import Problem, is_within
from memdesk.core.memory_md import MemoryFile
from memdesk.core.memory_render import (
    MANAGED_ORIGIN,
    MemoryFileRenderer,
    adopt_existing_memory_md,
    ingest_memory_files,
    render_memory_files,
)
from memdesk.core.merge import Conflict, MergeConflict
from memdesk.core.storage.changes import Change
from memdesk.core.storage.engine import EntryStore
from memdesk.core.storage.errors import GuardRefused, NotFound, StoreError, TooLarge
from memdesk.core.storage.history import HUMAN_ACTORS, UndoResult
from memdesk.core.storage.layout import (
    DEFAULT_SETTINGS,
    GITATTRIBUTES,
    GITIGNORE,
    META_DIR,
    is_store,
)


class Store(EntryStore):
    """A memdesk working directory; MEMORY.md and the managed memory files follow
    every commit that could change them."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.memory_file = MemoryFile(self.root, self.meta_dir)
        self.memory_render = MemoryFileRenderer(self)
        self.attach(self.memory_render)

    @classmethod
    def init(cls, root: Path | str) -> Self:
        """Lay out `.memdesk/` (see `EntryStore.init`); a MEMORY.md already there that
        memdesk never wrote is adopted as it is."""
        store = super().init(root)
        adopt_existing_memory_md(store)
        return store

    @property
    def auto_render(self) -> bool:
        """Whether commits rewrite the memory files (off while memdesk commits what it
        read from one: the file is written once, after)."""
        return self.memory_render.enabled

    @auto_render.setter
    def auto_render(self, value: bool) -> None:
        self.memory_render.enabled = value

    @property
    def problems(self) -> list[Problem]:
        """The entry store's problems (`EntryStore.problems`), plus agents' memory files
        linked out of the working directory and manifests naming a path memdesk refuses
        (`memfiles/confine.py`)."""
        from memdesk.core.memfiles.confine import refused_files

        found = super().problems
        for where, why in refused_files(self.root, self.meta_dir):
            link = why.startswith("is a symbolic link")
            kind = "unsafe-path" if where.startswith(META_DIR) and not link else "symlink"
            found.append(Problem(where, None, why, kind))
        for where, why in self._refused_source_folders():
            found.append(Problem(where, None, why, "symlink"))
        return sorted(found, key=lambda p: (p.path, p.line or 0))

    def _refused_source_folders(self) -> list[tuple[str, str]]:
        """Folders linked outside that a `[sources] transcripts` glob would list
        (`extract/source_globs.py`); a settings file that cannot be read names itself."""
        from memdesk.core.context.settings import SettingsError
        from memdesk.core.extract.settings import ExtractSettings
        from memdesk.core.extract.source_globs import refused_folders

        try:
            patterns = ExtractSettings.from_mapping(self.settings).sources.transcripts
        except (SettingsError, StoreError):
            return []
        return refused_folders(self.root, patterns)

    def ingest_memory_md(self) -> list[Entry]:
        """Turn lines others added to MEMORY.md (and to managed memory files) into
        candidates (deduplicated)."""
        return ingest_memory_files(self)

    def render_memory_md(self) -> bool:
        """Rewrite MEMORY.md and the managed memory files from the store (after ingesting
        what others appended). True when a file was rewritten."""
        return render_memory_files(self)


__all__ = [
    "DEFAULT_SETTINGS",
    "GITATTRIBUTES",
    "GITIGNORE",
    "HUMAN_ACTORS",
    "MANAGED_ORIGIN",
    "META_DIR",
    "Change",
    "Conflict",
    "GuardRefused",
    "MergeConflict",
    "NotFound",
    "Store",
    "StoreError",
    "TooLarge",
    "UndoResult",
    "is_store",
    "is_within",
]
