"""The component registry: specs by name, and one compiled config validator per component."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from osiris.registry.loader import (
    SpecProblem,
    builtin_components_dir,
    read_specs,
    spec_files,
)
from osiris.registry.patterns import search
from osiris.registry.spec import ComponentSpec

# Top-level keywords the validator checks itself, for one issue per field with a fuzzy hint.
_CHECKED_BY_OSIRIS = ("required", "additionalProperties")


class Registry:
    """Specs by name. Later directories override earlier ones (user specs over built-ins)."""

    def __init__(self, specs: Iterable[ComponentSpec] = (), problems: Iterable[SpecProblem] = ()) -> None:
        self.components: dict[str, ComponentSpec] = {}
        for spec in specs:
            self.components[spec.name] = spec
        self.problems: list[SpecProblem] = list(problems)
        self._validators: dict[str, Any] = {}

    def get(self, name: str) -> ComponentSpec | None:
        return self.components.get(name)

    def names(self) -> list[str]:
        return sorted(self.components)

    def secret_fields(self, component: str) -> set[str]:
        """JSON pointers into a step's config that hold secrets, e.g. {"/password"}; empty if unknown."""
        spec = self.components.get(component)
        return set(spec.secret_pointers) if spec else set()

    def secret_paths(self, pipeline: Any) -> set[str]:
        """Absolute JSON pointers of the secret config fields of a parsed pipeline,
        e.g. {"/steps/0/config/password"}, whether or not they are present."""
        paths: set[str] = set()
        steps = pipeline.get("steps") if isinstance(pipeline, dict) else None
        for index, step in enumerate(steps if isinstance(steps, list) else []):
            if isinstance(step, dict) and isinstance(step.get("component"), str):
                paths.update(f"/steps/{index}/config{p}" for p in self.secret_fields(step["component"]))
        return paths

    def config_validator(self, component: str) -> Any:
        """The compiled jsonschema validator of a component's config, built once on first use.

        Top-level `required` and `additionalProperties` are left out: Osiris checks those itself,
        because connection references supply fields and unknown keys get a fuzzy hint.
        """
        validator = self._validators.get(component)
        if validator is None:
            validator = self._validators[component] = compile_schema(
                {k: v for k, v in self.components[component].config_schema.items() if k not in _CHECKED_BY_OSIRIS}
            )
        return validator


def compile_schema(schema: dict[str, Any]) -> Any:
    """A Draft 2020-12 validator that also checks `format` (uri, email, date, ...), runs `pattern` and
    `patternProperties` on RE2 (ADR 0085) and never fetches a `$ref` (ADR 0086)."""
    from osiris.registry.formats import format_checker
    from osiris.registry.refs import no_retrieval

    return _validator_class()(schema, format_checker=format_checker(), registry=no_retrieval())


@lru_cache(maxsize=1)
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {
        "pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties,
    })


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, allowed: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    """jsonschema's own keyword, with the patternProperties test on RE2."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extras = [key for key in instance
              if key not in properties and not any(search(pattern, key) for pattern in patterns)]
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        listed = ", ".join(repr(extra) for extra in sorted(extras, key=str))
        yield ValidationError(f"Additional properties are not allowed ({listed} {'was' if len(extras) == 1 else 'were'} "
                              "unexpected)")


def load_registry(extra_dirs: Iterable[Path] = (), *, check_builtins: bool = False) -> Registry:
    """Built-in specs, then the specs in `extra_dirs` (components.paths), each directory once.

    Specs in `extra_dirs` are checked in full; the built-ins only with `check_builtins` (their
    checks run in the tests and in `osiris components validate`).
    """
    builtin = builtin_components_dir().resolve()
    trusted = None if check_builtins else builtin
    specs, problems = read_specs(spec_files([builtin, *extra_dirs]), trusted=trusted)
    return Registry(specs, problems)
