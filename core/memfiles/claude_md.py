"""CLAUDE.md: Claude Code's project instructions, loaded whole at every start."""

from memdesk.core.memfiles.format import MemoryFormat

FORMAT = MemoryFormat(
    name="claude-md",
    agent="Claude Code",
    file_names=("CLAUDE.md", "CLAUDE.local.md"),
    description="project instructions; `@path` lines import other files",
)
