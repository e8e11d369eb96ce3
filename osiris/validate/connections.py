"""Connection references in a step's config: "@family.alias" (SPEC §2, OML311-OML314)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from osiris.registry import ComponentSpec
from osiris.suggest import did_you_mean, listing
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

CONNECTION_KEY = "connection"
_REFERENCE = re.compile(r"^@([a-z0-9_-]+)\.([a-z0-9_-]+)$", re.IGNORECASE)

Connections = Mapping[str, Mapping[str, Mapping[str, Any]]]  # family -> alias -> fields


@dataclass(frozen=True)
class Reference:
    family: str
    alias: str
    fields: Mapping[str, Any]  # what settings give for this alias ({} when it is not configured)


def parse_reference(value: Any) -> tuple[str, str] | None:
    match = _REFERENCE.match(value) if isinstance(value, str) else None
    return (match.group(1), match.group(2)) if match else None


def example_reference(spec: ComponentSpec, connections: Connections) -> str:
    aliases = sorted(connections.get(spec.family, {}))
    return f"\"@{spec.family}.{aliases[0] if aliases else 'default'}\""


def connection_hint(spec: ComponentSpec, connections: Connections) -> str:
    """How to supply connection fields: a reference, and where its alias is configured."""
    aliases = sorted(connections.get(spec.family, {}))
    where = (f"configured aliases: {listing(aliases)}" if aliases
             else f"define connections.{spec.family}.default in .osiris.yaml")
    return f"use connection: {example_reference(spec, connections)} ({where})"


def check_reference(path: str, value: Any, spec: ComponentSpec, connections: Connections,
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


def check_overrides(path: str, config: Mapping[str, Any], spec: ComponentSpec, findings: Findings,
                    skip: set[str]) -> None:
    """Fields set inline although the connection supplies them: forbidden -> error, warning -> warning."""
    for field, rule in spec.connection_fields.items():
        if field not in config or field in skip or rule == "allowed":
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


def _show(value: Any) -> str:
    return f"'{value}'" if isinstance(value, str) else f"({type(value).__name__})"


@dataclass(frozen=True)
class InlineSecret:
    """A secret written into a step's config: where (a config pointer), what it is, its value."""

    pointer: str
    what: str
    value: Any
    by_spec: bool  # marked secret by the component spec (its top-level field is then not checked further)


def inline_secrets(config: Mapping[str, Any], spec: ComponentSpec) -> list[InlineSecret]:
    """Secrets in `config`: fields the spec marks secret (header names in any letter case), keys
    that name secrets inside free-form maps (`params: {token: ...}`), and secret query parameters
    or DSN passwords inside any text (`endpoint: /x?api_key=...`)."""
    found: dict[str, InlineSecret] = {}
    for pointer in sorted(spec.secret_pointers):
        located = _locate(config, pointer.strip("/").split("/"))
        if located is not None and located[1] is not None:
            found[located[0]] = InlineSecret(located[0], located[0].strip("/").replace("/", "."), located[1], True)
    for pointer, key, value in _leaves(config, ""):
        if any(pointer == p or pointer.startswith(p + "/") for p in found):
            continue
        nested = pointer.count("/") > 1
        if nested and key is not None and _is_literal_secret(key, value):
            found[pointer] = InlineSecret(pointer, pointer.strip("/").replace("/", "."), value, False)
        elif isinstance(value, str) and (name := _secret_in_text(value)):
            found[pointer] = InlineSecret(pointer, name, value, False)
    return list(found.values())


def _locate(config: Mapping[str, Any], parts: list[str]) -> tuple[str, Any] | None:
    """The value at `parts`, matching each key without regard to letter case (header names)."""
    value: Any = config
    written: list[str] = []
    for part in parts:
        if not isinstance(value, Mapping):
            return None
        key = part if part in value else next((k for k in value if str(k).lower() == part.lower()), None)
        if key is None:
            return None
        written.append(str(key))
        value = value[key]
    return "/" + "/".join(written), value


def _leaves(value: Any, pointer: str, key: str | None = None) -> list[tuple[str, str | None, Any]]:
    """(pointer, key, value) for every scalar under `value`, with the key it sits under."""
    if isinstance(value, Mapping):
        return [leaf for k, v in value.items() for leaf in _leaves(v, join(pointer, str(k)), str(k))]
    if isinstance(value, list):
        return [leaf for i, item in enumerate(value) for leaf in _leaves(item, join(pointer, i), key)]
    return [(pointer, key, value)]


def _is_literal_secret(key: str, value: Any) -> bool:
    """A secret-named key holding a value (not nothing, a mapping, or a ${ENV}/@ reference)."""
    from osiris.secrets.names import is_secret_key
    from osiris.secrets.patterns import is_reference

    if value is None or value == "" or isinstance(value, bool) or not is_secret_key(key):
        return False
    return not (isinstance(value, str) and is_reference(value))


def _secret_in_text(text: str) -> str | None:
    """'token' for '/customers?token=abc', 'password' for 'mysql://u:pw@h/db'; None otherwise."""
    from osiris.secrets.names import is_secret_key
    from osiris.secrets.patterns import DSN_PASSWORD, QUERY_PARAMETER, is_reference

    if DSN_PASSWORD.search(text):
        return "password"
    for match in QUERY_PARAMETER.finditer(text):
        if is_secret_key(match["key"]) and not is_reference(match["value"]):
            return match["key"]
    return None
