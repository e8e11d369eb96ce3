"""One compact line (plus guidance and an example) per component, for the system prompt."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from osiris.registry.spec import ComponentSpec
from osiris.oml.narrow import items_of

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value

MAX_EXAMPLE_CHARS = 200
MAX_ALIASES = 1


def describe_component(spec: ComponentSpec) -> str:
    """E.g. `- mysql.extractor [mysql] read: connection "@mysql.<alias>" (...); table string; ...`.

    Secret fields, and connection fields a step must not override, are left out: the LLM should
    never be invited to write them inline. Nor are fields marked `x-no-effect` (OML321): nothing to
    write. Connection fields a step may override are listed as optional ("from the connection").
    """
    required = set(spec.required)
    connection = spec.connection_fields
    aliases = spec.llm_hints.input_aliases
    fields = [
        _describe_field(name, prop or {}, name in required and name not in connection, aliases.get(name, []),
                        from_connection=name in connection)
        for name, prop in spec.properties.items()
        if name not in spec.secret_fields and name not in spec.no_effect
        and (name == "connection" or connection.get(name, "allowed") == "allowed")
    ]
    if connection and "connection" not in spec.properties:
        fields.insert(0, f'connection "@{spec.family}.<alias>" (supplies {", ".join(sorted(connection))})')
    lines = [f"- {spec.name} [{spec.family}] {', '.join(spec.oml_modes)}: {'; '.join(fields) or 'no config'}"]
    if spec.llm_hints.prompt_guidance:
        lines.append(f"  guidance: {' '.join(spec.llm_hints.prompt_guidance.split())}")
    example = _example(spec)
    if example:
        lines.append(f"  example config: {example}")
    return "\n".join(lines)


MAX_PURPOSE_CHARS = 70


def short_line(spec: ComponentSpec) -> str:
    """E.g. `- mysql.extractor [mysql] read: MySQL Data Extractor`: name, modes and purpose only."""
    purpose = " ".join((spec.title or spec.description or "").split())
    if len(purpose) > MAX_PURPOSE_CHARS:
        purpose = purpose[: MAX_PURPOSE_CHARS - 3].rstrip() + "..."
    return f"- {spec.name} [{spec.family}] {', '.join(spec.oml_modes)}: {purpose or 'no description'}"


def _describe_field(name: str, prop: Config, required: bool, aliases: list[str],
                    from_connection: bool = False) -> str:
    """E.g. `batch_size integer 100..100000 =10000` or `write_mode string [append|replace] (not mode)`."""
    parts = [name + ("*" if required else ""), type_of(prop)]
    allowed = items_of(prop["enum"]) if "enum" in prop else []
    if allowed and allowed != [prop.get("default")]:  # one value that is the default: `=true` says it
        parts.append("[" + "|".join(v if isinstance(v, str) else json.dumps(v) for v in allowed) + "]")
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None or high is not None:
        parts.append(f"{'' if low is None else low}..{'' if high is None else high}")
    if "default" in prop and not isinstance(prop["default"], (dict, list)):
        parts.append(f"={json.dumps(prop['default'])}")
    if from_connection:
        parts.append("(conn)")
    if aliases:  # the most common wrong names; any alias is renamed safely anyway (OML315)
        parts.append("(not " + ", ".join(aliases[:MAX_ALIASES]) + ")")
    return " ".join(parts)


def type_of(prop: Config) -> str:
    """`string`, `integer`, `list of string`, `string|list of string` (oneOf/anyOf), or `any`."""
    kind = prop.get("type")
    if isinstance(kind, list):
        return "|".join(_one_type(k, prop) for k in kind)
    if isinstance(kind, str):
        return _one_type(kind, prop)
    forms = [type_of(sub) for sub in items_of(prop.get("oneOf", prop.get("anyOf", []))) if isinstance(sub, dict)]
    if "enum" in prop and not forms:
        forms = sorted({_JSON_TYPES.get(type(v), "string") for v in items_of(prop["enum"])})
    return "|".join(dict.fromkeys(forms)) or "any"


_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _one_type(kind: str, prop: Config) -> str:
    if kind == "array":
        items = prop.get("items")
        return f"list of {type_of(items)}" if isinstance(items, dict) and items else "list"
    if kind == "object":
        return "mapping"
    return kind


def _example(spec: ComponentSpec) -> str | None:
    """The first example config that fits on one short line, as JSON. An example that writes a
    secret inline is never shown: the LLM would copy it."""
    for example in spec.examples:
        config = example.get("config") if isinstance(example, dict) else None
        if isinstance(config, dict) and config and not inline_secrets(spec, config):
            text = " ".join(json.dumps(config, ensure_ascii=False, default=str).split())
            if len(text) <= MAX_EXAMPLE_CHARS:
                return text
    return None


def inline_secrets(spec: ComponentSpec, config: Config) -> list[str]:
    """The secret pointers of `spec` that `config` sets a value for."""
    found = []
    for pointer in sorted(spec.secret_pointers):
        value: Value = config
        for part in pointer.strip("/").split("/"):
            value = value.get(part) if isinstance(value, dict) else None
        if value is not None:
            found.append(pointer)
    return found
