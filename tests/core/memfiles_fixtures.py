"""Small memory files shaped like the real ones (nested lists with code, tables, labels,
front matter, Chinese headings), for the managed-file tests."""

from __future__ import annotations

NESTED = """\
# Project notes

This file provides guidance to Claude Code (claude.ai/code) when working with code in this repository.

## Build

- Run the tests with `make test`
  - they need Docker running
  ```bash
  make test
  ```
- Lint with ruff before committing

**NEVER**:

- Push to main directly

| Tool | Use |
|------|-----|
| ruff | lint |

Release steps:

| Step | Command |
|---|---|
| tag | git tag v1 |

## 部署

- 使用 `deploy.sh` 部署到生产环境
@docs/extra.md
"""

TOPIC = """\
---
name: testing
description: how tests run here
type: feedback
---

Always run the integration tests against a real database, never mocks.

Why: a mocked test passed while the migration broke production.
"""

# The facts of NESTED, one entry each: (first line of the entry, its section path).
NESTED_FACTS = [
    ("Run the tests with `make test`", ["Project notes", "Build"]),
    ("Lint with ruff before committing", ["Project notes", "Build"]),
    ("Push to main directly", ["Project notes", "Build", "NEVER"]),
    ("| Tool | Use |", ["Project notes", "Build", "NEVER"]),
    ("Release steps:", ["Project notes", "Build", "NEVER"]),
    ("使用 `deploy.sh` 部署到生产环境", ["Project notes", "部署"]),
]


def long_auto_memory(sections: int = 12, items: int = 16) -> str:
    """An auto-memory MEMORY.md longer than the 200 lines Claude Code loads."""
    lines = ["# Agent Memory", ""]
    for s in range(sections):
        lines.append(f"## Topic {s}")
        lines.extend(f"- fact {i} of topic {s} about the build" for i in range(items))
        lines.append("")
    return "\n".join(lines)
