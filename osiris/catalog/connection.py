"""`@family.alias` -> the connection's fields from settings, `${NAME}` references resolved now
(from the environment or the keyring, as `osiris run` does: osiris.run.connections).

The resolved fields hold secrets: they go to a driver and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from osiris.errors import UsageError
from osiris.suggest import did_you_mean, listing


def parse_connection(reference: str) -> tuple[str, str]:
    """"@mysql.default" -> ("mysql", "default"); UsageError for anything else."""
    from osiris.validate.connections import parse_reference

    parsed = parse_reference(reference)
    if parsed is None:
        raise UsageError(f"'{reference}' is not a connection reference; write it as @family.alias, e.g. @mysql.default")
    return parsed[0].lower(), parsed[1]


def resolve_connection(connections: Mapping[str, Any], env: Mapping[str, str], family: str,
                       alias: str) -> dict[str, Any]:
    """The fields of `connections.<family>.<alias>` with `${NAME}` taken from `env` or the keyring."""
    from osiris.run.connections import KEYRING_SERVICE, lookup, reference_name

    aliases = connections.get(family) or {}
    if alias not in aliases:
        known = [f"@{family}.{name}" for name in sorted(aliases)]
        where = (f"configured: {listing(known)}{did_you_mean(f'@{family}.{alias}', known)}" if known
                 else f"add connections.{family}.{alias} to .osiris.yaml")
        raise UsageError(f"connection '@{family}.{alias}' is not configured ({where})")
    resolved: dict[str, Any] = {}
    for name, value in (aliases[alias] or {}).items():
        variable = reference_name(value)
        if variable is not None:
            value = lookup(variable, env)
            if value is None:
                raise UsageError(f"connection '@{family}.{alias}' field '{name}' refers to ${{{variable}}}, "
                                 "which is not set in the environment or the keyring "
                                 f"(keyring set {KEYRING_SERVICE} {variable})")
        resolved[name] = value
    return resolved
