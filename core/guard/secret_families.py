"""Credentials recognised by where they sit rather than by a provider's format.

Each family is a finder `(text) -> (text with [REDACTED:kind], how many)`, with the
reason it exists:

- `dsn`: `user:password@tcp(host:3306)/db` (Go/MySQL drivers), `user:password@host`:
  a connection string without a URL scheme still carries the password before `@`;
- `command line`: `curl -u user:pw`, `--user`, `--password[= ]pw`, `mysql -pPW`,
  `redis-cli -a PW`, `sshpass -p PW`, `docker login -p`, `ldapsearch -w`, `sqlcmd -P`,
  `smbclient -U user%pw`, `openssl -passin pass:PW`: a password passed to a tool;
- `credential file lines`: `.pgpass` (`host:port:db:user:password`), `.netrc`
  (`machine … login … password …`); `.my.cnf`'s `password=` and `.git-credentials`'
  `https://user:token@host` are assignments and URLs, caught by those rules;
- `chat-bot webhooks`: Feishu/Lark `bot/v2/hook/<id>`, WeCom `webhook/send?key=`,
  Teams `webhookb2/…/IncomingWebhook/…`, Mattermost and generic `/hooks/<token>`,
  Zapier `hooks/catch/<n>/<id>`: whoever has the URL can post as the bot, the id in the
  path is the credential (the host is kept: where alerts go is worth remembering);
- `login prose`: "the admin login is root / pw", "creds: user/pw", "pw: …", "log in as
  admin with pw", "password pw" (no "is"): a credential stated without the key word the
  prose rule needs;
- `split tokens`: a token with a known prefix whose line ends before the token does
  (`ghp_abc…` then the rest on the next line): both halves; a known prefix whose body is
  too short for the full format is redacted alone (the other half may be another entry).

A value is only taken when it reads as a credential (`secret_like`): placeholders
(`$VAR`, `<password>`, `password`), plain words, paths and port numbers are left.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memdesk.core.guard.secret_context import mark, secret_like
from memdesk.core.guard.secret_rules import PLACEHOLDER

_QUOTE = "\"'`"


def _value_ok(value: str, *, strict: bool = True) -> bool:
    """A password value: not a placeholder or reference; `strict` also asks that it reads
    as a credential rather than a word (prose, DSNs); a tool's password flag need not."""
    value = value.strip(_QUOTE)
    if len(value) < 4 or PLACEHOLDER.match(value) or value.startswith(("$", "%", "[REDACTED")):
        return False
    if strict:
        return secret_like(value, password=True)
    return not value.startswith("-")


def _replace_group(
    pattern: re.Pattern[str], kind: str, accept: Callable[[str], bool]
) -> Callable[[str], tuple[str, int]]:
    """A finder that redacts the group `v` of each match that `accept` takes."""

    def finder(text: str) -> tuple[str, int]:
        count = 0

        def replace(m: re.Match[str]) -> str:
            nonlocal count
            raw = m.group("v")
            value = raw.strip(_QUOTE).rstrip(".,;)")
            if not accept(value):
                return m.group(0)
            count += 1
            start = m.start("v") - m.start(0) + raw.index(value)
            whole = m.group(0)
            return whole[:start] + mark(kind) + whole[start + len(value) :]

        return pattern.sub(replace, text), count

    return finder


# -- DSNs ---------------------------------------------------------------------------------
# user:password@ then a host: tcp(…)/unix(…), an IPv4 address, localhost or a dotted name.
_DSN = re.compile(
    r"(?<![A-Za-z0-9_.:/@%+-])[A-Za-z0-9_.+-]{1,64}:(?P<v>[^\s:@/'\"`]{4,128})@"
    r"(?=(?:tcp|udp|unix)\(|\d{1,3}(?:\.\d{1,3}){3}(?![\w.])|localhost\b|"
    r"[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?=[:/\s'\"`)?,;]|$))"
)


def _dsn_ok(value: str) -> bool:
    return _value_ok(value) and not value.lower().startswith("sha")


# -- command lines ------------------------------------------------------------------------
_ARG = r"(?P<v>'[^'\s]{1,128}'|\"[^\"\s]{1,128}\"|[^\s'\";|&]{1,128})"
_USER_PASS = re.compile(
    r"(?:^|\s)(?:-u|--user|--proxy-user)(?:=|\s+)['\"]?[^\s:'\"$]{1,64}:" + _ARG
)
_LONG_FLAG = re.compile(
    r"(?i)(?:^|\s)--(?:[a-z]+-)?(?:password|passwd|pass|db-pass(?:word)?|passphrase|"
    r"storepass|keypass)(?:=|\s+)" + _ARG
)
# Short flags whose value is a password for these tools only (`-p 8080` is a port
# elsewhere; `mysql -p` alone prompts).
_TOOL_FLAG = re.compile(
    r"(?i)\b(?:"
    r"(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb(?:-dump|-admin)?)\b[^\n|;&]*?\s-p(?=[^\s])"
    r"|7z\b[^\n|;&]*?\s-p(?=[^\s])"
    r"|sshpass\s+-p\s*"
    r"|redis-cli\b[^\n|;&]*?\s(?:-a|--pass)\s+"
    r"|(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)\b[^\n|;&]*?\s-p\s+"
    r"|(?:docker|podman|helm|skopeo|buildah|oras)\s+(?:registry\s+)?login\b[^\n|;&]*?\s-p\s+"
    r"|ldap(?:search|modify|add|delete|whoami|passwd)\b[^\n|;&]*?\s-w\s+"
    r"|(?:sqlcmd|bcp|osql|isql)\b[^\n|;&]*?\s-P\s*"
    r"|(?:zip|unzip)\b[^\n|;&]*?\s-P\s+"
    r"|az\s+login\b[^\n|;&]*?\s-p\s+"
    r"|htpasswd\s+-\w*b\w*\s+\S+\s+\S+\s+"
    r"|net\s+use\b[^\n|;&]*?/user:\S+\s+"
    r")" + _ARG
)
_SMB = re.compile(
    r"\b(?:smbclient|rpcclient|smbmap|crackmapexec)\b[^\n|;&]*?\s-U\s+[^\s%]+%" + _ARG
)
_OPENSSL_PASS = re.compile(r"(?i)-pass(?:in|out)?\s+pass:" + _ARG)

# -- credential file lines ----------------------------------------------------------------
_PGPASS = re.compile(
    r"(?m)(?<![\w.:/-])(?:\*|[A-Za-z0-9_.-]+|\[[0-9a-fA-F:]+\]):(?:\d{1,5}|\*):"
    r"(?:\*|[\w.-]+):(?:\*|[\w.@-]+):(?P<v>[^\s:]{4,128})(?=\s|$)"
)
_NETRC = re.compile(r"(?i)\b(?:machine\s+\S+|default)\s+login\s+\S+\s+password\s+" + _ARG)

# -- chat-bot webhooks --------------------------------------------------------------------
_HOOK_URL = re.compile(
    r"(?i)(?P<base>https?://[A-Za-z0-9.-]+(?::\d+)?)"
    r"(?P<path>/[^\s\"'<>`)\]]*?(?:hook|webhook|webhookb2|incomingwebhook)[^\s\"'<>`)\]]*)"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ZAPIER = re.compile(r"(?i)hooks/catch/\d+/[A-Za-z0-9]+")
_QUERY_KEY = re.compile(r"(?i)[?&](?:key|token|access_token|secret|sig|code)=[^&\s]{8,}")


def _credential_segment(segment: str) -> bool:
    if _UUID.search(segment):
        return True
    if len(segment) < 16 or not re.fullmatch(r"[A-Za-z0-9_-]+", segment):
        return False
    digits = sum(c.isdigit() for c in segment)
    letters = sum(c.isalpha() for c in segment)
    return digits >= 2 and letters >= 4


def _redact_webhooks(text: str) -> tuple[str, int]:
    count = 0

    def replace(m: re.Match[str]) -> str:
        nonlocal count
        path = m.group("path")
        if "[REDACTED" in path:
            return m.group(0)
        segments = re.split(r"[/?&=@]", path)
        # Only what follows the hook names one (a commit in `…/blob/<sha>/src/hooks/` does not).
        if "hook" not in m.group("base").lower():
            at = next(i for i, s in enumerate(segments) if "hook" in s.lower())
            segments = segments[at + 1 :]
        if not (
            _ZAPIER.search(path)
            or _QUERY_KEY.search(path)
            or any(_credential_segment(s) for s in segments)
        ):
            return m.group(0)
        count += 1
        return m.group("base") + "/" + mark("webhook")

    return _HOOK_URL.sub(replace, text), count


# -- login prose --------------------------------------------------------------------------
_USER = r"[A-Za-z0-9_.@+-]{1,64}"
# One line only ([ \t], not \s): a key ending a line is not stating the next line's word.
_VALUE = r"(?P<v>[A-Za-z0-9!#$%&*+?@^_~-][^\s'\",]{3,127})"
_LOGIN_PROSE = re.compile(
    r"(?i)(?:\b(?:log[ -]?in|logon|sign[ -]?in|creds?|credentials?|account|"
    r"user(?:name)?[ \t]*/[ \t]*pass(?:word)?|login[ \t]*/[ \t]*pass(?:word)?)\b|"
    # 账密 / 帳密 / 账号密码 (Chinese "account and password"), Simplified or Traditional
    r"[账帐帳](?:号|號|户|戶)?(?:和|及|/)?密(?:码|碼)?)"
    r"(?:[ \t]+(?:for|of|on|to|at)(?:[ \t]+[\w.@/-]+){1,3})?"
    r"[ \t]*(?:\bis\b|\bare\b|=|:|：|是|为|為)?[ \t]*['\"]?"
    + _USER
    + r"['\"]?[ \t]*(?:/|:|,)[ \t]*['\"]?"
    + _VALUE
)
_LOGIN_AS = re.compile(
    r"(?i)\b(?:log[ -]?in|sign[ -]?in|connect|ssh|authenticate)[ \t]+as[ \t]+"
    + _USER
    + r"[ \t]+(?:with|using|and)[ \t]+(?:(?:the[ \t]+)?password[ \t]+)?['\"]?"
    + _VALUE
)
# `pw: X`, `password X` with no "is" (the prose rule needs one), a `*_PASS=` key.
_BARE_PASSWORD = re.compile(
    r"(?i)(?<![A-Za-z0-9])(?:(?:pw|pwd|passwd|password|passphrase)(?:[ \t]*[:=][ \t]*|[ \t]+)|"
    r"pass[ \t]*[:=][ \t]*)['\"]?" + _VALUE
)
_JAVA_PASS = re.compile(
    r"(?i)(?<![\w-])-(?:storepass|keypass|srcstorepass|deststorepass|srckeypass|destkeypass)\s+"
    + _ARG
)
# Environment variables that tools read a password from, whose names say no "password".
_TOOL_ENV = re.compile(
    r"\b(?:SSHPASS|REDISCLI_AUTH|SMBPASS|MYSQL_PWD)=['\"]?(?P<v>[^\s'\";|&]{1,128})"
)
_PASS_KEY = re.compile(r"(?i)(?<![A-Za-z0-9])[A-Za-z0-9]+_PASS[ \t]*[:=][ \t]*['\"]?" + _VALUE)

# -- split tokens -------------------------------------------------------------------------
# Prefixes that only a credential starts with (their full formats are in secret_rules).
TOKEN_PREFIX = (
    r"(?:gh[pousr]_|github_pat_|glpat-|gldt-|xox[abposr]-|xapp-\d-|sk-ant-[A-Za-z0-9]{2,8}-|"
    r"sk-proj-|sk_live_|rk_live_|hf_|npm_|pypi-|dop_v1_|AKIA|ASIA|AIza|ya29\.|GOCSPX-|"
    r"sntry[us]_|lin_api_|hvs\.|AGE-SECRET-KEY-1)"
)
PREFIX_NEEDLES = (
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-", "xox", "xapp-",
    "sk-", "sk_live_", "rk_live_", "hf_", "npm_", "pypi-", "dop_v1_", "akia", "asia", "aiza",
    "ya29.", "gocspx-", "sntry", "lin_api_", "hvs.", "age-secret-key-1",
)  # fmt: skip
_HEAD = TOKEN_PREFIX + r"[A-Za-z0-9_-]{4,}"
_SPLIT = re.compile(
    r"(?<![A-Za-z0-9_-])(?P<a>" + _HEAD + r")[ \t]*\r?\n[ \t]*(?:[-*+>][ \t]+)?"
    r"(?P<b>[A-Za-z0-9_-]{6,})(?![A-Za-z0-9_-])"
)
# A known prefix with a body too short for its full format, alone at the end of a line
# or of the text (its other half was cut off, or is another entry).
TOKEN_HEAD = re.compile(r"(?<![A-Za-z0-9_-])" + _HEAD + r"[ \t]*(?=\r?\n|$)")


def _prefix_kind(head: str) -> str:
    low = head.lower()
    for needle, kind in (
        ("gh", "github-token"), ("github_pat_", "github-token"), ("gl", "gitlab-token"),
        ("xox", "slack-token"), ("xapp", "slack-token"), ("sk-ant-", "anthropic-key"),
        ("sk-proj-", "openai-key"), ("sk_live_", "stripe-key"), ("rk_live_", "stripe-key"),
        ("akia", "aws-access-key-id"), ("asia", "aws-access-key-id"),
        ("aiza", "google-api-key"),
    ):  # fmt: skip
        if low.startswith(needle):
            return kind
    return "token"


def _continuation(value: str) -> bool:
    return sum((any(c.islower() for c in value), any(c.isupper() for c in value),
                any(c.isdigit() for c in value))) >= 2  # fmt: skip


def _redact_split(text: str) -> tuple[str, int]:
    count = 0

    def join(m: re.Match[str]) -> str:
        nonlocal count
        if not _continuation(m.group("b")) or PLACEHOLDER.match(m.group("b")):
            return m.group(0)
        count += 1
        kind = _prefix_kind(m.group("a"))
        whole, a0 = m.group(0), m.start(0)
        b_at = m.start("b") - a0
        return mark(kind) + whole[len(m.group("a")) : b_at] + mark(kind) + whole[m.end("b") - a0 :]

    if "\n" in text:
        text = _SPLIT.sub(join, text)

    def head(m: re.Match[str]) -> str:
        nonlocal count
        body = m.group(0).strip()
        if re.search(r"x{4,}|X{4,}|\.\.\.|<|\*\*", body) or not _continuation(body[4:]):
            return m.group(0)
        count += 1
        return mark(_prefix_kind(body)) + m.group(0)[len(m.group(0).rstrip()) :]

    return TOKEN_HEAD.sub(head, text), count


FAMILY_FINDERS: list[tuple[str, Callable[[str, str], bool], Callable[[str], tuple[str, int]]]] = [
    ("split-token", lambda t, low: any(n in low for n in PREFIX_NEEDLES), _redact_split),
    ("webhook", lambda t, low: "hook" in low and "://" in t, _redact_webhooks),
    ("netrc", lambda t, low: "login" in low, _replace_group(_NETRC, "password", _value_ok)),
    ("pgpass", lambda t, low: t.count(":") >= 4, _replace_group(_PGPASS, "password", _value_ok)),
    (
        "cmdline-user",
        lambda t, low: "-u" in low or "--" in low,
        _replace_group(_USER_PASS, "password", lambda v: _value_ok(v, strict=False)),
    ),
    (
        "cmdline-flag",
        lambda t, low: "pass" in low,
        _replace_group(_LONG_FLAG, "password", lambda v: _value_ok(v, strict=False)),
    ),
    (
        "cmdline-tool",
        lambda t, low: " -" in t or "/user:" in low,
        _replace_group(_TOOL_FLAG, "password", lambda v: _value_ok(v, strict=False)),
    ),
    (
        "java-keystore",
        lambda t, low: "pass " in low,
        _replace_group(_JAVA_PASS, "password", lambda v: _value_ok(v, strict=False)),
    ),
    ("cmdline-smb", lambda t, low: "%" in t, _replace_group(_SMB, "password", _value_ok)),
    (
        "openssl-pass",
        lambda t, low: "pass:" in low,
        _replace_group(_OPENSSL_PASS, "password", lambda v: _value_ok(v, strict=False)),
    ),
    ("dsn", lambda t, low: "@" in t, _replace_group(_DSN, "dsn-password", _dsn_ok)),
    (
        "login-prose",
        lambda t, low: any(w in low for w in ("log", "sign", "cred", "account", "user", "密")),
        _replace_group(_LOGIN_PROSE, "password", _value_ok),
    ),
    ("login-as", lambda t, low: " as " in low, _replace_group(_LOGIN_AS, "password", _value_ok)),
    (
        "bare-password",
        lambda t, low: "pw" in low or "pass" in low,
        _replace_group(_BARE_PASSWORD, "password", _value_ok),
    ),
    ("pass-key", lambda t, low: "_pass" in low, _replace_group(_PASS_KEY, "password", _value_ok)),
    (
        "tool-env",
        lambda t, low: "pass=" in low or "auth=" in low or "pwd=" in low,
        _replace_group(_TOOL_ENV, "password", lambda v: _value_ok(v, strict=False)),
    ),
]
