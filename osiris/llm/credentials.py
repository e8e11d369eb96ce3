"""Where the Anthropic API key comes from: ANTHROPIC_API_KEY, else the system keyring."""

from __future__ import annotations

from collections.abc import Mapping

from osiris.errors import LLMAuthError

NO_KEY_MESSAGE = (
    "no Anthropic API key: set ANTHROPIC_API_KEY or run `osiris auth login`; "
    "`--provider demo` works offline without a key"
)


def find_api_key(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(key, source) with source "env ANTHROPIC_API_KEY" or "keyring"; (None, None) if none."""
    try:
        from osiris.secrets.keyring_store import get_api_key
    except ImportError:  # TODO: osiris.secrets.keyring_store.get_api_key (issue 2) once on main
        key = env.get("ANTHROPIC_API_KEY") or None
        return key, ("env ANTHROPIC_API_KEY" if key else None)
    return get_api_key(env)


def require_api_key(env: Mapping[str, str]) -> tuple[str, str]:
    """The key and its source, or LLMAuthError (exit 3) saying how to set one."""
    key, source = find_api_key(env)
    if not key:
        raise LLMAuthError(NO_KEY_MESSAGE)
    return key, source or "unknown"
