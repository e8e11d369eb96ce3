"""`@family.alias` -> the connection's fields from settings, `${NAME}` references resolved now by
the one resolver `osiris run` uses too (osiris.trust.references: the environment, then the keyring).

The resolved fields hold secrets: they go to a driver and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from osiris.errors import UsageError
from osiris.suggest import did_you_mean, listing

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value


def parse_connection(reference: str) -> tuple[str, str]:
    """"@mysql.default" -> ("mysql", "default"); UsageError for anything else."""
    from osiris.trust.references import parse_reference

    parsed = parse_reference(reference)
    if parsed is None:
        raise UsageError(f"'{reference}' is not a connection reference; write it as @family.alias, e.g. @mysql.default")
    return parsed[0].lower(), parsed[1]


def resolve_connection(connections: Mapping[str, Mapping[str, Config]], env: Mapping[str, str], family: str,
                       alias: str) -> dict[str, Value]:
    """The fields of `connections.<family>.<alias>` with `${NAME}` taken from `env` or the keyring."""
    from osiris.trust.references import UnsetReference, resolve_connection, unset_hint

    aliases = connections.get(family) or {}
    if alias not in aliases:
        known = [f"@{family}.{name}" for name in sorted(aliases)]
        where = (f"configured: {listing(known)}{did_you_mean(f'@{family}.{alias}', known)}" if known
                 else f"add connections.{family}.{alias} to .osiris.yaml")
        raise UsageError(f"connection '@{family}.{alias}' is not configured ({where})")
    prefix = f"connections.{family}.{alias}"
    try:
        return resolve_connection(aliases[alias] or {}, env, where=prefix).fields
    except UnsetReference as unset:
        field = unset.where.removeprefix(prefix + ".")
        raise UsageError(f"connection '@{family}.{alias}' field '{field}' refers to ${{{unset.name}}}, "
                         f"which is not set; {unset_hint(unset.name)}") from None


def secret_values(config: Config) -> tuple[str, ...]:
    """The values of a resolved connection's secret fields (tokens, passwords), to mask them."""
    from osiris.secrets.names import is_secret_key

    return tuple(str(v) for k, v in config.items() if is_secret_key(k) and v is not None and v != "")
