"""OpenClaw's workspace memory: `MEMORY.md` (long-term, loaded in private sessions)
and `memory/YYYY-MM-DD.md` daily notes (today's and yesterday's are loaded)."""

from memdesk.core.memfiles.format import MemoryFormat

FORMAT = MemoryFormat(
    name="openclaw",
    agent="OpenClaw",
    file_names=("MEMORY.md",),
    description="curated long-term memory of the workspace",
)

DAILY = MemoryFormat(
    name="openclaw-daily",
    agent="OpenClaw",
    file_names=(),
    description="a day's notes, memory/YYYY-MM-DD.md",
)
