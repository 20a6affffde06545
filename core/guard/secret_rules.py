"""The secret formats the guard knows: one table of regular expressions.

Each rule is (name, pattern, kind, group): the match (or only its named group `v`)
becomes `[REDACTED:<kind>]`. Order matters: specific provider formats run first, so a
later generic rule sees `[REDACTED:...]` and leaves it alone. `NEEDLES` lists, per rule,
lower-case strings the rule cannot match without: most text has no secret at all, and
`in` on a string is far cheaper than a regex scan.

Rules that need to look at the words around a value (passwords in prose, hex and
high-entropy tokens near a secret-ish word) are in `secret_context.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

B = r"(?<![A-Za-z0-9_])"  # left boundary that treats '_' as part of a word
E = r"(?![A-Za-z0-9_])"


@dataclass(frozen=True)
class SecretRule:
    name: str
    pattern: re.Pattern[str]
    kind: str
    needles: tuple[str, ...] | None  # None: always run
    group_only: bool = False  # replace only the named group `v`


def _rule(
    name: str, regex: str, kind: str, needles: tuple[str, ...] | None, flags: int = 0
) -> SecretRule:
    pattern = re.compile(regex, flags)
    return SecretRule(name, pattern, kind, needles, "v" in pattern.groupindex)


PROVIDER_RULES: list[SecretRule] = [
    _rule(
        "private-key",
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
        "private-key",
        ("private key",),
        re.DOTALL,
    ),
    # The second half of a key block whose BEGIN line was cut off (an excerpt, a
    # message boundary): everything from the start of the text to the END line.
    _rule(
        "private-key-tail",
        r"\A(?:(?!-----BEGIN).)*?-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----",
        "private-key",
        ("private key-----",),
        re.DOTALL,
    ),
    _rule(
        "putty-key",
        r"PuTTY-User-Key-File-\d:.*?(?:Private-MAC:\s*\S+|\Z)",
        "private-key",
        ("putty-user-key",),
        re.DOTALL,
    ),
    _rule(
        "jwt", r"\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{4,}", "jwt", ("eyj",)
    ),
    _rule(
        "anthropic-key",
        B + r"sk-ant-[A-Za-z0-9]{2,8}-[A-Za-z0-9_-]{20,}",
        "anthropic-key",
        ("sk-ant-",),
    ),
    _rule(
        "openai-key",
        B + r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}",
        "openai-key",
        ("sk-",),
    ),
    _rule(
        "stripe-key",
        B + r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
        "stripe-key",
        ("_live_", "_test_"),
    ),
    _rule("stripe-webhook-secret", B + r"whsec_[A-Za-z0-9]{20,}", "stripe-key", ("whsec_",)),
    _rule("google-api-key", B + r"AIza[0-9A-Za-z_-]{35}", "google-api-key", ("aiza",)),
    _rule("google-oauth-token", B + r"ya29\.[0-9A-Za-z_-]{20,}", "google-oauth", ("ya29.",)),
    _rule("google-oauth-secret", B + r"GOCSPX-[A-Za-z0-9_-]{20,}", "google-oauth", ("gocspx-",)),
    _rule(
        "github-token",
        B + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        "github-token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _rule(
        "gitlab-token",
        B + r"gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{20,}",
        "gitlab-token",
        ("gl",),
    ),
    _rule("slack-token", B + r"xox[abposrec]-[A-Za-z0-9-]{10,}", "slack-token", ("xox",)),
    _rule("slack-app-token", B + r"xapp-\d-[A-Za-z0-9-]{20,}", "slack-token", ("xapp-",)),
    _rule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+",
        "slack-webhook",
        ("hooks.slack.com",),
    ),
    _rule(
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}",
        "discord-webhook",
        ("discord",),
    ),
    _rule("npm-token", B + r"npm_[A-Za-z0-9]{30,}", "npm-token", ("npm_",)),
    _rule("sentry-token", B + r"sntry[us]_[A-Za-z0-9_=+/-]{20,}", "sentry-token", ("sntry",)),
    _rule("huggingface-token", B + r"hf_[A-Za-z0-9]{30,}", "hf-token", ("hf_",)),
    _rule("pypi-token", B + r"pypi-[A-Za-z0-9_-]{40,}", "pypi-token", ("pypi-",)),
    _rule(
        "sendgrid-key", B + r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}", "sendgrid-key", ("sg.",)
    ),
    _rule("twilio-key", B + r"(?:SK|AC)[0-9a-fA-F]{32}" + E, "twilio-key", ("sk", "ac")),
    _rule(
        "telegram-bot-token", B + r"\d{8,10}:AA[A-Za-z0-9_-]{33}" + E, "telegram-token", (":aa",)
    ),
    _rule("digitalocean-token", B + r"do[opr]_v1_[a-f0-9]{64}", "digitalocean-token", ("_v1_",)),
    _rule("shopify-token", B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}", "shopify-token", ("shp",)),
    _rule("databricks-token", B + r"dapi[a-f0-9]{32}" + E, "databricks-token", ("dapi",)),
    _rule("mailgun-key", B + r"key-[0-9a-f]{32}" + E, "mailgun-key", ("key-",)),
    _rule(
        "square-token",
        B + r"(?:sq0atp|sq0csp|EAAA)[A-Za-z0-9_-]{22,}",
        "square-token",
        ("sq0", "eaaa"),
    ),
    _rule("linear-key", B + r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}", "linear-key", ("lin_",)),
    _rule(
        "vault-token", B + r"hv[sbr]\.[A-Za-z0-9_-]{24,}", "vault-token", ("hvs.", "hvb.", "hvr.")
    ),
    _rule(
        "doppler-token",
        B + r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{30,}",
        "doppler-token",
        ("dp.",),
    ),
    _rule("age-secret-key", B + r"AGE-SECRET-KEY-1[0-9A-Z]{50,}", "age-key", ("age-secret-key",)),
    _rule(
        "aws-access-key-id",
        B + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[A-Z0-9]{16}" + E,
        "aws-access-key-id",
        ("akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "anva", "apka"),
    ),
    # Azure storage / service bus / event hub connection strings and SAS signatures.
    _rule(
        "azure-key",
        r"(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature|SharedSecretValue|PrimaryKey|SecondaryKey)\s*=\s*(?P<v>[A-Za-z0-9+/%=._-]{16,})",
        "azure-key",
        ("accountkey", "sharedaccess", "sharedsecret", "primarykey", "secondarykey"),
    ),
    _rule("sas-signature", r"(?i)[?&;]sig=(?P<v>[A-Za-z0-9%+/=]{16,})", "azure-sas", ("sig=",)),
    _rule(
        "authorization-header",
        r"(?i)\b(?:proxy-)?authorization\s*[:=]\s*[\"']?(?:(?:bearer|basic|token|digest|apikey|negotiate)\s+)?(?P<v>[^\s\"',;]+)",
        "auth-header",
        ("authorization",),
    ),
    _rule(
        "api-key-header",
        r"(?i)\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key)\s*:\s*[\"']?(?P<v>[^\s\"',;]{8,})",
        "auth-header",
        ("api-key", "-token"),
    ),
    _rule(
        "bearer-token",
        r"(?i)\b(?:bearer|basic)\s+(?P<v>[A-Za-z0-9._~+/=-]{16,})",
        "auth-header",
        ("bearer", "basic"),
    ),
    _rule("cookie", r"(?i)\b(?:set-)?cookie\s*:\s*(?P<v>[^\n'\"]+)", "cookie", ("cookie",)),
    # .npmrc's legacy `_auth=` (base64 of user:password) and `_password=`.
    _rule(
        "npmrc-auth",
        r"(?im)(?<![A-Za-z0-9])_(?:auth|password)\s*=\s*(?P<v>\S{8,})",
        "npm-token",
        ("_auth", "_password"),
    ),
]

# A `KEY=value` / `"key": "value"` whose key names a secret.
ASSIGNMENT = re.compile(
    r"(?i)(?<![A-Za-z0-9])[\"']?(?P<key>[A-Za-z0-9_.-]*"
    r"(?:passw(?:or)?d|passwd|passphrase|pwd|secret(?!s)|token(?!s)|api[_-]?key(?!s)|apikey|access[_-]?key(?!s)|"
    r"private[_-]?key|client[_-]?secret|session[_-]?(?:id|key)|auth[_-]?key|credentials?|signing[_-]?key|"
    r"encryption[_-]?key|master[_-]?key|account[_-]?key|webhook[_-]?url|dsn)"
    r"[A-Za-z0-9_.-]*)[\"']?\s*(?:=|:)\s*[\"']?(?P<value>[A-Za-z0-9!#$%&()*+./:=?@^_{|}~\\\[\]-]+)"
)
# Cheap test that ASSIGNMENT can match at all: a secret-ish key word right before `=`/`:`
# (the full pattern backtracks over every word of the text, this one starts with words).
ASSIGNMENT_TRIGGER = re.compile(
    r"(?i)(?:passw|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|"
    r"session[_-]?(?:id|key)|auth[_-]?key|credential|signing[_-]?key|encryption[_-]?key|master[_-]?key|"
    r"account[_-]?key|webhook[_-]?url|dsn)[A-Za-z0-9_.-]*[\"']?\s*[:=]"
)
ASSIGNMENT_NEEDLES: tuple[str, ...] = (
    "pass", "pwd", "secret", "token", "key", "credential", "session", "dsn", "webhook",
)  # fmt: skip

# `scheme://user:password@host`
URL_PASSWORD = re.compile(
    r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^\s:/@'\"]*):(?P<pw>[^\s@/'\"]+)@"
)

# Values that are references or placeholders, not secrets.
PLACEHOLDER = re.compile(
    r"""^(?:
        \$\{?[A-Za-z_]|\$\(|%[A-Za-z_]|<[^>]*>?|\{\{|\[REDACTED|\*{3,}|x{3,}|X{3,}|\.{3}|…
        |(?:true|false|null|none|nil|yes|no|on|off|required|optional|string|str|bytes|
           env|secret|secrets|example|changeme|include|omit|same-origin|none|inherit|redacted|placeholder|your[_-].*|
           os\.environ.*|process\.env.*|getenv.*|settings\..*|config\..*|import\.meta.*|vault:.*|op://.*|
           ENV\[.*|\w+\.env\b.*)$
        |\d+$
    )""",
    re.IGNORECASE | re.VERBOSE,
)

# Personal home paths: the user name in them is personal.
HOME_PATHS: list[re.Pattern[str]] = [
    re.compile(r"(?<![A-Za-z0-9_.~-])/home/(?!\[)[^/\s'\"`:;,)\]]+(?=/|\b|$)"),
    re.compile(r"(?<![A-Za-z0-9_.~-])/Users/(?!Shared\b)[^/\s'\"`:;,)\]]+(?=/|\b|$)"),
    re.compile(r"(?i)\b[A-Z]:\\+Users\\+(?!Public\b)[^\\\s'\"`:;,)\]]+(?=\\|\b|$)"),
]
