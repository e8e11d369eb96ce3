"""One component spec (docs/components.md), read into the fields Osiris uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from osiris.oml.values import Config, MutableConfig, Value
from osiris.secrets.names import is_header_map, is_secret_header

OVERRIDE_RULES = ("allowed", "forbidden", "warning")
# OML step mode -> the component modes that provide it ('load' is the deprecated name of 'write').
OML_TO_COMPONENT_MODES = {"read": ("extract",), "write": ("write", "load"), "transform": ("transform",)}


@dataclass(frozen=True)
class LLMHints:
    input_aliases: dict[str, list[str]] = field(default_factory=dict)  # field -> aliases
    prompt_guidance: str = ""
    yaml_snippets: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ComponentSpec:
    """A loaded, meta-schema-checked component spec. `raw` keeps the whole file's data."""

    name: str
    version: str
    title: str
    description: str
    modes: tuple[str, ...]
    config_schema: dict[str, Any]
    secret_pointers: frozenset[str]  # JSON pointers into a step's config, from `secrets` and `x-secret`
    connection_fields: dict[str, str]  # field -> override rule: allowed | forbidden | warning
    constraints: list[dict[str, Any]]
    examples: list[dict[str, Any]]
    llm_hints: LLMHints
    raw: dict[str, Any]
    path: Path | None = None

    @property
    def request_facts(self) -> list[str]:
        """`x-request-facts`: what the component does that a request's author must know (what replace
        deletes, whether names keep their case), said in the request message that needs it."""
        return [fact for fact in self.raw.get("x-request-facts") or [] if isinstance(fact, str)]

    @property
    def page_size_fact(self) -> str:
        """`a page holds at most 1,000 rows (limit 1..1000, default 1000)`, from the bounds of the field
        `x-page-size` names; "" when the component names none."""
        name = self.raw.get("x-page-size")
        field = (self.config_schema.get("properties") or {}).get(name) if isinstance(name, str) else None
        if not isinstance(field, dict) or not isinstance(field.get("maximum"), int):
            return ""
        default = f", default {field['default']}" if "default" in field else ""
        return f"a page holds at most {field['maximum']:,} rows ({name} {field.get('minimum', 1)}..{field['maximum']}{default})"

    @property
    def family(self) -> str:
        """The connection family: the part of the name before the first dot (mysql.extractor -> mysql)."""
        return self.name.split(".", 1)[0]

    @property
    def properties(self) -> dict[str, MutableConfig]:
        properties: dict[str, MutableConfig] = self.config_schema.get("properties", {})
        return properties

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(self.config_schema.get("required", ()))

    @cached_property
    def defaults(self) -> MutableConfig:
        """Each config field's `default` from the configSchema: what it is when a step leaves it out."""
        return {name: schema["default"] for name, schema in self.properties.items()
                if isinstance(schema, dict) and "default" in schema}

    @cached_property
    def no_effect(self) -> dict[str, str]:
        """field -> why it changes nothing in Osiris, from the fields marked `x-no-effect: <why>`:
        accepted, since public Osiris pipelines set them, and said when a step does (OML321)."""
        return {name: why for name, schema in self.properties.items()
                if isinstance(schema, dict) and isinstance(why := schema.get("x-no-effect"), str)}

    @cached_property
    def secret_fields(self) -> frozenset[str]:
        """Top-level config field names that hold secrets, e.g. {"password"} (a header map is not
        one: only the secret headers in it are)."""
        return frozenset(p.split("/")[1] for p in self.secret_pointers if p.count("/") == 1 and not is_header_map(p))

    @property
    def oml_modes(self) -> tuple[str, ...]:
        """The OML step modes (read, write, transform) this component supports."""
        return tuple(m for m, provided in OML_TO_COMPONENT_MODES.items() if set(provided) & set(self.modes))

    @cached_property
    def aliases(self) -> dict[str, str]:
        """alias -> field, from llmHints.inputAliases, leaving out names that are fields themselves."""
        result: dict[str, str] = {}
        for name, aliases in self.llm_hints.input_aliases.items():
            for alias in aliases:
                if alias not in self.properties and alias not in result:
                    result[alias] = name
        return result

    def is_secret(self, config_pointer: str) -> bool:
        """True when `config_pointer` (e.g. "/password", "/headers/Authorization") is a secret. Under
        a header map the spec marks secret, only the headers whose names carry secrets are
        (`osiris.secrets.names.is_secret_header`): `/headers/X-Custom` is not."""
        for pointer in self.secret_pointers:
            inside = config_pointer.startswith(pointer + "/")
            if is_header_map(pointer):
                if inside and is_secret_header(config_pointer[len(pointer) + 1:].split("/")[0]):
                    return True
            elif inside or config_pointer == pointer:
                return True
        return False


def spec_from_dict(data: MutableConfig, path: Path | None = None) -> ComponentSpec:
    """Build a ComponentSpec from spec data that passed the meta-schema, which fixes the type of each
    field read here (a value of another type raises ValueError naming it)."""
    hints = _mapping(data.get("llmHints") or {}, "llmHints")
    name = _text(data["name"], "name")
    constraints = _mapping(data.get("constraints") or {}, "constraints")
    return ComponentSpec(
        name=name,
        version=str(data["version"]),
        title=_text(data.get("title") or name, "title"),
        description=_text(data.get("description", ""), "description"),
        modes=tuple(_texts(data["modes"], "modes")),
        config_schema=_mapping(data["configSchema"], "configSchema"),
        secret_pointers=frozenset([*_texts(data.get("secrets", []), "secrets"),
                                   *_texts(data.get("x-secret", []), "x-secret")]),
        connection_fields=_connection_fields(_items(data["x-connection-fields"], "x-connection-fields"))
        if "x-connection-fields" in data else _secret_fields(data),
        constraints=[_mapping(rule, "constraints") for rule in _items(constraints.get("required", []), "constraints")],
        examples=[_mapping(example, "examples") for example in _items(data.get("examples", []), "examples")],
        llm_hints=LLMHints(
            input_aliases={field: _texts(aliases, "inputAliases")
                           for field, aliases in _mapping(hints.get("inputAliases", {}), "inputAliases").items()},
            prompt_guidance=_text(hints.get("promptGuidance", ""), "promptGuidance"),
            yaml_snippets=_texts(hints.get("yamlSnippets", []), "yamlSnippets"),
        ),
        raw=data,
        path=path,
    )


def _text(value: Value, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where} must be text, not {value!r}")
    return value


def _items(value: Value, where: str) -> list[Value]:
    if not isinstance(value, list):
        raise ValueError(f"{where} must be a list, not {value!r}")
    return value


def _texts(value: Value, where: str) -> list[str]:
    return [_text(item, where) for item in _items(value, where)]


def _mapping(value: Value, where: str) -> MutableConfig:
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a mapping, not {value!r}")
    return value


def _secret_fields(data: Config) -> dict[str, str]:
    """No x-connection-fields: as in public Osiris, the connection supplies the secret fields."""
    pointers = [*_items(data.get("secrets", []), "secrets"), *_items(data.get("x-secret", []), "x-secret")]
    properties = _mapping(_mapping(data.get("configSchema") or {}, "configSchema").get("properties") or {}, "properties")
    names = [p.strip("/").split("/")[0] for p in pointers if isinstance(p, str)]
    return {name: "forbidden" for name in dict.fromkeys(names) if name in properties}


def _connection_fields(entries: list[Value]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for entry in entries:
        if isinstance(entry, str):
            fields[entry] = "allowed"
        else:
            rule = _mapping(entry, "x-connection-fields")
            fields[_text(rule["name"], "x-connection-fields")] = _text(rule.get("override", "allowed"), "override")
    return fields
