"""Claude Code's auto memory: `~/.claude/projects/<encoded path>/memory/MEMORY.md` plus
topic files (each with a `type:` front matter) that MEMORY.md points to.

Claude Code loads the first 200 lines of MEMORY.md, and at most 25 KB of it, at the
start of a session; topic files are read on demand."""

from memdesk.core.memfiles.format import MemoryFormat

FORMAT = MemoryFormat(
    name="claude-auto-memory",
    agent="Claude Code (auto memory)",
    file_names=("MEMORY.md",),
    load_lines=200,
    load_bytes=25_000,
    description="MEMORY.md index plus topic files with `type:` front matter",
)

TOPIC = MemoryFormat(
    name="claude-memory-topic",
    agent="Claude Code (auto memory)",
    file_names=(),
    description="a topic file of the auto memory, read when MEMORY.md leads to it",
)
