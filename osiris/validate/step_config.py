"""Tier 3 for one step: component, mode, connection, coercions, configSchema, constraints, secrets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from osiris.oml.values import Config, MutableConfig, Value
from osiris.registry import ComponentSpec, Registry
from osiris.registry.patterns import search
from osiris.registry.quick import plainly_valid
from osiris.suggest import did_you_mean, listing
from osiris.validate.component_names import component_names_for
from osiris.validate.canonical import Edit
from osiris.validate.coerce import coerce_value, describe, rename_aliases
from osiris.validate.connections import (
    CONNECTION_KEY,
    Connections,
    Reference,
    check_overrides,
    check_reference,
    connection_hint,
)
from osiris.validate.boundary import check_boundary
from osiris.validate.constraints import UNKNOWN, check_constraints
from osiris.validate.findings import Findings
from osiris.validate.no_effect import check_no_effect
from osiris.validate.pointer import join
from osiris.validate.schema_errors import report_schema_error
from osiris.validate.secrets_inline import inline_secrets, report_inline_secret
from osiris.validate.structure import OML_MODES, is_extension


def component_name(step: Config) -> Value:
    """The step's component: `component`, or the legacy `type` when that is all there is."""
    return step.get("component", step.get("type"))


def check_step_config(index: int, step: MutableConfig, registry: Registry, connections: Connections,
                      findings: Findings, edits: list[Edit] | None = None,
                      base: str = "/steps") -> MutableConfig | None:
    """Check one step whose component is named; return its config after safe coercions (None if unknown).
    The coercions are also added to `edits`, to be written into the canonical text."""
    path = join(base, index)
    name = component_name(step)
    if not isinstance(name, str):  # the validator checks only steps that name their component
        return None
    key = "component" if "component" in step else "type"
    mode = step.get("mode")
    spec = registry.get(name)
    if spec is None:
        findings.add("OML301", join(path, key), f"unknown component '{name}'",
                     "" if findings.full else unknown_component_hint(name, mode, registry), value=name)
        return None
    if "mode" not in step and len(spec.oml_modes) == 1:
        _name_the_mode(findings, join(path, "mode"), spec)
    if isinstance(mode, str) and mode in OML_MODES and mode not in spec.oml_modes:
        findings.add("OML302", join(path, "mode"), f"{spec.name} does not support mode '{mode}'",
                     f"use mode: {' or '.join(spec.oml_modes)} with {spec.name}"
                     + _other_components_hint(registry, spec, mode), value=mode)
    config = step.get("config")
    if config is not None and not isinstance(config, dict):
        return None  # OML205 already says so
    return _check_config(join(path, "config"), step.get("id"), dict(config or {}), spec, registry, connections,
                         findings, edits if edits is not None else [])


def _name_the_mode(findings: Findings, path: str, spec: ComponentSpec) -> None:
    """The missing-mode issue (OML208) names the one mode the component supports."""
    hint = f"add mode: {spec.oml_modes[0]} (the only mode {spec.name} supports)"
    for position, issue in enumerate(findings.issues):
        if issue.code == "OML208" and issue.path == path:
            findings.issues[position] = replace(issue, hint=hint)


def unknown_component_hint(name: str, mode: object, registry: Registry) -> str:
    """A close name only when that component supports the step's mode; else what there is for the mode."""
    fits = component_names_for(registry, mode)
    family = name.split(".", 1)[0] if isinstance(name, str) else ""
    same_family = fits.by_family.get(family, [])
    match = fits.index.closest(name, cutoff=0.75) or (same_family[0] if len(same_family) == 1 else None)
    if match:
        return f"use component: {match}"
    for_mode = f" for mode {mode}" if mode in OML_MODES else ""
    if same_family:
        return f"use one of the {family} components{for_mode}: {listing(sorted(same_family))}"
    return (f"there is no {family or 'such'} component{for_mode}; the system may not be supported. "
            f"Components{for_mode}: {listing(fits.sorted_names)}")


def _other_components_hint(registry: Registry, spec: ComponentSpec, mode: str) -> str:
    others = [s.name for s in registry.components.values() if s.family == spec.family and mode in s.oml_modes]
    return f", or a component that does: {listing(others)}" if others else ""


def _check_config(path: str, step_id: Value, config: MutableConfig, spec: ComponentSpec, registry: Registry,
                  connections: Connections, findings: Findings, edits: list[Edit]) -> MutableConfig:
    reference: Reference | None = None
    has_reference = CONNECTION_KEY in config
    if has_reference:
        reference = check_reference(path, config[CONNECTION_KEY], spec, connections, findings)
    connection_value = config.pop(CONNECTION_KEY, None)
    how_to_connect = connection_hint(spec, connections)  # 'use connection: "@mysql.default" (...)'

    config, renames = rename_aliases(config, spec)
    written_as = {renamed.new: renamed.old for renamed in renames}
    for renamed in renames:
        edits.append(Edit(join(path, renamed.old), rename_to=renamed.new))
        findings.add("OML315", join(path, renamed.old), f"{renamed.message}",
                     f"write {renamed.new} instead of {renamed.old}", value=renamed.old)

    _check_unknown_fields(path, config, spec, findings)
    inline_secrets = _check_inline_secrets(path, config, spec, findings,
                                           "the connection supplies it" if has_reference
                                           else _connect_instead(config, spec, connections, how_to_connect))
    if reference is not None:
        check_overrides(path, config, spec, findings, skip=inline_secrets, reference=reference)
    check_boundary(path, config, spec, findings)  # OML316 references, OML317 paths (osiris.trust)
    # A connection that is there but wrong (OML311-313) is the one thing to fix: the fields it would
    # supply are not reported missing on top of it.
    _check_required(path, config, spec, has_reference, findings, how_to_connect)
    for key, value in _coerce_known_fields(path, config, spec, findings, inline_secrets, written_as):
        edits.append(Edit(join(path, written_as.get(key, key)), value=value))

    checked = {k: _without_extensions(v) for k, v in config.items()
               if k not in inline_secrets and not is_extension(k)}  # inline secrets: already OML310
    if has_reference and CONNECTION_KEY in spec.properties:  # a spec may declare (and require) connection
        checked[CONNECTION_KEY] = connection_value
    if not plainly_valid(registry.config_schema(spec.name), checked):  # else jsonschema says what is wrong
        errors = registry.config_validator(spec.name).iter_errors(checked)
        for error in sorted(errors, key=lambda e: ([str(p) for p in e.absolute_path], str(e.validator))):
            report_schema_error(error, path, spec, findings)

    # What the component will run with: schema defaults < connection fields < the step's config.
    fields = reference.fields if reference else {}
    supplied = {f: fields.get(f, UNKNOWN) for f in spec.connection_fields} if has_reference else {}
    effective = {**spec.defaults, **supplied, **config}
    check_constraints(path, effective, spec, findings, how_to_connect)
    check_no_effect(path, step_id, config, spec, findings, reference)  # OML321: the step's and its connection's
    if has_reference:
        config = {CONNECTION_KEY: connection_value, **config}
    return config


def _without_extensions(value: Value) -> Value:
    """`value` with `x-*` keys left out at every level: extensions are not checked (public Osiris)."""
    if isinstance(value, dict):
        return {k: _without_extensions(v) for k, v in value.items() if not is_extension(k)}
    if isinstance(value, list):
        return [_without_extensions(item) for item in value]
    return value


def _check_unknown_fields(path: str, config: MutableConfig, spec: ComponentSpec, findings: Findings) -> None:
    if spec.config_schema.get("additionalProperties", True) is not False:
        return
    known = list(spec.properties)
    patterns = spec.config_schema.get("patternProperties") or {}
    for key in list(config):
        if findings.full:
            break
        if key in spec.properties or is_extension(key) or any(search(pattern, key) for pattern in patterns):
            continue
        alias_of = spec.aliases.get(key)
        if alias_of:
            hint = f"remove {key}: it is another name for {alias_of}, which is already set"
        else:
            hint = f"{spec.name} config fields are: {listing(known)}{did_you_mean(key, known)}"
        # The offending thing is the key; its value may be a misspelt secret ('pasword'), so it stays out.
        findings.add("OML304", join(path, key), f"unknown config field '{key}' for {spec.name}", hint, value=key)


def _check_inline_secrets(path: str, config: MutableConfig, spec: ComponentSpec, findings: Findings,
                          fix: str) -> set[str]:
    """Report secret fields written into the step; return the top-level fields that hold them."""
    found: set[str] = set()
    for secret in inline_secrets(config, spec):
        if secret.by_spec:
            found.add(secret.pointer.split("/")[1])
        report_inline_secret(findings, path, secret, f"remove it from the step; {fix}")
    return found


def _connect_instead(config: MutableConfig, spec: ComponentSpec, connections: Connections, how_to_connect: str) -> str:
    """What replacing inline credentials takes, all of it: the reference, and the connection fields
    written in the step removed too, since the connection supplies them (and may forbid them, OML314):
    those the suggested alias defines, or every one when no alias is configured yet."""
    aliases = connections.get(spec.family) or {}
    supplied = aliases[sorted(aliases)[0]] if aliases else None  # the alias the hint suggests
    written = [field for field in spec.connection_fields if field in config and not spec.is_secret("/" + field)
               and (not isinstance(supplied, Mapping) or field in supplied)]
    if not written:
        return f"secrets come from a connection: {how_to_connect}"
    return (f"secrets come from a connection: {how_to_connect}, and remove {listing(written)} from the step "
            "as well: the connection supplies them")


def _check_required(path: str, config: MutableConfig, spec: ComponentSpec, connected: bool,
                    findings: Findings, how_to_connect: str) -> None:
    for field in spec.required:
        if field in config or (connected and (field in spec.connection_fields or field == CONNECTION_KEY)):
            continue
        if spec.is_secret("/" + field):
            hint = f"{field} comes from a connection: {how_to_connect}"
        elif field in spec.connection_fields:
            hint = f"{how_to_connect}, which supplies {field}; or add {field}: {_placeholder(spec.properties.get(field, {}))}"
        else:
            hint = f"add {field}: {_placeholder(spec.properties.get(field, {}))}"
        findings.add("OML303", join(path, field), f"required field '{field}' is missing for {spec.name}", hint)


def _placeholder(schema: Config) -> str:
    allowed = schema.get("enum")
    if allowed and isinstance(allowed, list):
        return f"one of {listing(describe(v) for v in allowed)}"
    about = schema.get("description")
    return f"<{about}>" if about else "<value>"


def _coerce_known_fields(path: str, config: MutableConfig, spec: ComponentSpec, findings: Findings,
                         skip: set[str], written_as: dict[str, str]) -> list[tuple[str, Value]]:
    """Coerce in place; return the (field, new value) pairs that changed."""
    changed: list[tuple[str, Value]] = []
    for key, value in list(config.items()):
        schema = spec.properties.get(key)
        if not isinstance(schema, dict) or key in skip:
            continue
        new = coerce_value(value, schema)
        if type(new) is type(value) and new == value:
            continue
        config[key] = new
        changed.append((key, new))
        secret = spec.is_secret("/" + key)
        shown = "the value" if secret else describe(value)
        findings.add("OML315", join(path, key), f"{key}: {shown} was read as {describe(new) if not secret else 'its proper type'}",
                     f"write {key}: {describe(new) if not secret else '<value>'} next time", value=value, secret=secret,
                     position=findings.position_of(join(path, written_as.get(key, key))))
    return changed
