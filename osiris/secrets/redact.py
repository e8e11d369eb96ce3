"""Redaction (SPEC §8): mask secrets in text and in data before anything is written or sent.

    redactor = Redactor(known_values=[api_key, mysql_password], secret_fields={"password"})
    redactor.text("mysql://app:hunter2@db/shop")        # 'mysql://app:***@db/shop'
    redactor.data({"password": "x", "max_tokens": 10})  # {'password': '***', 'max_tokens': 10}

What is masked: values of keys that name secrets (`osiris.secrets.names.is_secret_key`) or that
component specs mark secret, passwords inside DSNs, bearer tokens, Anthropic/OpenAI/AWS/GitHub/
Slack-style keys, and every occurrence of the process's own known secret values. Numbers and
booleans (tokens, durations, counts) are never masked; `${ENV}` and `@family.alias` references are
kept, since they are names of secrets, not secrets.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from osiris.secrets.names import MASK, is_secret_key

# Shorter known values would mask ordinary words; such "secrets" are not worth hiding anyway.
MIN_KNOWN_SECRET_LENGTH = 4

_DSN_PASSWORD = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/@]*:)(?P<secret>[^\s@/]+)(?=@)")
_BEARER = re.compile(r"(?P<head>\b[Bb]earer\s+)(?P<secret>[A-Za-z0-9\-._~+/]{8,}=*)")
_KEY_PATTERNS = [
    re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{8,}"),  # Anthropic
    re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9_\-]{20,}"),  # OpenAI
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),  # AWS access key id
    re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),  # GitHub
    re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),  # Slack
]
# `key: value`, `"key": "value"` and `key=value` in free text (YAML, JSON, DSN query strings).
# The key must stand alone: `/steps/0/config/password: message` is a path, not an assignment.
_ASSIGNMENT = re.compile(
    r"""(?P<head>(?<![\w/.\-])(?P<quote>["']?)(?P<key>[A-Za-z_][A-Za-z0-9_.\-]*)(?P=quote)[ \t]*(?::[ \t]+|=[ \t]*))"""
    r"""(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s,;&}\]#][^\n,;&}\]#]*)"""
)


def is_reference(value: str) -> bool:
    """`${ENV_VAR}` and `@family.alias` name a secret without holding it."""
    stripped = value.strip().strip("\"'")
    return bool(re.fullmatch(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}|@[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+", stripped))


class Redactor:
    """Masks secrets in strings and nested data. Build one per session; it is cheap to call."""

    def __init__(self, known_values: Iterable[str] = (), secret_fields: Iterable[str] = ()) -> None:
        self.secret_fields = {name.lower() for name in secret_fields}
        self._verdicts: dict[str, bool] = {}  # key name -> is it secret (the same keys recur a lot)
        self._known: list[str] = []
        self._known_pattern: re.Pattern[str] | None = None
        self.add_known(known_values)

    def add_known(self, values: Iterable[str]) -> None:
        """Remember more secret values (e.g. a resolved connection password)."""
        fresh = {str(v) for v in values if v is not None and len(str(v)) >= MIN_KNOWN_SECRET_LENGTH}
        self._known = sorted(set(self._known) | fresh, key=len, reverse=True)
        if self._known:
            self._known_pattern = re.compile("|".join(re.escape(v) for v in self._known))

    def learn_from(self, data: Any) -> None:
        """Remember the values found under secret keys in `data` (e.g. an LLM's pipeline that wrote
        a password inline), so that they are masked wherever they turn up later, under any key."""
        self.add_known(self._secret_values(data))

    def _secret_values(self, data: Any, key: str | None = None) -> list[str]:
        if isinstance(data, Mapping):
            return [v for k, item in data.items() for v in self._secret_values(item, str(k))]
        if isinstance(data, (list, tuple)):
            return [v for item in data for v in self._secret_values(item, key)]
        if isinstance(data, str) and key is not None and self.is_secret_field(key) and not is_reference(data):
            return [data] if data != MASK else []
        return []

    def is_secret_field(self, name: str) -> bool:
        known = self._verdicts.get(name)
        if known is None:
            known = self._verdicts[name] = name.lower() in self.secret_fields or is_secret_key(name)
        return known

    def text(self, text: str) -> str:
        """Mask every secret found in free text (YAML, prompts, messages, diffs)."""
        if not text:
            return text
        if self._known_pattern is not None:
            text = self._known_pattern.sub(MASK, text)
        text = _DSN_PASSWORD.sub(lambda m: m["head"] + MASK, text)
        text = _BEARER.sub(lambda m: m["head"] + MASK, text)
        for pattern in _KEY_PATTERNS:
            text = pattern.sub(MASK, text)
        return _ASSIGNMENT.sub(self._mask_assignment, text)

    def data(self, value: Any, key: str | None = None) -> Any:
        """A redacted copy of JSON-like data: secret keys masked, every string scanned."""
        if isinstance(value, Mapping):
            return {k: self.data(v, str(k)) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(item, key) for item in value]
        if isinstance(value, str):
            if key is not None and self.is_secret_field(key) and value and not is_reference(value):
                return MASK
            return self.text(value)
        return value  # numbers, booleans, None: operational figures are kept

    def _mask_assignment(self, match: re.Match[str]) -> str:
        value = match["value"].rstrip()
        if not self.is_secret_field(match["key"]) or is_reference(value) or value in ("", MASK):
            return match.group(0)
        if value in ("null", "~", "''", '""') or value.startswith(("|", ">", "{", "[")):
            return match.group(0)
        quote = value[0] if value[0] in "\"'" else ""
        trailing = match["value"][len(value):]
        return f"{match['head']}{quote}{MASK}{quote}{trailing}"


def resolve_env_reference(value: Any, env: Mapping[str, str]) -> Any:
    """`${NAME}` -> env[NAME] (or None when unset); any other value unchanged."""
    if isinstance(value, str):
        found = re.fullmatch(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", value.strip())
        if found:
            return env.get(found.group(1))
    return value


def connection_secrets(
    connections: Mapping[str, Mapping[str, Mapping[str, Any]]],
    env: Mapping[str, str],
    secret_fields: Iterable[str] = (),
) -> list[str]:
    """The resolved values of secret fields in `connections` settings (e.g. a MySQL password)."""
    marked = {name.lower() for name in secret_fields}
    found: list[str] = []
    for aliases in connections.values():
        for fields in aliases.values():
            for name, raw in fields.items():
                if name.lower() in marked or is_secret_key(name):
                    value = resolve_env_reference(raw, env)
                    if isinstance(value, str) and value:
                        found.append(value)
    return found
