"""What one agent's memory file is: its name, where it lives, what the agent loads."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MemoryFormat:
    """One kind of memory file. `load_lines` / `load_bytes` are how much of it the agent
    reads into its context (0: the whole file); past that cut a fact is invisible."""

    name: str
    agent: str
    file_names: tuple[str, ...]  # names it has in the working directory
    load_lines: int = 0
    load_bytes: int = 0
    description: str = ""

    @property
    def has_limit(self) -> bool:
        return bool(self.load_lines or self.load_bytes)

    def limit_text(self) -> str:
        parts = []
        if self.load_lines:
            parts.append(f"{self.load_lines} lines")
        if self.load_bytes:
            parts.append(f"{self.load_bytes // 1000} KB")
        return " / ".join(parts) if parts else "whole file"
