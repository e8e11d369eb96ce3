"""Which key names hold secrets (SPEC §8): password, token, api_key, secret, ... but not auth_type."""

from __future__ import annotations

import re

MASK = "***"

_SECRET_WORDS = (
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "access_key",
    "private_key",
    "client_secret",
    "credential",
    "credentials",
    "service_role_key",
    "anon_key",
    "key",
)
# Names that contain a secret word but hold nothing secret.
_NOT_SECRET = {"max_tokens", "token_usage", "tokens", "key_column", "primary_key", "primary_keys",
               "sort_key", "partition_key", "keys", "key_columns", "upsert_keys", "merge_key"}
_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])")


def is_secret_key(name: str) -> bool:
    """True for keys such as `password`, `db_password`, `apiKey`, `auth_token`; False for `author`."""
    lowered = name.lower()
    if lowered in _NOT_SECRET or lowered.endswith(("_tokens", "_count", "_type", "_path", "_file")):
        return False
    words = [w for w in _SPLIT.split(name) if w]
    words = [w.lower() for w in words]
    joined = "_".join(words)
    if any(word in _SECRET_WORDS for word in words):
        return True
    return any(phrase in joined for phrase in _SECRET_WORDS if "_" in phrase)
