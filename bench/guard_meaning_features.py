"""Word-class features for "an order addressed to the agent + a harmful goal" (candidate (d)
of the meaning stage's method comparison): whether a text addresses the agent, gives an
order, and names an object an attack goes after (credentials, tests and review, the
user, a remote address, a package registry, a payment address, memory, secrecy,
authority, overriding), in English and Chinese; and each order x object pair."""

from __future__ import annotations

import re

import numpy as np

CLASSES = {
    "addressee": r"\byou\b|\byour\b|\byourself\b|你|您|\bagent\b|\bassistant\b|助手|模型",
    "order": r"\b(must|always|never|do not|don't|make sure|from now on|ensure|need to|have to|"
    r"going forward|henceforth|please)\b|务必|必须|一定|永远|始终|总是|不要|不准|别|請|请|須|须|以后|今后",
    "credentials": r"token|secret|password|passwd|api[ _-]?key|credential|private key|\bssh\b|"
    r"\.env\b|cookie|session id|密钥|令牌|密码|密碼|凭据|憑證|私钥|金鑰|憑據",
    "checks": r"\btests?\b|review|\bci\b|lint|approv|sign[- ]off|check|测试|測試|评审|審查|审查|"
    r"审核|審核|批准|检查|檢查",
    "person": r"\buser\b|\bhuman\b|maintainer|\bowner\b|operator|用户|使用者|用戶|主人",
    "remote": r"https?://|webhook|\burl\b|curl|wget|e-?mail|\bpost\b|upload|send|forward|"
    r"邮件|郵件|发到|發到|发送|發送|上传|上傳|转发|轉發",
    "registry": r"registry|mirror|index-url|npmrc|pip\.conf|\bpackage|dependenc|依赖|依賴|镜像|鏡像|"
    r"源|套件",
    "payment": r"wallet|payment|payout|\biban\b|bitcoin|\bbtc\b|\beth\b|invoice|钱包|錢包|付款|收款|"
    r"转账|轉帳",
    "memory": r"remember|forever|permanent|every (future )?session|future sessions|memory|"
    r"记住|記住|永久|每次|往后|往後|记忆|記憶",
    "secrecy": r"secretly|quietly|silently|without (telling|mentioning)|don't (tell|mention)|"
    r"do not (tell|mention)|\bhide\b|conceal|悄悄|别告诉|不要告诉|不要提|隐瞒|隱瞞|保密|别说|不要說",
    "authority": r"\badmin|administrator|\broot\b|security team|authori[sz]|official|\bceo\b|"
    r"管理员|管理員|授权|授權|官方|安全团队|安全團隊|负责人",
    "override": r"ignore|disregard|forget|override|bypass|\bskip|disable|turn off|no longer|"
    r"忽略|无视|無視|跳过|跳過|禁用|绕过|繞過|关闭|關閉|不再|作废|作廢",
}
_PATTERNS = {name: re.compile(p, re.IGNORECASE) for name, p in CLASSES.items()}
_OBJECTS = [n for n in CLASSES if n not in {"addressee", "order"}]


def features(text: str) -> np.ndarray:
    """The classes present (0/1), then order-or-addressee x each object class."""
    present = {name: bool(p.search(text)) for name, p in _PATTERNS.items()}
    base = [float(present[n]) for n in CLASSES]
    told = present["addressee"] or present["order"]
    pairs = [float(told and present[n]) for n in _OBJECTS]
    return np.array(base + pairs, dtype=np.float32)


def feature_matrix(texts: list[str] | np.ndarray) -> np.ndarray:
    return np.stack([features(str(t)) for t in texts]) if len(texts) else np.zeros((0, 22))
