"""Secret families the guard once stored verbatim (round 8, S3): DSNs without a scheme,
Traditional Chinese password prose, English credentials without "password", chat-bot
webhooks, passwords on command lines, credential file lines and tokens split over two
lines. Each is caught on every write path; ordinary text of the same shapes is kept."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from memdesk.core.entry import Entry, Source
from memdesk.core.guard import redact_text
from memdesk.core.guard.hanzi import have_converter
from memdesk.core.store import GuardRefused, Store
from secret_families_corpus import CAUGHT, KEPT
from test_guard_write_paths import leaks


@pytest.mark.parametrize(("family", "text", "value"), CAUGHT)
def test_each_family_is_redacted(family: str, text: str, value: str) -> None:
    redacted, count = redact_text(text)
    assert value not in redacted, (family, redacted)
    assert count >= 1
    assert redact_text(redacted) == (redacted, 0)  # idempotent


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_text_of_the_same_shapes_is_kept(text: str) -> None:
    assert redact_text(text) == (text, 0)


def test_the_host_of_a_webhook_is_kept() -> None:
    text = (
        "alerts: https://open.feishu.cn/open-apis/bot/v2/hook/3f1c9a27-6b4e-4d0a-9e52-7ac1d8b0e364"
    )
    assert redact_text(text)[0] == "alerts: https://open.feishu.cn/[REDACTED:webhook]"


def test_traditional_chinese_is_folded_only_where_the_value_is() -> None:
    if not have_converter():
        pytest.skip("OpenCC is not installed")
    text = "使用者 ops 的資料庫密碼是 Rt6!vNq93Xs，不是 Rt6"
    assert redact_text(text)[0] == "使用者 ops 的資料庫密碼是 [REDACTED:password]，不是 Rt6"


def test_a_split_token_is_redacted_on_both_lines_with_its_kind() -> None:
    text = "the bot token is ghp_QzWmLkRtVbNcXaYs\nHj4Kp8Lm2Qw6Zr9Tv3Bn (split)"
    assert redact_text(text)[0] == (
        "the bot token is [REDACTED:github-token]\n[REDACTED:github-token] (split)"
    )


def test_every_field_of_an_entry_is_screened_for_the_families(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    for family, text, _ in CAUGHT:
        entry = Entry(
            f"Ops note ({family}): {text}",
            facts=[text],
            tags=[family],
            source=Source(origin="cli", excerpt=text, commands=[text], files=[text[:200]]),
        )
        with contextlib.suppress(GuardRefused):  # refused whole is as good
            store.add(entry)
    assert leaks(tmp_path, [(f, v) for f, _, v in CAUGHT]) == []


def test_memory_md_append_of_the_families_keeps_none(tmp_path: Path) -> None:
    store = Store.init(tmp_path)
    memory = tmp_path / "MEMORY.md"
    store.render_memory_md()
    with memory.open("a", encoding="utf-8") as handle:
        for _, text, _ in CAUGHT:
            handle.write("".join(f"- {line}\n" for line in text.split("\n")))
    store.ingest_memory_md()
    store.render_memory_md()
    assert leaks(tmp_path, [(f, v) for f, _, v in CAUGHT]) == []


@pytest.mark.parametrize("bullet", ["- ", ""])
def test_memory_md_token_split_over_two_ingests_keeps_neither_half(
    tmp_path: Path, bullet: str
) -> None:
    store = Store.init(tmp_path)
    memory = tmp_path / "MEMORY.md"
    store.render_memory_md()
    head, tail = "ghp_PxLqWzRmTnVbKcYd", "Ws5Hj8Km3Qz7Lr2Vt6Nb"
    for line in (f"- the bot token is {head}", f"{bullet}{tail} (split so lint misses it)"):
        with memory.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
        store.ingest_memory_md()
    store.render_memory_md()
    assert leaks(tmp_path, [("head", head), ("tail", tail)]) == []
