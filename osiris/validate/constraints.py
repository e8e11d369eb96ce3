"""`constraints.required` of a component spec: when the `when` fields have those values,
the `must` fields must satisfy their sub-schemas (or equal the given value). OML309."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from osiris.oml.values import Config, MutableConfig
from osiris.registry import ComponentSpec, compile_schema
from osiris.registry.quick import plainly_valid
from osiris.validate.coerce import describe
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

UNKNOWN = object()  # a field the connection supplies, whose value is not known here
_compiled: dict[str, Draft202012Validator] = {}


def check_constraints(path: str, effective: Config, spec: ComponentSpec,
                      findings: Findings, connection_hint: str) -> None:
    """`effective` is the step's config plus the fields its connection supplies (UNKNOWN if unseen)."""
    for rule in spec.constraints:
        when = rule.get("when") or {}
        if not all(_equals(effective.get(field), wanted) for field, wanted in when.items()):
            continue
        for field, requirement in (rule.get("must") or {}).items():
            if _satisfied(effective.get(field), requirement):
                continue
            present = effective.get(field)
            hint = (_present_hint(field, present, requirement, when) if present is not None
                    and isinstance(requirement, dict) and not spec.is_secret("/" + field)
                    else _hint(field, requirement, when, spec, connection_hint))
            findings.add("OML309", join(path, field), str(rule.get("error") or f"constraint on '{field}' violated"),
                         hint,
                         value=effective.get(field) if effective.get(field) is not UNKNOWN else None,
                         secret=spec.is_secret("/" + field))


def _equals(value: object, wanted: object) -> bool:
    if value is UNKNOWN:
        return False
    return value is None if wanted is None else value == wanted


def _satisfied(value: object, requirement: object) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(requirement, dict):
        return value is not None and (plainly_valid(requirement, value) or _validator(requirement).is_valid(value))
    return _equals(value, requirement)


def _validator(schema: MutableConfig) -> Draft202012Validator:
    key = json.dumps(schema, sort_keys=True, default=str)
    if key not in _compiled:
        _compiled[key] = compile_schema(schema)
    return _compiled[key]


def _present_hint(field: str, value: object, requirement: MutableConfig, when: Config) -> str:
    """The field is set, but its value does not satisfy the requirement: say what is wrong with it."""
    error = next(iter(_validator(requirement).iter_errors(value)), None)
    wrong = error.message if error is not None else "it does not satisfy the rule"
    return f"{field} is set to {describe(value)}, but {wrong}; change its value{_condition(when)}"


def _condition(when: Config) -> str:
    condition = ", ".join(f"{k} is {describe(v)}" if v is not None else f"{k} is not set" for k, v in when.items())
    return f" (needed when {condition})" if condition else ""


def _hint(field: str, requirement: object, when: Config, spec: ComponentSpec, connection_hint: str) -> str:
    condition = ", ".join(f"{k} is {describe(v)}" if v is not None else f"{k} is not set" for k, v in when.items())
    if requirement is None:
        return f"remove {field} (when {condition})"
    if not isinstance(requirement, dict):
        return f"set {field}: {describe(requirement)} (when {condition})"
    if spec.is_secret("/" + field):
        return f"{field} must come from the connection: {connection_hint}"
    facts = field_facts(field, spec, when)
    if field in spec.connection_fields:
        return f"set {field} (needed when {condition}){facts}, or let the connection supply it: {connection_hint}"
    allowed = spec.properties.get(field, {}).get("enum")
    extra = f" (one of: {', '.join(map(str, allowed))})" if allowed and isinstance(allowed, list) else ""
    return f"set {field}{extra} (needed when {condition}){facts}"


def field_facts(field: str, spec: ComponentSpec, when: Config) -> str:
    """": <what the field holds>, e.g. <field>: <value>", from the spec's description and the first
    example config that sets the field (one matching `when` first); "" when the spec has neither."""
    description = str(spec.properties.get(field, {}).get("description") or "").strip().rstrip(".")
    value = _example_value(field, spec, when)
    if value is _NONE:
        return f": {description}" if description else ""
    description = re.split(r",? e\.g\. ", description, maxsplit=1)[0]  # the spec's own example gives the value
    example = f"e.g. {field}: {flow_yaml(value)}"
    return f": {description}, {example}" if description else f": {example}"


_NONE = object()


def _example_value(field: str, spec: ComponentSpec, when: Config) -> object:
    configs = [example.get("config") for example in spec.examples if isinstance(example, dict)]
    holding = [config for config in configs if isinstance(config, dict) and field in config]
    matching = [config for config in holding if all(config.get(k) == v for k, v in when.items())]
    return (matching or holding)[0][field] if holding else _NONE


def flow_yaml(value: object) -> str:
    """A value as it is written after `key: ` in a YAML block, on one line."""
    import yaml

    text: str = yaml.safe_dump(value, default_flow_style=True, width=10_000, sort_keys=False)
    return text.removesuffix("\n").removesuffix("\n...").strip()
