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
        kept = "\n".join(facts) + stored_text(root)
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


SECRET_FILE = (
    "# Notes\n\n"
    f"- The release workflow authenticates with {TOKEN}; it belongs to the ci-bot account.\n"
    "- uses pnpm\n"
    f"- aws_secret_access_key = {AWS}\n"
    "- Deploy key for the legacy box:\n"
)


def _assert_kept_out(root: Path, *values: str) -> None:
    text = stored_text(root)
    for value in values:
        assert value not in text


def test_an_adopted_file_with_secrets_renders_byte_for_byte_and_keeps_none(
    tmp_path: Path,
) -> None:
    block, body = pem()
    text = SECRET_FILE + block + "- deploys go through CI\n"
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(text.encode("utf-8"))
    store = Store.init(tmp_path)
    assert adopt(store, path).unchanged
    store.ingest_memory_md()  # reads the manifest back and renders the file again
    store.render_memory_md()
    assert path.read_bytes() == text.encode("utf-8")
    _assert_kept_out(tmp_path, TOKEN, AWS, *body)
    # An edit of another entry rewrites the file: the secret lines come back from it.
    pnpm = next(e for e in store.entries() if e.summary == "uses pnpm")
    store.edit(pnpm.id, {"summary": "uses pnpm 9"})
    assert path.read_text("utf-8") == text.replace("uses pnpm", "uses pnpm 9")
    _assert_kept_out(tmp_path, TOKEN, AWS, *body)


def test_a_secret_an_agent_appends_to_an_adopted_file_is_kept_nowhere(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("# Notes\n\n- Use pnpm\n", "utf-8")
    store = Store.init(tmp_path)
    adopt(store, path)
    line = f"- The release workflow authenticates with {TOKEN}; it belongs to the ci-bot account.\n"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line)
    (added,) = store.ingest_memory_md()
    store.render_memory_md()
    _assert_kept_out(tmp_path, TOKEN)
    store.approve([added.id])  # held out of the file, it comes back redacted
    assert TOKEN not in path.read_text("utf-8")
    assert "[REDACTED:github-token]" in path.read_text("utf-8")
    _assert_kept_out(tmp_path, TOKEN)


def test_init_adopting_an_existing_memory_md_keeps_its_secrets_out(tmp_path: Path) -> None:
    text = SECRET_FILE.replace("- Deploy key for the legacy box:\n", "")
    (tmp_path / "MEMORY.md").write_text(text, "utf-8")
    store = Store.init(tmp_path)
    store.ingest_memory_md()
    assert (tmp_path / "MEMORY.md").read_text("utf-8") == text
    _assert_kept_out(tmp_path, TOKEN, AWS)


def test_doctor_names_a_manifest_that_keeps_a_secret_as_it_is(tmp_path: Path) -> None:
    import json

    from memdesk.core.doctor import examine
    from memdesk.core.memfiles.manifest import files_dir

    path = tmp_path / "CLAUDE.md"
    path.write_text(f"- ci authenticates with {TOKEN}\n- uses pnpm\n", "utf-8")
    store = Store.init(tmp_path)
    adopt(store, path)
    secrets = [f for f in examine(tmp_path).findings if f.kind == "secret"]
    # The sealed manifest is not named; the person's own file, which keeps the token
    # for any agent reading it, is (test_cli_secrets_left.py).
    assert [(f.path, f.line) for f in secrets] == [("CLAUDE.md", 1)]
    (manifest,) = files_dir(store.meta_dir).glob("*.json")
    data = json.loads(manifest.read_text("utf-8"))
    data["blocks"][0]["raw"] = path.read_text("utf-8").splitlines(keepends=True)[0]
    manifest.write_text(json.dumps(data), "utf-8")  # as written before sealing
    found = [f for f in examine(tmp_path).findings if f.kind == "secret"]
    (finding,) = [f for f in found if f.path != "CLAUDE.md"]
    assert finding.path.endswith(manifest.name) and "github-token" in finding.message
    assert TOKEN not in str(finding)
    store.render_memory_md()  # seals it again
    assert TOKEN not in manifest.read_text("utf-8")
    assert path.read_text("utf-8").startswith(f"- ci authenticates with {TOKEN}\n")
