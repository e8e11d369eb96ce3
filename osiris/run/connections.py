"""Resolve a step's connection at run time: `@family.alias` supplies fields, and `${NAME}` references
in them are resolved by the one resolver (osiris.trust.references), from the environment, else
from the system keyring (service "osiris", user NAME).

A step's own config is taken as written: a `${...}` in it is never resolved (the trust boundary
refuses it, docs/security.md). The resolved values (passwords among them) live only in memory, in
the step's config; their secret values are returned too, so that every text from a driver can be
redacted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from osiris.oml.values import Config, MutableConfig
from osiris.run.problems import unconfigured_problem, unset_secret_problem
from osiris.secrets.names import is_secret_key
from osiris.secrets.redact import secret_text
from osiris.trust.references import UnsetReference, resolve_connection, unset_hint
from osiris.validate.connections import CONNECTION_KEY, parse_reference

Connections = Mapping[str, Mapping[str, Config]]  # family -> alias -> the connection's fields


@dataclass(frozen=True)
class ResolvedStep:
    config: MutableConfig  # the connection's resolved fields, then the step's own config over them
    secrets: tuple[str, ...]  # the secret values among them, for redaction
    connection: Config = field(default_factory=dict)  # the connection's settings as written


def resolve_step_config(
    config: Config,
    connections: Connections,
    env: Mapping[str, str],
    secret_fields: set[str] = frozenset(),  # type: ignore[assignment]
) -> ResolvedStep:
    """The step's config merged over its connection's resolved fields, and the secrets.

    Raises RuntimeProblem OML511 when an alias is not configured or a variable is not set.
    """
    reference = config.get(CONNECTION_KEY)
    connection: Config = {}
    merged: MutableConfig = {}
    secrets: tuple[str, ...] = ()
    if isinstance(reference, str) and reference.startswith("@"):
        family, alias = parse_reference(reference) or ("", "")
        found = connections.get(family, {}).get(alias)
        if found is None:
            raise unconfigured_problem(reference, family, alias)
        connection = found
        try:
            resolved = resolve_connection(found, env, where=f"connections.{family}.{alias}",
                                          secret_fields=secret_fields)
        except UnsetReference as unset:
            raise unset_secret_problem(unset.where, unset.name, unset_hint(unset.name)) from None
        merged, secrets = resolved.fields, resolved.secrets
    own = {name: value for name, value in config.items() if name != CONNECTION_KEY}
    inline = [secret_text(value) for name, value in own.items() if name.lower() in secret_fields or is_secret_key(name)]
    merged.update(own)
    return ResolvedStep(merged, (*secrets, *(text for text in inline if text)), connection)
