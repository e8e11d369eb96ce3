"""`osiris components list | show NAME | validate`: the component registry (docs/components.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from osiris.commands.options import add_action, add_actions
from osiris.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value
    from osiris.registry import ComponentSpec, Registry


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = add_actions(parser)
    listing = add_action(actions, "list", "one line per component: name, OML modes, title")
    listing.add_argument("--json", action="store_true", help="print JSON on stdout")
    show = add_action(actions, "show", "a component's fields, connection, constraints and examples")
    show.add_argument("name", metavar="NAME")
    show.add_argument("--json", action="store_true", help="print the spec as JSON on stdout")
    add_action(actions, "validate", "check every spec: meta-schema, configSchema, and its examples")


def run(args: argparse.Namespace) -> int:
    from osiris.registry import load_registry
    from osiris.registry.cache import project_cache_dir
    from osiris.settings import load_settings

    effective = load_settings(config_path=args.config)
    checks_all = args.action == "validate"  # never from the cache of spec checks
    registry = load_registry((effective.resolve_path(p) for p in effective.settings.components.paths),
                             check_builtins=checks_all,
                             cache_dir=None if checks_all else project_cache_dir(effective.project_root))
    if args.action == "validate":
        return _validate(registry)
    for problem in registry.problems:
        print(f"osiris: warning: component spec skipped: {problem}", file=sys.stderr)
    if args.action == "list":
        return _list(registry, args.json)
    return _show(registry, args.name, args.json)


def _list(registry: Registry, as_json: bool) -> int:
    specs = [registry.components[name] for name in registry.names()]
    if as_json:
        print(json.dumps([{"name": s.name, "version": s.version, "modes": list(s.oml_modes), "title": s.title,
                           "path": str(s.path)} for s in specs], indent=2))
        return ExitCode.OK
    width = max((len(s.name) for s in specs), default=0)
    for spec in specs:
        print(f"{spec.name:<{width}}  {'/'.join(spec.oml_modes) or '-':<15}  {spec.title}")
    return ExitCode.OK


def _show(registry: Registry, name: str, as_json: bool) -> int:
    spec = registry.get(name)
    if spec is None:
        raise UsageError(f"unknown component '{name}'{_suggestion(name, registry.names())}; "
                         "see 'osiris components list'")
    if as_json:
        print(json.dumps(spec.raw, indent=2, default=str))
        return ExitCode.OK
    print(_describe(spec))
    return ExitCode.OK


def _suggestion(name: str, names: list[str]) -> str:
    """A family name ('mysql') suggests its components; anything else the closest name."""
    from osiris.suggest import did_you_mean

    family = [known for known in names if known.split(".")[0] == name.lower()]
    if family:
        return f" (did you mean {' or '.join(repr(known) for known in family)}?)"
    return did_you_mean(name, names)


def _describe(spec: ComponentSpec) -> str:
    import yaml

    lines = [f"{spec.name} {spec.version}: {spec.title}", f"  {spec.description}" if spec.description else "",
             f"OML modes: {', '.join(spec.oml_modes) or '-'}   (component modes: {', '.join(spec.modes)})"]
    if spec.connection_fields:
        fields = ", ".join(f"{f} ({rule})" if rule != "allowed" else f for f, rule in spec.connection_fields.items())
        lines.append(f"Connection: connection: \"@{spec.family}.<alias>\" supplies {fields}")
    lines.append(f"Required: {', '.join(spec.required) or '-'}")
    lines.append("Fields:")
    for field, schema in spec.properties.items():
        marks = [m for m, on in (("required", field in spec.required), ("secret", spec.is_secret("/" + field)),
                                 ("from connection", field in spec.connection_fields),
                                 ("no effect", field in spec.no_effect)) if on]
        lines.append(f"  {field}: {_summary(schema)}" + (f"  [{', '.join(marks)}]" if marks else ""))
        if schema.get("description"):
            lines.append(f"      {schema['description']}")
    aliases = spec.llm_hints.input_aliases
    if aliases:
        lines.append("Aliases: " + "; ".join(f"{f} <- {', '.join(a)}" for f, a in aliases.items()))
    for rule in spec.constraints:
        lines.append(f"Constraint: when {_when(rule.get('when'))}, {_must(rule.get('must'))}: {rule.get('error')}")
    for example in spec.examples:
        lines.append(f"Example: {example.get('title', '')}")
        body = yaml.safe_dump({"config": example.get("config", {})}, sort_keys=False).rstrip()
        lines.extend("  " + line for line in body.splitlines())
    return "\n".join(line for line in lines if line != "")


def _when(condition: Value) -> str:
    """{'query': None, 'mode': 'read'} -> 'query is not given and mode is "read"'."""
    if not isinstance(condition, dict):
        return _shown(condition)
    return " and ".join(f"{field} is not given" if value is None else f"{field} is {_shown(value)}"
                        for field, value in condition.items()) or "always"


def _must(requirements: Value) -> str:
    """{'table': {'minLength': 1}, 'body': None} -> "table must have length >= 1, body must be absent"."""
    if not isinstance(requirements, dict):
        return f"must be {_shown(requirements)}"
    parts = []
    for field, schema in requirements.items():
        if not isinstance(schema, dict):
            parts.append(f"{field} must be absent" if schema is None else f"{field} must be {_shown(schema)}")
        else:
            parts.append(f"{field} must have {'; '.join(_details(schema)) or 'a value'}")
    return ", ".join(parts)


def _shown(value: object) -> str:
    """A value as in YAML/JSON (null, false, "text"), never Python's repr."""
    return json.dumps(value, default=str)


def _summary(schema: Config) -> str:
    if "oneOf" in schema or "anyOf" in schema:
        choices = schema.get("oneOf", schema.get("anyOf", []))
        kinds = [s.get("type", "?") for s in choices if isinstance(s, Mapping)] if isinstance(choices, list) else []
        text = " or ".join(map(str, kinds))
    else:
        text = str(schema.get("type", "any"))
    details = _details(schema)
    return text + (f" ({'; '.join(details)})" if details else "")


def _details(schema: Config) -> list[str]:
    details = []
    enum = schema.get("enum")
    if "enum" in schema and isinstance(enum, list):
        details.append("one of " + ", ".join(map(str, enum)))
    for key, label in (("minimum", ">="), ("maximum", "<="), ("minLength", "length >="), ("maxLength", "length <="),
                       ("pattern", "matches"), ("format", "format")):
        if key in schema:
            details.append(f"{label} {_shown(schema[key]) if key == 'pattern' else schema[key]}")
    if "default" in schema:
        details.append(f"default {_shown(schema['default'])}")
    return details


def _validate(registry: Registry) -> int:
    from osiris.validate.examples import example_problems, example_warnings

    problems = [str(problem) for problem in registry.problems]
    problems.extend(example_problems(registry))
    for warning in example_warnings(registry):
        print(f"osiris: warning: {warning} (this example is left out of the prompt)", file=sys.stderr)
    for problem in problems:
        print(f"osiris: {problem}", file=sys.stderr)
    count = len(registry.components)
    if problems:
        print(f"{len(problems)} problem(s) in the component specs ({count} loaded)")
        return ExitCode.INVALID
    print(f"{count} component specs are valid, with all their examples")
    return ExitCode.OK
