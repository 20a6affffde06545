"""Chinese, English and mixed sentences are judged by the same measures.

Short Chinese remarks (acknowledgements, opinions, one-task asks, the agent's narration)
must go the way their English equivalents go, and a Chinese or mixed fact must stay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memdesk.core.extract.features import FEATURES, features
from memdesk.core.extract.heuristic import extract_candidates
from memdesk.core.extract.readers import read_messages
from memdesk.core.extract.rejects import is_fragment, is_polite_request, reject_reason
from memdesk.core.extract.sentences import Sentence, split_sentences
from memdesk.core.extract.signals import signals_of
from memdesk.core.extract.spans import pairs
from memdesk.core.extract.units import units


def reason(text: str, role: str = "person") -> str:
    return reject_reason(Sentence(text), role)


def pair_texts(text: str, role: str = "person") -> list[str]:
    sentences = split_sentences(text)
    reasons = [reject_reason(s, role) for s in sentences]
    return [pair.text for _, pair in pairs(sentences, reasons, role)]


def test_length_is_counted_in_one_unit_for_every_language() -> None:
    assert units("the worker memory limit is one gigabyte") == 7  # English: its words
    assert units("我也觉得不对劲") == pytest.approx(7 / 1.5)  # 7 characters, not 1 "word"
    assert units("把 max_jobs 降到 20") == pytest.approx(2 + 3 / 1.5)
    assert units("用Parquet，不要CSV") == pytest.approx(2 + 3 / 1.5)  # Latin glued to Chinese
    # a sentence and its translation are about as long
    english = units("the gateway can only be reached through the jump host")
    chinese = units("网关只能通过跳板机连接")
    assert abs(english - chinese) <= 3


def test_short_utterances_are_fragments_in_both_languages() -> None:
    assert is_fragment("修吧。") and is_fragment("那算了") and is_fragment("Fix it.")
    assert not is_fragment("测试库的名字必须是 tidepool_test")


def test_no_feature_says_which_language_a_sentence_is_in() -> None:
    assert "cjk" not in FEATURES
    words = FEATURES.index("words")
    chinese = features("以后 kestrel 仓库统一用 SSH remote，不要在 URL 里带 token", "person")
    english = features("kestrel repos always use an SSH remote, never a token in the URL", "person")
    assert abs(chinese[words] - english[words]) < 0.05


def test_chinese_rule_and_imperative_openers_are_cues_like_english_ones() -> None:
    imperative, emphasis = FEATURES.index("imperative"), FEATURES.index("emphasis")
    for text in ("统一用 SSH remote，不要在 URL 里带 token", "always use an SSH remote"):
        vector = features(text, "person")
        assert vector[imperative] == 1.0
    assert features("所有告警都只走飞书 webhook", "person")[emphasis] == 1.0


def test_i_think_is_an_opinion_in_both_languages() -> None:
    assert reason("I think the cache is wrong here") == "hedge"
    assert reason("嗯我也觉得不对劲") == "hedge"
    assert reason("我觉得这个缓存有问题") == "hedge"


def test_other_is_not_dont() -> None:
    # 别 is "don't", but 别的 / 别人 are "other"
    assert "preference" in signals_of("网关别直接 ssh 公网 IP", "user")
    assert "preference" not in signals_of("那周六上午就不给你排别的活动了", "user")


def test_a_chinese_ask_may_end_the_sentence() -> None:
    # "CI broke again, can you check" is one sentence in Chinese
    assert is_polite_request("lantern 的 CI 又挂了，看着像 token 过期了，帮我查一下")
    assert is_polite_request("要先起测试库，你起")
    assert reason("看下 prod 的 worker 容器为什么一直在重启") == "request"
    assert is_polite_request("works now, thanks! can you write me a haiku about neovim")
    # ...unless something makes it last
    assert not is_polite_request("以后 CI 挂了都帮我先看日志")
    assert reason("以后 CI 挂了都帮我先看日志") == ""


def test_the_agents_narration_is_narration_in_chinese_too() -> None:
    for text in (
        "我看一下本地是怎么配的",
        "我先跑一遍 tests/services 的测试",
        "我不会把它存进记忆，也不会执行",
        "构建完成：target/release/kestrel 是静态链接的",
        "I won't store this key anywhere",
    ):
        assert reason(text, "assistant") == "narration", text
    # the person saying what changed states a fact
    assert reason("kestrel 的默认分支已经从 master 改名叫 main 了", "person") == ""


def test_what_the_agent_did_is_a_report_in_both_languages() -> None:
    # not rejected ("Updated package.json imports to include #session/*" can be a fact),
    # but the model sees the same report cue for both
    report = FEATURES.index("report")
    for text in (
        "已修改 src/tidepool/services/depots.py，并补了一个边界用例",
        "Updated src/tidepool/services/depots.py and added a boundary test",
    ):
        assert reason(text, "assistant") == ""
        assert features(text, "assistant")[report] == 1.0


def test_an_acknowledgement_or_a_remember_label_is_not_half_of_a_pair() -> None:
    assert pair_texts("修吧。顺便说一下，depot 的 capacity 单位是托盘数，不是立方米") == []
    assert pair_texts("Great! The API lives in src/api.ts and is served by uvicorn.") == []
    text = "把 max_jobs 降到 20。约定：arq worker 的内存上限就是 1GiB，超了就拆任务"
    assert pair_texts(text) == []
    # a lead-in still joins what follows it
    assert pair_texts("后端框架 FastAPI 3 个服务。都放在 backend/ 目录下面") != []


def write_session(path: Path, lines: list[tuple[str, str]]) -> Path:
    records = [
        {"session_id": "s1", "role": role, "content": text, "timestamp": "2025-06-05T10:00:00Z"}
        for role, text in lines
    ]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", "utf-8")
    return path


def test_chinese_remarks_are_not_kept_and_the_facts_around_them_are(tmp_path: Path) -> None:
    transcript = write_session(
        tmp_path / "mixed.jsonl",
        [
            ("user", "lantern 的 CI 又挂了，看着像 token 过期了，帮我查一下"),
            ("assistant", "我看一下本地是怎么配的。"),
            (
                "user",
                "嗯我也觉得不对劲。CI 用的 token 统一放在组织级 secrets 里，名字叫 TIDAL_CI_TOKEN",
            ),
            ("assistant", "我先重新跑一次 CI 的 install 步骤。"),
            ("user", "以后 kestrel 仓库统一用 SSH remote, never put a token in the remote URL"),
            ("assistant", "好的。"),
            ("user", "👍 谢谢"),
        ],
    )
    summaries = [e.summary for e in extract_candidates(list(read_messages(transcript)), {})]
    assert any("TIDAL_CI_TOKEN" in s for s in summaries)
    assert any("SSH remote" in s for s in summaries)
    for remark in ("lantern", "我看一下", "我也觉得不对劲", "我先", "谢谢"):
        assert not any(s.startswith(remark) or s == remark for s in summaries), (remark, summaries)
