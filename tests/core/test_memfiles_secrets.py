"""Secrets in agents' memory files stay out of everything memdesk keeps (round 8, S1 and
S2): a key block under a bullet is one secret, and a manifest under `.memdesk/files/`
keeps no secret value while the adopted file still renders byte for byte."""

from __future__ import annotations

import base64
import random
from pathlib import Path

from memdesk.core.memfiles.adopt import adopt
from memdesk.core.store import Store

TOKEN = "ghp_4kWG6nBSuq6hH3zEZ7M92xFWS5PoOjhHL84t"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY1"


def pem(kind: str = "RSA PRIVATE KEY", seed: int = 8) -> tuple[str, list[str]]:
    """A key block (fake, fixed) and its body lines; the last body line is short."""
    rng = random.Random(seed)
    data = bytes(rng.randrange(256) for _ in range(300))
    body = base64.b64encode(data).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----\n", lines


def stored_text(root: Path, but: str = "") -> str:
    """Everything under `.memdesk/` (but the folder `but`), as text."""
    meta = root / ".memdesk"
    return "\n".join(
        p.read_bytes().decode("utf-8", "replace")
        for p in sorted(meta.rglob("*"))
        if p.is_file() and not (but and p.is_relative_to(meta / but))
    )


def test_a_key_block_under_a_bullet_is_one_secret_in_an_adopted_file(tmp_path: Path) -> None:
    for kind in ("RSA PRIVATE KEY", "OPENSSH PRIVATE KEY"):
        root = tmp_path / kind.split()[0]
        root.mkdir()
        block, body = pem(kind)
        text = f"# Ops\n\n- Deploy key for the legacy box:\n{block}- deploys go through CI\n"
        (root / "CLAUDE.md").write_text(text, "utf-8")
        store = Store.init(root)
        adopt(store, root / "CLAUDE.md")
        facts = [f for e in store.entries() for f in [e.summary, *e.facts]]
        assert "deploys go through CI" in facts
        kept = "\n".join(facts) + stored_text(root, but="files")
        assert not [line for line in body if line in kept], kind
        assert (root / "CLAUDE.md").read_text("utf-8") == text


def test_a_key_block_appended_to_memory_md_leaves_no_line_behind(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    block, body = pem()
    with open(tmp_path / "MEMORY.md", "a", encoding="utf-8") as handle:
        handle.write(f"- Deploy key for the legacy box:\n{block}- deploys go through CI\n")
    store.ingest_memory_md()
    assert "deploys go through CI" in [e.summary for e in store.entries()]
    kept = stored_text(tmp_path) + (tmp_path / "MEMORY.md").read_text("utf-8")
    assert not [line for line in body if line in kept]
