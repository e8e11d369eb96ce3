"""An LLM provider's API key: from its variable (ANTHROPIC_API_KEY, OPENAI_API_KEY), else from the
system keyring, where each provider has an entry of its own.

Never from a settings file, and never a plaintext fallback: on a machine with no usable keyring
backend, we say so and point to the variable.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

from osiris.errors import UsageError

SERVICE = "osiris"
USERNAME = "anthropic-api-key"
ENV_VAR = "ANTHROPIC_API_KEY"
ENV_SOURCE = f"env {ENV_VAR}"
KEYRING_SOURCE = "keyring"
# provider -> (environment variable, keyring entry); Anthropic's entry is the one older versions wrote.
KEY_PLACES = {"anthropic": (ENV_VAR, USERNAME), "openai": ("OPENAI_API_KEY", "openai-api-key")}
T = TypeVar("T")


class KeyringBackend(Protocol):
    """What Osiris calls on a keyring backend (`keyring.backend.KeyringBackend`; keyring ships no types)."""

    def get_password(self, service: str, username: str) -> str | None: ...

    def set_password(self, service: str, username: str, password: str) -> None: ...

    def delete_password(self, service: str, username: str) -> None: ...


def env_var(provider: str = "anthropic") -> str:
    """The environment variable that holds `provider`'s key."""
    return KEY_PLACES[provider][0]


class KeyringUnavailableError(UsageError):
    """No usable keyring backend on this machine."""

    def __init__(self, detail: str = "", variable: str = ENV_VAR) -> None:
        reason = f" ({detail})" if detail else ""
        super().__init__(
            f"no usable system keyring on this machine{reason}; "
            f"set the key in the environment instead: export {variable}=..."
        )


def get_api_key(env: Mapping[str, str] | None = None, provider: str = "anthropic") -> tuple[str | None, str | None]:
    """(key, source): the env var wins; then the keyring; (None, None) when there is none."""
    env = os.environ if env is None else env
    variable, username = KEY_PLACES[provider]
    if env.get(variable):
        return env[variable], f"env {variable}"
    try:
        key = _call(lambda backend: backend.get_password(SERVICE, username))
    except KeyringUnavailableError:
        return None, None
    return (key, KEYRING_SOURCE) if key else (None, None)


def keyring_available() -> bool:
    """Whether this machine has a usable keyring backend (so `osiris auth login` can work)."""
    try:
        _backend()
    except KeyringUnavailableError:
        return False
    return True


def require_keyring(provider: str = "anthropic") -> None:
    """Raise KeyringUnavailableError (exit 2) when there is no usable keyring backend."""
    try:
        _backend()
    except KeyringUnavailableError:
        raise KeyringUnavailableError(variable=env_var(provider)) from None


def store_api_key(key: str, provider: str = "anthropic") -> None:
    """Save the key in the system keyring (raises KeyringUnavailableError without one)."""
    username = KEY_PLACES[provider][1]
    _call(lambda backend: backend.set_password(SERVICE, username, key))


def delete_api_key(provider: str = "anthropic") -> bool:
    """Remove the key from the keyring; False when there was none."""
    import keyring.errors

    username = KEY_PLACES[provider][1]

    def delete(backend: KeyringBackend) -> bool:
        try:
            backend.delete_password(SERVICE, username)
        except keyring.errors.PasswordDeleteError:
            return False
        return True

    return _call(delete)


def mask(key: str) -> str:
    """Only the last 4 characters, e.g. '…a1b2'."""
    return f"…{key[-4:]}" if len(key) > 4 else "…"


def _backend() -> KeyringBackend:
    """The active keyring backend, or KeyringUnavailableError for keyring's fail backend (told
    without importing keyring where no backend can be usable: osiris.secrets.keyring_probe)."""
    from osiris.secrets.keyring_probe import surely_none

    if surely_none():
        raise KeyringUnavailableError()
    import keyring
    import keyring.backends.fail

    backend: KeyringBackend = keyring.get_keyring()
    if isinstance(backend, keyring.backends.fail.Keyring):
        raise KeyringUnavailableError()
    return backend


def _call(action: Callable[[KeyringBackend], T]) -> T:
    """Run `action(backend)`, turning keyring failures into KeyringUnavailableError."""
    import keyring.errors

    backend = _backend()
    try:
        return action(backend)
    except keyring.errors.KeyringError as error:
        raise KeyringUnavailableError(str(error)) from None
