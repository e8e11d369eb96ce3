"""Find spec.yaml files, parse them, check them against the meta-schema; report broken ones.

Specs are read with the same YAML reader as pipelines (osiris.extract): libyaml, duplicate keys
rejected, limits enforced.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.extract import load_document
from osiris.oml.values import Config, MutableConfig
from osiris.registry.patterns import pattern_problem, schema_patterns
from osiris.registry.refs import reference_problems
from osiris.registry.schemas import validator_class
from osiris.registry.walk import schema_nodes
from osiris.registry.cache import SpecCache
from osiris.registry.spec import ComponentSpec, spec_from_dict

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

SPEC_FILE = "spec.yaml"
META_SCHEMA_FILE = "spec.schema.json"


@dataclass(frozen=True)
class SpecProblem:
    """A spec that could not be loaded: which file, and why. The run goes on without it."""

    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def builtin_components_dir() -> Path:
    """The component specs shipped with Osiris: `osiris/_components`, a link to `components/`."""
    return Path(__file__).parent.parent / "_components"  # not importlib.resources, slow to import


def load_meta_schema() -> MutableConfig:
    meta: MutableConfig = json.loads((builtin_components_dir() / META_SCHEMA_FILE).read_text(encoding="utf-8"))
    return meta


def spec_files(directories: Iterable[Path]) -> list[Path]:
    """`<dir>/<name>/spec.yaml` of each directory, each resolved directory once, in order."""
    seen: set[Path] = set()
    files: list[Path] = []
    for directory in directories:
        resolved = directory.resolve()
        if resolved in seen or not resolved.is_dir():
            continue
        seen.add(resolved)
        files.extend(sorted(resolved.glob(f"*/{SPEC_FILE}")))
    return files


def read_specs(files: Iterable[Path], trusted: Path | None = None,
               cache: SpecCache | None = None) -> tuple[list[ComponentSpec], list[SpecProblem]]:
    """Load every file; a broken one becomes a SpecProblem instead of stopping the others.

    Specs are checked against the meta-schema and get the full self-check of their configSchema,
    so that a broken spec cannot fail later, mid-validation. Specs directly in the `trusted`
    directory (the built-ins, which the tests and `osiris components validate` check in full) are
    only parsed: that keeps jsonschema's slow checks off the start-up path. With a `cache`, a file
    whose bytes were parsed and passed before is neither parsed nor checked again
    (osiris.registry.cache).
    """
    meta = None
    specs: list[ComponentSpec] = []
    problems: list[SpecProblem] = []
    for path in files:
        raw, reason = _read_bytes(path)
        cached = cache.get(raw) if cache is not None and raw is not None else None
        if cached is not None:  # parsed and checked before, byte for byte the same file
            specs.append(spec_from_dict(cached, path))
            continue
        data: MutableConfig = {}
        if reason is None:
            data, reason = _parse(raw or b"")
        checked = trusted is None or path.parent.parent != trusted
        if reason is None and checked:
            meta = meta or _meta_validator()
            reason = _meta_schema_problem(meta, data) or config_schema_problem(spec_from_dict(data, path))
        if reason:
            problems.append(SpecProblem(path, reason))
            continue
        if cache is not None and raw is not None:
            cache.put(raw, data, checked=checked)
        specs.append(spec_from_dict(data, path))
    if cache is not None:
        cache.save()
    return specs, problems


def _read_bytes(path: Path) -> tuple[bytes | None, str | None]:
    try:
        return path.read_bytes(), None
    except OSError as error:
        return None, f"cannot be read: {error}"


def _parse(raw: bytes) -> tuple[MutableConfig, str | None]:
    """The spec's mapping, or ({}, why it cannot be used)."""
    try:
        loaded = load_document(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        return {}, f"cannot be read: {error}"
    if loaded.problems:
        problem = loaded.problems[0]
        where = f" (line {problem.position.line})" if problem.position else ""
        return {}, f"cannot be read: {problem.message}{where}"
    if not isinstance(loaded.value, dict):
        return {}, "is not a YAML mapping"
    return loaded.value, None


def _meta_validator() -> Draft202012Validator:
    return validator_class()(load_meta_schema())


def _meta_schema_problem(meta: Draft202012Validator, data: Config) -> str | None:
    errors = sorted(meta.iter_errors(data), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    every = "; ".join(f"at /{'/'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in errors)
    return f"does not match the component meta-schema {every}"  # every problem: none hidden


def config_schema_problem(spec: ComponentSpec) -> str | None:
    """A full check of the configSchema against JSON Schema 2020-12 itself (about 10 ms a spec), then
    of what Osiris runs safely: patterns RE2 can run (ADR 0085), references inside the spec (ADR 0086)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(spec.config_schema)
    except SchemaError as error:
        return f"configSchema is not a valid JSON Schema: {error.message}"
    problems = [*_pattern_problems(spec), *reference_problems(spec.config_schema, "/configSchema")]
    for index, rule in enumerate(spec.constraints):
        for field, schema in (rule.get("must") or {}).items() if isinstance(rule, dict) else ():
            problems.extend(reference_problems(schema, f"/constraints/required/{index}/must/{field}"))
    return "; ".join(problems) or None


def _pattern_problems(spec: ComponentSpec) -> Iterator[str]:
    schemas = [(spec.config_schema, "/configSchema"), (spec.raw.get("constraints"), "/constraints")]
    for schema, where in schemas:
        for pointer, pattern in schema_patterns(schema, where):
            problem = pattern_problem(pattern)
            if problem:
                yield f"{pointer} = {pattern[:80]!r}: {problem}"
        if _mentions(schema, "unevaluatedProperties") and _mentions(schema, "patternProperties"):
            yield (f"{where}: unevaluatedProperties together with patternProperties is not supported "
                   "(Osiris cannot check it in bounded time); use additionalProperties")


def _mentions(schema: object, keyword: str) -> bool:
    return any(keyword in node for _, node, _ in schema_nodes(schema))
