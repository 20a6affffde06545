"""The bundled demo project: copied to a folder of the user's, never used in place."""

from __future__ import annotations

import shutil
from pathlib import Path

DEMO_SOURCE = Path(__file__).resolve().parent / "demo_project"


def copy_demo_project(target: Path) -> Path:
    """Copy the demo into `target` (created if needed) and return it.

    The package keeps the store folder as `memdesk/` (dot-folders are easy to lose in
    packaging); the copy restores the real name `.memdesk/`.
    """
    target = Path(target)
    target.mkdir(parents=True, exist_ok=True)
    if (target / ".memdesk").exists():
        raise FileExistsError(f"{target} already holds a memdesk store")
    for child in DEMO_SOURCE.iterdir():
        name = ".memdesk" if child.name == "memdesk" else child.name
        if child.is_dir():
            shutil.copytree(child, target / name)
        else:
            shutil.copy2(child, target / name)
    (target / ".memdesk" / "index").mkdir(exist_ok=True)
    (target / ".memdesk" / "conflicts").mkdir(exist_ok=True)
    (target / ".memdesk" / "journal.jsonl").touch()
    from memdesk.core.store import GITATTRIBUTES, GITIGNORE

    (target / ".memdesk" / ".gitignore").write_text(GITIGNORE, "utf-8")
    (target / ".memdesk" / ".gitattributes").write_text(GITATTRIBUTES, "utf-8")
    return target
