"""`@family.alias` -> the connection's fields from settings, `${ENV}` references resolved now.

The resolved fields hold secrets: they go to a driver and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from osiris.errors import UsageError
from osiris.suggest import did_you_mean, listing

_ENV = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def parse_connection(reference: str) -> tuple[str, str]:
    """"@mysql.default" -> ("mysql", "default"); UsageError for anything else."""
    from osiris.validate.connections import parse_reference

    parsed = parse_reference(reference)
    if parsed is None:
        raise UsageError(f"'{reference}' is not a connection reference; write it as @family.alias, e.g. @mysql.default")
    return parsed[0].lower(), parsed[1]


def resolve_connection(connections: Mapping[str, Any], env: Mapping[str, str], family: str,
                       alias: str) -> dict[str, Any]:
    """The fields of `connections.<family>.<alias>` with `${NAME}` taken from `env`."""
    aliases = connections.get(family) or {}
    if alias not in aliases:
        known = [f"@{family}.{name}" for name in sorted(aliases)]
        where = (f"configured: {listing(known)}{did_you_mean(f'@{family}.{alias}', known)}" if known
                 else f"add connections.{family}.{alias} to .osiris.yaml")
        raise UsageError(f"connection '@{family}.{alias}' is not configured ({where})")
    resolved: dict[str, Any] = {}
    for name, value in (aliases[alias] or {}).items():
        found = _ENV.match(value.strip()) if isinstance(value, str) else None
        if found:
            if found.group(1) not in env:
                raise UsageError(f"connection '@{family}.{alias}' field '{name}' refers to ${{{found.group(1)}}}, "
                                 "which is not set in the environment")
            value = env[found.group(1)]
        resolved[name] = value
    return resolved
