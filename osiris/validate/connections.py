"""Connection references in a step's config: "@family.alias" (docs/oml.md, OML311-OML314)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from osiris.oml.values import Config
from osiris.registry import ComponentSpec
from osiris.suggest import did_you_mean, listing
from osiris.trust.endpoints import allowed_overrides, endpoint_fields, endpoint_overrides
from osiris.trust.references import parse_reference as parse_reference  # re-exported: the validator and run/connections.py read it here
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

CONNECTION_KEY = "connection"

Connections = Mapping[str, Mapping[str, Mapping[str, Any]]]  # family -> alias -> fields


@dataclass(frozen=True)
class Reference:
    family: str
    alias: str
    fields: Mapping[str, Any]  # what settings give for this alias ({} when it is not configured)


def example_reference(spec: ComponentSpec, connections: Connections) -> str:
    aliases = sorted(connections.get(spec.family, {}))
    return f"\"@{spec.family}.{aliases[0] if aliases else 'default'}\""


def connection_hint(spec: ComponentSpec, connections: Connections) -> str:
    """How to supply connection fields: a reference, and where its alias is configured."""
    aliases = sorted(connections.get(spec.family, {}))
    where = (f"configured aliases: {listing(aliases)}" if aliases
             else f"define connections.{spec.family}.default in .osiris.yaml")
    return f"use connection: {example_reference(spec, connections)} ({where})"


def check_reference(path: str, value: object, spec: ComponentSpec, connections: Connections,
                    findings: Findings) -> Reference | None:
    """Check `config.connection`; return the reference when it is well-formed and of the right family."""
    ref_path = join(path, CONNECTION_KEY)
    if not spec.connection_fields and CONNECTION_KEY not in spec.properties:
        findings.add("OML304", ref_path, f"{spec.name} takes no connection",
                     "remove connection from this step's config", value=value)
        return None
    parsed = parse_reference(value)
    if parsed is None:
        findings.add("OML311", ref_path, f"connection {_show(value)} is not a reference of the form '@family.alias'",
                     f"write connection: {example_reference(spec, connections)} (quoted, starting with @)",
                     value=value if isinstance(value, str) else None)
        return None
    family, alias = parsed[0].lower(), parsed[1]
    if family != spec.family:
        findings.add("OML313", ref_path,
                     f"connection '{value}' is a {family} connection, but {spec.name} needs a {spec.family} connection",
                     connection_hint(spec, connections), value=value)
        return None
    configured = connections.get(family, {})
    if alias not in configured:
        hint = (f"use one of the configured {family} aliases: {listing(sorted(configured))}{did_you_mean(alias, configured)}"
                if configured else _define_hint(spec, family, alias))
        findings.add("OML312", ref_path, f"connection alias '{alias}' is not configured for {family}", hint, value=value)
        return Reference(family, alias, {})
    fields = configured[alias]
    return Reference(family, alias, fields if isinstance(fields, Mapping) else {})


def check_overrides(path: str, config: Config, spec: ComponentSpec, findings: Findings,
                    skip: set[str], reference: Reference) -> None:
    """Fields set inline although the connection supplies them. Where the connection goes is the
    trust boundary's (osiris.trust.endpoints): an error unless the connection's `allow_override`
    names it. Other fields follow the spec: forbidden -> error, warning -> warning."""
    moved = [override for override in endpoint_overrides(config, endpoint_fields(spec),
                                                         f"@{reference.family}.{reference.alias}", reference.fields)
             if override.where not in skip]  # an inline secret is OML310 already
    for override in moved:
        findings.add("OML314", join(path, override.where), override.message, override.hint,
                     value=config[override.where], secret=spec.is_secret("/" + override.where))
    done = {override.where for override in moved} | allowed_overrides(reference.fields) | endpoint_fields(spec)
    for field, rule in spec.connection_fields.items():
        if field not in config or field in skip or field in done or rule == "allowed":
            continue
        secret = spec.is_secret("/" + field)
        severity = "error" if rule == "forbidden" else "warning"
        verb = "must not" if rule == "forbidden" else "should not"
        findings.add("OML314", join(path, field),
                     f"'{field}' comes from the connection and {verb} be overridden in the step",
                     f"remove '{field}' from the step; change it in the connection settings instead",
                     value=config[field], secret=secret, severity=severity)  # type: ignore[arg-type]


def _define_hint(spec: ComponentSpec, family: str, alias: str) -> str:
    plain = [f for f in spec.connection_fields if not spec.is_secret("/" + f)]
    secret = [f for f in spec.connection_fields if spec.is_secret("/" + f)]
    fields = listing(plain) + (f", and {listing(secret)} as a \"${{ENV_VAR}}\" reference" if secret else "")
    return f"add connections.{family}.{alias} to .osiris.yaml with {fields}"


def _show(value: object) -> str:
    return f"'{value}'" if isinstance(value, str) else f"({type(value).__name__})"
