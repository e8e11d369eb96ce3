"""The shapes of secrets in free text, as linear-time regular expressions.

Every pattern here runs in time linear in the text: character classes with one quantifier each,
alternatives that start with different characters, bounded lengths, and no quantified group that
can match the same text in two ways. Hostile text cannot stall the redactor (tests/test_secrets_patterns.py
feeds it long runs of the characters each pattern cares about).
"""

from __future__ import annotations

import re

# scheme://user:password@host; the scheme is bounded so that long dotted text stays linear.
DSN_PASSWORD = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.\-]{0,30}://[^\s:/@]*:)(?P<secret>[^\s@/]+)(?=@)")

# `Authorization: Bearer x`, `Basic x`, `Token x` in headers, curl lines and messages; not a URL's
# path segment (`GET https://h/bearer answered 401` keeps its words).
AUTH_SCHEME = re.compile(r"(?P<head>(?<![/\w])(?:[Bb]earer|[Bb]asic|[Tt]oken|[Dd]igest)[ \t]+)(?P<secret>[A-Za-z0-9\-._~+/]{8,}=*)")
AUTH_SCHEME_CLUES = ("bearer", "basic", "token", "digest")  # in lower case, as below

# Vendor key shapes: Anthropic, OpenAI, AWS access key id, GitHub, Slack, Google, Stripe; each with
# a literal one of which any match contains (a cheap test that skips the scan of text without it).
VENDOR_KEYS: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (("sk-ant-",), re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{8,}")),
    (("sk-",), re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_\-]{20,}")),
    (("AKIA", "ASIA"), re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    (("gh", "github_pat_"), re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})")),
    (("xox",), re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}")),
    (("AIza",), re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    (("k_live_",), re.compile(r"\b[rs]k_live_[0-9A-Za-z]{16,}")),
    (("eyJ",), re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")),  # JWT (Supabase keys)
]

# A quoted value, escapes and doubled quotes included: "a\"b", 'it''s'.
_DQ = r'"(?:[^"\\\n]|\\.){0,4096}"'
_SQ = r"'(?:[^'\n]|''){0,4096}'"
_ENV = r"\$\{[A-Za-z_][A-Za-z0-9_]{0,100}\}"

# A key, bare or quoted (`password`, `"password"`, `'token'`); a quoted key may close with `\"`, as
# inside a JSON string. The closing quote is required only when the key opened with one.
_KEY = r"""(?P<quote>["'])?(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,80})(?(quote)\\?(?P=quote))"""

# `key: value` and `"key": "value"` (YAML, JSON, headers); after a quoted key the blank is optional,
# as in compact JSON (`{"password":"x"}`). The key stands alone: in `/steps/0/config/password: message`
# the key is a path, not an assignment.
COLON_ASSIGNMENT = re.compile(
    rf"""(?P<head>(?<![\w/.\-]){_KEY}[ \t]*:(?(quote)[ \t]*|[ \t]+))"""
    rf"""(?P<value>{_ENV}(?=[\s,;}}\]]|$)|\$\{{[^\n}}]{{0,100}}\}}[^\n,;}}\]]*|{_DQ}|{_SQ}|[^\s,;{{}}\[\]][^\n,;}}\]]*?(?=[ \t]#|[\n,;}}\]]|$))"""
)

# `password: [a, b]` or `"token": {x: y}`: a key whose value is a flow collection (the `[` or `{`
# follows the match), which runs to the end of its line in text that does not parse.
FLOW_ASSIGNMENT = re.compile(
    rf"""(?<![\w/.\-]){_KEY}[ \t]*:[ \t]*(?:[&!][^\s]{{0,200}}[ \t]+){{0,2}}(?=[\[{{])"""
)
# The scalars of a flow collection, as free text sees them: what lies between its indicators.
FLOW_ITEM = re.compile(r"[ \t]*(?:\$\{[^}\n]{0,100}\}[^\[\]{},:\n]*|[^\[\]{},:\n]+)")

# An anchor and/or a tag before a YAML value: `&pw !!str ` in `password: &pw !!str x`.
YAML_PROPERTIES = re.compile(r"(?:[&!][^\s]{0,200}[ \t]+){1,2}")

# `password: |` or `"password": >-` opening a YAML block scalar, whose lines follow more indented.
BLOCK_SCALAR_KEY = re.compile(
    r"""(?P<indent>[ \t]*)(?:-[ \t]+)?(?P<quote>["']?)(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,80})(?P=quote)[ \t]*:"""
    r"""[ \t]+(?:[&!][^\s]{0,100}[ \t]+){0,2}[|>][-+0-9]{0,3}[ \t]*(?:#[^\n]*)?\n?"""
)

# `key=value` in query strings, DSN options, env lines and shell commands: the value stops at
# `&`, quotes and blanks, so `endpoint: "/customers?token=S"` masks S and keeps the closing quote.
EQUALS_ASSIGNMENT = re.compile(
    rf"""(?P<head>(?<![\w.\-]){_KEY}[ \t]*=[ \t]*)"""
    rf"""(?P<value>{_ENV}(?=[\s"'&;,#}}\])]|$)|\$\{{[^\n}}]{{0,100}}\}}[^\s"'&;,#}}\])]*|{_DQ}|{_SQ}|[^\s"'&;,#}}\])][^\s"'&;,#}}\])]*)"""
)

# `?name=value` and `&name=value` in a URL or path: the parameters a URL carries.
QUERY_PARAMETER = re.compile(r"[?&;](?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,80})=(?P<value>[^&#\s]+)")

# Header lines whose whole value is secret, whatever it holds (`Cookie: a=1; b=2`).
SECRET_HEADER = re.compile(
    r"(?im)(?P<head>(?<![\w\-])(?:proxy-authorization|authorization|set-cookie|cookie)[ \t]*:[ \t]*)"
    r"(?P<secret>[^\s\"'][^\n\"']*)"
)
SECRET_HEADER_CLUES = ("authorization", "cookie")

# SQL that sets a password: MySQL `IDENTIFIED BY '...'`, PostgreSQL `WITH PASSWORD '...'`,
# `SET PASSWORD = '...'`, `PASSWORD = '...'` in CREATE USER options. A blank or `=` follows the
# word: in `"password": "x"` the quotes are JSON's, and `": "` is not a quoted password.
SQL_PASSWORD = re.compile(
    r"(?i)(?P<head>\b(?:identified(?:[ \t]+with[ \t]+\w{1,40})?[ \t]+(?:by|as)(?:[ \t]+password)?"
    r"|(?:encrypted[ \t]+|unencrypted[ \t]+)?password(?:[ \t]+for[ \t]+[^\s=]{1,100})?(?=[ \t=]))"
    r"[ \t]*(?:=[ \t]*)?)"
    rf"(?P<secret>{_SQ}|{_DQ})"
)
SQL_PASSWORD_CLUES = ("identified", "password")

# Prose: "the password is X", "my API key was X", "token for prod = X", `the "password" is "X"`.
PROSE_SECRET = re.compile(
    r"""(?i)(?P<head>(?P<quote>["'])?\b(?:password|passwd|passphrase|pwd|secret|token|api[ _\-]?key|access[ _\-]?key|pin)"""
    r"""(?(quote)\\?(?P=quote))(?:[ \t]+(?:for|of|to)[ \t]+[^\s]{1,60})?[ \t]+(?:is|was|=)[ \t]*:?[ \t]*)"""
    rf"""(?P<secret>{_DQ}|{_SQ}|[^\s"'](?:[^\s]{{0,200}}[^\s.,;:!?'")\]])?)"""
)
PROSE_SECRET_CLUES = ("pass", "pwd", "secret", "token", "key", "pin")
# Words after "password is" that describe the password rather than being it.
PROSE_NOT_SECRET = frozenset({
    "a", "an", "the", "not", "in", "on", "from", "missing", "required", "set", "stored", "kept", "empty",
    "wrong", "invalid", "correct", "needed", "null", "none", "unset", "ignored", "masked", "secret", "given",
    "there", "here", "this", "that", "it", "my", "your", "our", "their", "expired", "changed", "also",
    "still", "now", "read", "supplied", "provided", "handled", "taken", "used", "hidden", "redacted",
    "valid", "ok", "okay", "fine", "good", "bad", "too", "very", "only", "shown", "sent", "written",
    "known", "unknown", "new", "old", "same", "different", "optional", "mandatory", "long", "short", "weak",
    "strong", "blank", "incorrect", "unavailable", "available", "saved", "gone", "lost", "right",
})

ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}|@[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+")


def is_reference(value: str) -> bool:
    """`${ENV_VAR}` and `@family.alias` name a secret without holding it."""
    return bool(_REFERENCE.fullmatch(value.strip().strip("\"'")))
