"""Which key names hold secrets (docs/sessions.md, "What Osiris masks"): password, token, api_key, secret, ... but not auth_type.

The word `key` alone names a setting, a column or a map entry, not a secret; `api_key`,
`apiKey`, `private_key` and `signing_key` are secrets, `primary_key` and `sort_key` are not.
"""

from __future__ import annotations

import re

MASK = "***"
# Config fields that map HTTP header names to values. A spec that marks one of them secret as a whole
# (public Osiris's graphql spec marks `/headers`) means the headers in it that carry secrets.
HEADER_MAPS = frozenset({"headers"})

_SECRET_WORDS = frozenset({
    "password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "credential", "credentials",
    "authorization", "cookie", "cookies", "pin",
})
_SECRET_PHRASES = ("api_key", "client_secret", "service_role_key", "anon_key")
# `<word>_key` is a secret unless the word says what kind of non-secret key it is.
_PLAIN_KEY_KINDS = frozenset({
    "primary", "sort", "partition", "merge", "upsert", "foreign", "unique", "join", "group", "cache",
    "dedup", "dedupe", "distribution", "cluster", "row", "lookup", "business", "natural", "surrogate",
    "composite", "shard", "idempotency", "hash", "sequence", "order", "index", "map", "dict",
})
# Names that contain a secret word but hold nothing secret (counts, kinds, pagination cursors).
_NOT_SECRET = {"max_tokens", "token_usage", "tokens", "keys", "key_column", "key_columns", "upsert_keys"}
_NOT_SECRET_SUFFIXES = ("_tokens", "_count", "_type", "_path", "_file", "_name", "_header_name", "_env")
_NOT_SECRET_WORDS = frozenset({"page", "cursor", "next", "continuation", "pagination", "sync"})
_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Za-z])(?=[0-9])")


def is_secret_key(name: str) -> bool:
    """True for `password`, `db_password`, `apiKey`, `auth_token`, `Proxy-Authorization`, `signing_key`;
    False for `author`, `auth_type`, `key`, `primary_key`, `next_page_token`."""
    lowered = name.lower()
    if lowered in _NOT_SECRET or lowered.endswith(_NOT_SECRET_SUFFIXES):
        return False
    words = [w.lower() for w in _SPLIT.split(name) if w]
    if not words or _NOT_SECRET_WORDS.intersection(words):
        return False
    if _SECRET_WORDS.intersection(words):
        return True
    joined = "_".join(words)
    if any(phrase in joined for phrase in _SECRET_PHRASES):
        return True
    return len(words) > 1 and words[-1] == "key" and words[-2] not in _PLAIN_KEY_KINDS


def is_secret_header(name: str) -> bool:
    """True for a header that carries a secret: `Authorization`, `Proxy-Authorization`, `Cookie`,
    `Set-Cookie`, `X-API-Key`, `X-Auth-Token`, `Private-Token`, `X-Client-Secret`; False for
    `X-Custom`, `Accept`, `X-Request-Id`. It is the key-name rule (`is_secret_key`), so the
    validator refuses inline (OML310) exactly the headers the redactor masks."""
    return is_secret_key(name)


def is_header_map(pointer: str) -> bool:
    """True for a spec pointer that names a whole header map, e.g. "/headers"."""
    return pointer.strip("/") in HEADER_MAPS
