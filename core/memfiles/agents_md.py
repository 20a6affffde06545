"""AGENTS.md: the shared instructions file Codex and other agents read whole."""

from memdesk.core.memfiles.format import MemoryFormat

# Codex concatenates AGENTS.md files up to project_doc_max_bytes (32 KiB by default).
FORMAT = MemoryFormat(
    name="agents-md",
    agent="Codex / AGENTS.md readers",
    file_names=("AGENTS.md", "AGENTS.override.md"),
    load_bytes=32_768,
    description="project instructions read by Codex, Cursor, Aider and others",
)
