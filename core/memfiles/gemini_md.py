"""GEMINI.md: Gemini CLI's context file, loaded whole."""

from memdesk.core.memfiles.format import MemoryFormat

FORMAT = MemoryFormat(
    name="gemini-md",
    agent="Gemini CLI",
    file_names=("GEMINI.md",),
    description="context file; `@file` lines import other files",
)
