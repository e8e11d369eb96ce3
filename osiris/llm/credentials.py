"""The Anthropic API key for a run: ANTHROPIC_API_KEY, else the system keyring (`osiris auth login`)."""

from __future__ import annotations

from collections.abc import Mapping

from osiris.errors import LLMAuthError
from osiris.secrets.keyring_store import get_api_key

NO_KEY_MESSAGE = (
    "no Anthropic API key: set ANTHROPIC_API_KEY or run `osiris auth login`; "
    "`--provider demo` works offline without a key"
)


def require_api_key(env: Mapping[str, str]) -> tuple[str, str]:
    """(key, source), source being "env ANTHROPIC_API_KEY" or "keyring"; or LLMAuthError (exit 3)."""
    key, source = get_api_key(env)
    if not key:
        raise LLMAuthError(NO_KEY_MESSAGE)
    return key, source or "unknown"
