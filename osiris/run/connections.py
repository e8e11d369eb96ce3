"""Resolve a step's connection at run time: `@family.alias` fields and `${NAME}` references.

`${NAME}` is taken from the environment, else from the system keyring (service "osiris", user
NAME), e.g. stored with `keyring set osiris PG_PASSWORD`. The resolved values (passwords among
them) live only in memory, in the step's config; their secret values are returned too, so that
every text from a driver can be redacted. `osiris discover` resolves connections the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from osiris.run.driver import RuntimeProblem
from osiris.secrets.names import is_secret_key
from osiris.secrets.redact import secret_text
from osiris.validate.connections import CONNECTION_KEY, parse_reference

_ENV_REFERENCE = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
KEYRING_SERVICE = "osiris"

Connections = Mapping[str, Mapping[str, Mapping[str, Any]]]


def resolve_step_config(
    config: Mapping[str, Any],
    connections: Connections,
    env: Mapping[str, str],
    secret_fields: set[str] = frozenset(),  # type: ignore[assignment]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The step's config merged over its connection's fields, `${ENV}` resolved; and the secrets.

    Raises RuntimeProblem OML511 when an alias is not configured or a variable is not set.
    """
    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}
    reference = config.get(CONNECTION_KEY)
    if isinstance(reference, str) and reference.startswith("@"):
        family, alias = parse_reference(reference) or ("", "")
        fields = connections.get(family, {}).get(alias)
        if fields is None:
            raise RuntimeProblem(
                "OML511", f"connection '{reference}' is not configured",
                f"define connections.{family}.{alias} in .osiris.yaml", value=reference)
        for name, value in fields.items():
            merged[name] = value
            origin[name] = f"connections.{family}.{alias}.{name}"
    for name, value in config.items():
        if name != CONNECTION_KEY:
            merged[name] = value
            origin[name] = f"config.{name}"
    secrets: list[str] = []
    for name, value in list(merged.items()):
        resolved = _resolve(value, env, origin[name])
        merged[name] = resolved
        text = secret_text(resolved)
        if (name.lower() in secret_fields or is_secret_key(name)) and text:
            secrets.append(text)
    return merged, tuple(secrets)


def reference_name(value: Any) -> str | None:
    """"${PG_PASSWORD}" -> "PG_PASSWORD"; None for any other value."""
    match = _ENV_REFERENCE.match(value.strip()) if isinstance(value, str) else None
    return match.group(1) if match else None


def lookup(name: str, env: Mapping[str, str]) -> str | None:
    """The value of `${name}`: the environment first, then the system keyring; None when neither has it."""
    if name in env:
        return env[name]
    return _from_keyring(name)


def unset_hint(name: str) -> str:
    return (f"set the environment variable {name} in the shell that runs osiris, or store it in the "
            f"system keyring: keyring set {KEYRING_SERVICE} {name} (its value is never written anywhere)")


def _from_keyring(name: str) -> str | None:
    """The keyring's value for `name`, or None (also when this machine has no usable keyring)."""
    from osiris.secrets.keyring_store import keyring_available

    if not keyring_available():
        return None
    import keyring
    import keyring.errors

    try:
        return keyring.get_password(KEYRING_SERVICE, name)
    except keyring.errors.KeyringError:
        return None


def _resolve(value: Any, env: Mapping[str, str], where: str) -> Any:
    name = reference_name(value)
    if name is None:
        return value
    found = lookup(name, env)
    if found is None:
        raise RuntimeProblem("OML511", f"{where} refers to ${{{name}}}, which is not set", unset_hint(name),
                             value=value)
    return found
