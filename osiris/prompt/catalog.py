"""One compact line (plus guidance and an example) per component, for the system prompt."""

from __future__ import annotations

import json
from typing import Any

from osiris.registry.spec import ComponentSpec

MAX_EXAMPLE_CHARS = 400


def describe_component(spec: ComponentSpec) -> str:
    """E.g. `- mysql.extractor [mysql] read: connection "@mysql.<alias>" (...); table string; ...`.

    Fields that a connection supplies, and secret fields, are left out: the LLM should never be
    invited to write them inline.
    """
    required = set(spec.required)
    connection = set(spec.connection_fields)
    aliases = spec.llm_hints.input_aliases
    fields = [
        _describe_field(name, prop or {}, name in required, aliases.get(name, []))
        for name, prop in spec.properties.items()
        if name not in spec.secret_fields and (name == "connection" or name not in connection)
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


def _describe_field(name: str, prop: dict[str, Any], required: bool, aliases: list[str]) -> str:
    """E.g. `batch_size integer 100..100000 =10000` or `write_mode [append|replace] (not mode)`."""
    parts = [name + ("*" if required else "")]
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = "|".join(str(k) for k in kind)
    if "enum" in prop:
        parts.append("[" + "|".join(str(v) for v in prop["enum"]) + "]")
    elif kind:
        parts.append(str(kind))
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None or high is not None:
        parts.append(f"{'' if low is None else low}..{'' if high is None else high}")
    if "default" in prop and not isinstance(prop["default"], (dict, list)):
        parts.append(f"={json.dumps(prop['default'])}")
    if aliases:
        parts.append("(not " + ", ".join(aliases) + ")")
    return " ".join(parts)


def _example(spec: ComponentSpec) -> str | None:
    """The first example config that fits on one short line, as JSON."""
    for example in spec.examples:
        config = example.get("config") if isinstance(example, dict) else None
        if isinstance(config, dict) and config:
            text = " ".join(json.dumps(config, ensure_ascii=False, default=str).split())
            if len(text) <= MAX_EXAMPLE_CHARS:
                return text
    return None
