"""A connection's secrets go only to its own endpoint (docs/security.md, "Endpoints").

A step that uses a connection may not set the fields that say where, or how safely, that
connection connects: its host, port, URL, TLS checking, a filesystem connection's `base_dir`.
Otherwise a pipeline could send the connection's password or token to a server it picks. The
person may allow it for one connection in `.osiris.yaml`:

    connections:
      rest:
        staging: {base_url: "https://staging.example.com", allow_override: [base_url]}

Which fields say where a connection goes is data: a spec lists them in `x-endpoint-fields`; for any
spec, the fields of DEFAULT_ENDPOINT_FIELDS that it names as connection fields count too, so a
spec without the marker (one written for public Osiris) is covered, and a marker can only add.
Last, the fields its family's driver reads to connect (`Family.endpoints`, declared beside the
code that reads them, e.g. supabase.writer's `host`, `port`, `pg_host`, `pg_port`): a field a
driver reads can never bypass the check because a spec forgot it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from osiris.trust.breach import Breach

if TYPE_CHECKING:
    from osiris.oml.values import Config
    from osiris.registry import ComponentSpec

ALLOW_OVERRIDE = "allow_override"
DEFAULT_ENDPOINT_FIELDS = frozenset({
    "host", "hostname", "server", "port", "url", "uri", "base_url", "endpoint", "custom_base_url", "region",
    "project_id", "dsn", "pg_dsn", "connection_string", "account", "sslmode", "ssl", "validate_ssl",
    "verify_ssl", "base_dir",
})


def endpoint_fields(spec: ComponentSpec) -> frozenset[str]:
    """The config fields of `spec` that say where its connection goes."""
    from osiris.families import family

    marked = spec.raw.get("x-endpoint-fields") or []
    named = {str(name) for name in marked if isinstance(name, str)}
    facts = family(spec.family)
    read = set(facts.endpoints) if facts is not None and spec.name in facts.components else set()
    return frozenset(named | read | (DEFAULT_ENDPOINT_FIELDS & set(spec.connection_fields)))


def allowed_overrides(connection: Config) -> frozenset[str]:
    """The fields a connection's `allow_override` lets a step set (a list of names, or one name)."""
    given = connection.get(ALLOW_OVERRIDE)
    if isinstance(given, str):
        return frozenset({given})
    return frozenset(str(name) for name in given) if isinstance(given, list) else frozenset()


def endpoint_overrides(config: Config, fields: frozenset[str], reference: str,
                       connection: Config) -> list[Breach[str]]:
    """The endpoint fields a step with `connection: reference` sets, to a value other than the
    connection's own, although the connection does not allow it; in the config's order."""
    allowed = allowed_overrides(connection)
    where = f"connections.{reference.lstrip('@')}"
    return [Breach(
        name,
        f"'{name}' says where {reference} connects; a step may not change it, or the connection's "
        "secrets would go where the pipeline points",
        f"remove '{name}' from the step (the connection supplies it); to let steps choose it, add "
        f"allow_override: [{name}] to {where} in .osiris.yaml")
        for name in config
        if name in fields and name not in allowed and not (name in connection and connection[name] == config[name])]
