"""The API key for a run: the provider's variable (ANTHROPIC_API_KEY, OPENAI_API_KEY), else the
system keyring (`osiris auth login [--provider openai]`). A server on this machine needs none."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

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
NO_OPENAI_KEY_MESSAGE = (
    "no OpenAI API key for {where}: set OPENAI_API_KEY or run `osiris auth login --provider openai`; "
    "a server on this machine (llm.base_url on 127.0.0.1 or localhost, e.g. Ollama) needs none"
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


def openai_api_key(env: Mapping[str, str], base_url: str | None) -> str | None:
    """OPENAI_API_KEY, else the keyring's; None for a server on this machine that needs none;
    LLMAuthError (exit 3) for a remote server without a key."""
    key, _source = get_api_key(env, provider="openai")
    if key:
        return key
    if base_url is not None and on_this_machine(base_url):
        return None
    raise LLMAuthError(NO_OPENAI_KEY_MESSAGE.format(where=base_url or "api.openai.com"))


def on_this_machine(url: str) -> bool:
    """Whether `url` names a loopback host (localhost, 127.0.0.0/8, ::1)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
