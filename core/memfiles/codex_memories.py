"""Codex memories: Markdown files under `$CODEX_HOME/memories/` (default
`~/.codex/memories/`), read whole by Codex when memories are enabled."""

from memdesk.core.memfiles.format import MemoryFormat

FORMAT = MemoryFormat(
    name="codex-memories",
    agent="Codex",
    file_names=(),
    description="a memory file under $CODEX_HOME/memories/",
)
