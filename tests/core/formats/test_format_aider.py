"""Aider chat history (.aider.chat.history.md) and input history (.aider.input.history)."""

from __future__ import annotations

from pathlib import Path

from format_helpers import read_all, said, write_text

CHAT = """
# aider chat started at 2025-05-23 16:51:58

> Add .aider* to .gitignore (recommended)? (Y)es/(N)o [Yes]: y|
> Git repo: .git with 5 files|

#### /ask which vector store should we use?|

#### which vector store should we use?|

Use ChromaDB: it runs in-process.

> Tokens: 8.0k sent, 1.9k received.|

#### /architect save the plan into task.md|

#### save the plan into task.md|

Okay, I will instruct the editor to save it.

**Action:** create `task.md`.

#### Okay, I will instruct the editor to save it.|
####|
#### **Action:** create `task.md`.|

task.md
```
- [ ] step one
```

#### we use uv for dependencies,|
#### never pip|

Understood.

#### /commit|
> Commit 0d8ad7d feat: add task list|
""".replace("|\n", "  \n")  # aider ends its own lines with two spaces


def test_chat_history(tmp_path: Path) -> None:
    path = write_text(tmp_path / ".aider.chat.history.md", CHAT)
    fmt, messages, stats = read_all(path)
    assert fmt == "aider"
    assert said(messages, "person") == [
        "which vector store should we use?",
        "save the plan into task.md",
        "we use uv for dependencies,\nnever pip",
    ]
    assert said(messages, "command") == [
        "/ask which vector store should we use?",
        "/architect save the plan into task.md",
        "/commit",
    ]
    assert said(messages, "subagent") == [
        "Okay, I will instruct the editor to save it.\n\n**Action:** create `task.md`."
    ]
    assert said(messages, "assistant")[0] == "Use ChromaDB: it runs in-process."
    assert said(messages, "tool")[0].startswith("Add .aider* to .gitignore")
    assert said(messages, "tool")[-1] == "Commit 0d8ad7d feat: add task list"
    person = [m for m in messages if m.origin == "person"]
    assert person[0].locator == f"{path}:9"
    assert person[0].timestamp == "2025-05-23 16:51:58"
    assert stats.warnings == []


def test_chat_history_detected_by_content(tmp_path: Path) -> None:
    path = write_text(tmp_path / "history.md", CHAT)
    assert read_all(path)[0] == "aider"


def test_input_history(tmp_path: Path) -> None:
    path = write_text(
        tmp_path / ".aider.input.history",
        "\n# 2025-08-06 12:07:32.582046\n+Put the webservice inside the backend folder.\n"
        "\n# 2025-08-06 12:09:03.329176\n+/add backend/app.py\n"
        "\n# 2025-08-06 12:10:38.827089\n+Keep the frontend dependency-free:\n+plain HTML and JS.\n",
    )
    fmt, messages, stats = read_all(path)
    assert fmt == "aider-input"
    assert [(m.origin, m.text, m.timestamp) for m in messages] == [
        ("person", "Put the webservice inside the backend folder.", "2025-08-06 12:07:32.582046"),
        ("command", "/add backend/app.py", "2025-08-06 12:09:03.329176"),
        (
            "person",
            "Keep the frontend dependency-free:\nplain HTML and JS.",
            "2025-08-06 12:10:38.827089",
        ),
    ]
    assert messages[0].locator == f"{path}:3"
    assert stats.skipped == 0
