"""One compact line (plus guidance and an example) per component, for the system prompt."""

from __future__ import annotations

import json
from typing import Any

import yaml

MAX_EXAMPLE_CHARS = 400


def describe_component(spec: Any, secret_fields: set[str] = frozenset()) -> str:
    """E.g. `- mysql.extractor [mysql] read: connection*, table, batch_size int 100..10000 =1000`."""
    schema = _get(spec, "config_schema", "configSchema") or {}
    properties: dict[str, Any] = schema.get("properties", {}) or {}
    required = set(schema.get("required", []) or []) | set(_get(spec, "required_fields", "required") or [])
    connection = set(_connection_field_names(spec))
    aliases = _aliases(spec)
    fields = []
    for name, prop in properties.items():
        if name in connection and name != "connection":
            continue  # supplied by the connection reference
        if name in secret_fields:
            continue  # never invite an inline secret
        fields.append(_describe_field(name, prop or {}, name in required, aliases.get(name, [])))
    modes = ", ".join(_oml_modes(_get(spec, "modes") or []))
    family = _get(spec, "family") or str(_get(spec, "name")).split(".")[0]
    if connection and "connection" not in properties:
        fields.insert(0, f'connection "@{family}.<alias>" (supplies {", ".join(sorted(connection))})')
    lines = [f"- {_get(spec, 'name')} [{family}] {modes}: {'; '.join(fields) or 'no config'}"]
    guidance = _get(_get(spec, "llm_hints", "llmHints") or {}, "prompt_guidance", "promptGuidance")
    if guidance:
        lines.append(f"  guidance: {' '.join(str(guidance).split())}")
    example = _example(spec)
    if example:
        lines.append(f"  example config: {example}")
    return "\n".join(lines)


def _describe_field(name: str, prop: dict[str, Any], required: bool, aliases: list[str]) -> str:
    parts = [name + ("*" if required else "")]
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = "|".join(str(k) for k in kind)
    if kind and "enum" not in prop:
        parts.append(str(kind))
    if "enum" in prop:
        parts.append("[" + "|".join(str(v) for v in prop["enum"]) + "]")
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None or high is not None:
        parts.append(f"{'' if low is None else low}..{'' if high is None else high}")
    if "default" in prop and not isinstance(prop["default"], (dict, list)):
        parts.append(f"={json.dumps(prop['default'])}")
    if aliases:
        parts.append("(not " + ", ".join(aliases) + ")")
    return " ".join(parts)


def _oml_modes(modes: list[str]) -> list[str]:
    to_oml = {"extract": "read", "read": "read", "write": "write", "load": "write", "transform": "transform"}
    seen: list[str] = []
    for mode in modes:
        oml = to_oml.get(str(mode))
        if oml and oml not in seen:
            seen.append(oml)
    return seen


def _connection_field_names(spec: Any) -> list[str]:
    names = []
    for item in _get(spec, "connection_fields", "x-connection-fields") or []:
        name = item.get("name") if isinstance(item, dict) else _get(item, "name") if not isinstance(item, str) else item
        if name:
            names.append(str(name))
    return names


def _aliases(spec: Any) -> dict[str, list[str]]:
    """field -> the wrong names an LLM tends to use for it (from llmHints.inputAliases)."""
    hints = _get(spec, "llm_hints", "llmHints") or {}
    raw = _get(hints, "input_aliases", "inputAliases") or {}
    by_field: dict[str, list[str]] = {}
    for key, value in raw.items():
        if isinstance(value, list):  # field -> [aliases]
            by_field.setdefault(key, []).extend(str(v) for v in value)
        else:  # alias -> field
            by_field.setdefault(str(value), []).append(key)
    return by_field


def _example(spec: Any) -> str | None:
    examples = _get(spec, "examples") or []
    for example in examples:
        config = _get(example, "config")
        if isinstance(config, dict) and config:
            text = yaml.safe_dump(config, default_flow_style=True, sort_keys=False, width=10_000).strip()
            if len(text) <= MAX_EXAMPLE_CHARS:
                return text
    return None


def _get(obj: Any, *names: str) -> Any:
    """An attribute or a mapping key, whichever `obj` has, under the first name that exists."""
    for name in names:
        if isinstance(obj, dict) and name in obj:
            return obj[name]
        if not isinstance(obj, dict) and hasattr(obj, name):
            return getattr(obj, name)
    return None
