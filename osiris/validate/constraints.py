"""`constraints.required` of a component spec: when the `when` fields have those values,
the `must` fields must satisfy their sub-schemas (or equal the given value). OML309."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from osiris.registry import ComponentSpec, compile_schema
from osiris.registry.quick import plainly_valid
from osiris.validate.coerce import describe
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

UNKNOWN = object()  # a field the connection supplies, whose value is not known here
_compiled: dict[str, Any] = {}


def check_constraints(path: str, effective: Mapping[str, Any], spec: ComponentSpec,
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


def _equals(value: Any, wanted: Any) -> bool:
    if value is UNKNOWN:
        return False
    return value is None if wanted is None else value == wanted


def _satisfied(value: Any, requirement: Any) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(requirement, dict):
        return value is not None and (plainly_valid(requirement, value) or _validator(requirement).is_valid(value))
    return _equals(value, requirement)


def _validator(schema: dict[str, Any]) -> Any:
    key = json.dumps(schema, sort_keys=True, default=str)
    if key not in _compiled:
        _compiled[key] = compile_schema(schema)
    return _compiled[key]


def _present_hint(field: str, value: Any, requirement: dict[str, Any], when: Mapping[str, Any]) -> str:
    """The field is set, but its value does not satisfy the requirement: say what is wrong with it."""
    error = next(iter(_validator(requirement).iter_errors(value)), None)
    wrong = error.message if error is not None else "it does not satisfy the rule"
    return f"{field} is set to {describe(value)}, but {wrong}; change its value{_condition(when)}"


def _condition(when: Mapping[str, Any]) -> str:
    condition = ", ".join(f"{k} is {describe(v)}" if v is not None else f"{k} is not set" for k, v in when.items())
    return f" (needed when {condition})" if condition else ""


def _hint(field: str, requirement: Any, when: Mapping[str, Any], spec: ComponentSpec, connection_hint: str) -> str:
    condition = ", ".join(f"{k} is {describe(v)}" if v is not None else f"{k} is not set" for k, v in when.items())
    if requirement is None:
        return f"remove {field} (when {condition})"
    if not isinstance(requirement, dict):
        return f"set {field}: {describe(requirement)} (when {condition})"
    if spec.is_secret("/" + field):
        return f"{field} must come from the connection: {connection_hint}"
    if field in spec.connection_fields:
        return f"set {field} (needed when {condition}), or let the connection supply it: {connection_hint}"
    allowed = spec.properties.get(field, {}).get("enum")
    extra = f" (one of: {', '.join(map(str, allowed))})" if allowed else ""
    return f"set {field}{extra} (needed when {condition})"
