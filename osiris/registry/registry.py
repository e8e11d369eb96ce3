"""The component registry: specs by name, and one compiled config validator per component."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.extract import escape
from osiris.oml.values import Config, MutableConfig
from osiris.registry.cache import SpecCache
from osiris.registry.loader import (
    META_SCHEMA_FILE,
    SpecProblem,
    builtin_components_dir,
    read_specs,
    spec_files,
)
from osiris.registry.schemas import compile_schema
from osiris.registry.spec import ComponentSpec
from osiris.secrets.names import is_header_map, is_secret_header

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

    from osiris.oml.config import StepConfig

# Top-level keywords the validator checks itself, for one issue per field with a fuzzy hint.
_CHECKED_BY_OSIRIS = ("required", "additionalProperties")


class Registry:
    """Specs by name. Later directories override earlier ones (user specs over built-ins)."""

    def __init__(self, specs: Iterable[ComponentSpec] = (), problems: Iterable[SpecProblem] = ()) -> None:
        self.components: dict[str, ComponentSpec] = {}
        for spec in specs:
            self.components[spec.name] = spec
        self.problems: list[SpecProblem] = list(problems)
        self._validators: dict[str, Draft202012Validator] = {}

    def get(self, name: str) -> ComponentSpec | None:
        return self.components.get(name)

    def names(self) -> list[str]:
        return sorted(self.components)

    def secret_fields(self, component: str) -> set[str]:
        """JSON pointers into a step's config that hold secrets, e.g. {"/password"}; empty if unknown."""
        spec = self.components.get(component)
        return set(spec.secret_pointers) if spec else set()

    def secret_paths(self, pipeline: object) -> set[str]:
        """Absolute JSON pointers of the secret config fields of a parsed pipeline,
        e.g. {"/steps/0/config/password"}, whether or not they are present; under a header map the
        spec marks secret, the secret headers the step writes ("/steps/0/config/headers/Authorization")."""
        paths: set[str] = set()
        steps = pipeline.get("steps") if isinstance(pipeline, dict) else None
        for index, step in enumerate(steps if isinstance(steps, list) else []):
            if isinstance(step, dict) and isinstance(step.get("component"), str):
                config = step["config"] if isinstance(step.get("config"), dict) else {}
                for pointer in self.secret_fields(step["component"]):
                    paths.update(f"/steps/{index}/config{p}" for p in _concrete(pointer, config))
        return paths

    def config_schema(self, component: str) -> MutableConfig:
        """A component's config schema as the validator checks it: the top-level `required` and
        `additionalProperties` left out, because Osiris checks those itself (connection references
        supply fields, and unknown keys get a fuzzy hint)."""
        return {k: v for k, v in self.components[component].config_schema.items() if k not in _CHECKED_BY_OSIRIS}

    def config_validator(self, component: str) -> Draft202012Validator:
        """The compiled jsonschema validator of `config_schema`, built once on first use."""
        validator = self._validators.get(component)
        if validator is None:
            validator = self._validators[component] = compile_schema(self.config_schema(component))
        return validator


def load_registry(extra_dirs: Iterable[Path] = (), *, check_builtins: bool = False,
                  cache_dir: Path | None = None) -> Registry:
    """Built-in specs, then the specs in `extra_dirs` (components.paths), each directory once.

    Specs in `extra_dirs` are checked in full; the built-ins only with `check_builtins` (their
    checks run in the tests and in `osiris components validate`). With `cache_dir`, user specs that
    passed before are not checked again (osiris.registry.cache).
    """
    builtin = builtin_components_dir().resolve()
    trusted = None if check_builtins else builtin
    cache = SpecCache(cache_dir, (builtin / META_SCHEMA_FILE).read_text(encoding="utf-8")) if cache_dir else None
    specs, problems = read_specs(spec_files([builtin, *extra_dirs]), trusted=trusted, cache=cache)
    return Registry(specs, problems)


@functools.cache
def _builtin() -> Registry:
    return load_registry()


def spec_defaults(component: str) -> Config:
    """A built-in component's spec defaults, for a driver config built outside a validated step
    (`osiris discover`, the sample run's facts): merged under it as `StepConfig.merged` does."""
    spec = _builtin().get(component)
    return spec.defaults if spec is not None else {}


def effective_config(step_configs: Mapping[str, StepConfig], step_id: str, component: str,
                     resolved: Config) -> MutableConfig:
    """The config a step runs (or is checked) with: validation's `StepConfig` for it merged under
    `resolved` (the step's config over its connection's fields). A caller given no validation
    report (a test, a library caller of `run_pipeline`) gets the built-in spec's defaults the same
    way. Both engines and the Spark engine's validation take a step's config from here, and only here."""
    validated = step_configs.get(step_id)
    return validated.merged(resolved) if validated is not None else {**spec_defaults(component), **resolved}


def _concrete(pointer: str, config: Config) -> list[str]:
    """A spec's secret pointer as paths in one step's config: a header map becomes its secret headers."""
    headers = config.get(pointer.strip("/")) if is_header_map(pointer) else None
    if not isinstance(headers, dict):
        return [pointer]
    return [f"{pointer}/{escape(str(name))}" for name in headers if is_secret_header(str(name))]
