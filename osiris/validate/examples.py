"""Check that each spec's `examples[].config` validates as a step of its own component."""

from __future__ import annotations

import yaml

from osiris.oml.values import MutableConfig
from osiris.registry import ComponentSpec, Registry
from osiris.validate.connections import CONNECTION_KEY, Connections, parse_reference
from osiris.validate.validator import Validator


def example_pipeline(spec: ComponentSpec, config: MutableConfig) -> str:
    """A one-step OML pipeline around an example config."""
    step = {"id": "example", "component": spec.name, "mode": spec.oml_modes[0] if spec.oml_modes else "read",
            "config": config}
    return yaml.safe_dump({"oml_version": "0.1.0", "name": "example", "steps": [step]}, sort_keys=False)


INLINE_SECRET = "OML310"
ALONE = ("OML407", "OML409")  # what a step shown without its upstream steps is bound to get


def example_problems(registry: Registry) -> list[str]:
    """"<component> example N (<title>): CODE path: message" for every example that does not validate.
    A secret written inline in an example is not a problem of the spec (see `example_warnings`)."""
    return [line for code, line in _example_errors(registry) if code != INLINE_SECRET]


def example_warnings(registry: Registry) -> list[str]:
    """Examples that write a secret inline (public Osiris's specs do): such an example is never put
    into the system prompt, so the LLM does not copy it."""
    return [line for code, line in _example_errors(registry) if code == INLINE_SECRET]


def _example_errors(registry: Registry) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for spec in registry.components.values():
        for number, example in enumerate(spec.examples, start=1):
            config = example.get("config") or {}
            reference = parse_reference(config.get(CONNECTION_KEY))
            connections: Connections = {reference[0]: {reference[1]: {}}} if reference else {}
            report = Validator(registry, connections).validate(example_pipeline(spec, config))
            for issue in report.errors:
                if issue.code in ALONE:
                    continue  # an example shows one step alone, without the steps whose rows it reads
                found.append((issue.code, f"{spec.name} example {number} ({example.get('title', '')}): "
                                          f"{issue.code} {issue.path}: {issue.message}"))
    return found
