"""The Anthropic API key for a run: ANTHROPIC_API_KEY, else the system keyring (`osiris auth login`)."""

from __future__ import annotations

from collections.abc import Mapping

from osiris.errors import LLMAuthError
from osiris.secrets.keyring_store import get_api_key

NO_KEY_MESSAGE = (
    "no Anthropic API key: set ANTHROPIC_API_KEY or run `osiris auth login`; "
    "`--provider demo` works offline without a key"
)
NO_KEY_NO_KEYRING_MESSAGE = (
    "no Anthropic API key: set ANTHROPIC_API_KEY (this machine has no usable system keyring, so "
    "`osiris auth login` cannot keep one); `--provider demo` works offline without a key"
)


def no_key_message() -> str:
    """The no-key line; it recommends `osiris auth login` only where a keyring can keep the key."""
    from osiris.secrets.keyring_store import keyring_available

    return NO_KEY_MESSAGE if keyring_available() else NO_KEY_NO_KEYRING_MESSAGE


def require_api_key(env: Mapping[str, str]) -> tuple[str, str]:
    """(key, source), source being "env ANTHROPIC_API_KEY" or "keyring"; or LLMAuthError (exit 3)."""
    key, source = get_api_key(env)
    if not key:
        raise LLMAuthError(no_key_message())
    return key, source or "unknown"
