"""The journaled entry store, in parts: each file is one idea.

`engine.EntryStore` is the store itself (reading, operations, batches); `commit` writes
a batch (pending file, entry files, journal) and tells subscribers; `recovery` rolls an
interrupted batch back; `file_cache` keeps the entry files read; `history` is undo and
redo; `field_conflicts` keeps and resolves concurrent-edit conflicts.

Nothing here imports what sits above the store (context assembly, search, extraction,
consolidation, memory files): an import-linter contract in pyproject.toml says so. What
reacts to a commit (MEMORY.md and the managed memory files, the search index, the desk)
subscribes to it.
"""
