"""Pipeline parameters (public Osiris's form; docs/run-again.md): a top-level `params:` mapping,
each `{default: value, description: text}` (or a plain value: its default), and `${params.name}`
wherever a scalar stands in a step's config, whole or inside a string.

A value comes from, in order: `--param name=value`, the environment's `OSIRIS_PARAM_<NAME>`, the
default. The validator and the runtime use the same resolution (`resolve`, `substitute`), so what
is checked is what runs. Parameters are not secrets: they are recorded in the run's trail.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from osiris.oml.values import Config, MutableConfig, Value


REFERENCE = re.compile(r"\$\{params\.([A-Za-z_][A-Za-z0-9_]*)\}")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ENV_PREFIX = "OSIRIS_PARAM_"
ENTRY_KEYS = ("default", "description")


def env_name(name: str) -> str:
    """The environment variable that sets parameter `name`: `OSIRIS_PARAM_SINCE` for `since`."""
    return ENV_PREFIX + name.upper()


class _NoDefault:
    """The default of a parameter declared without one."""

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Final = _NoDefault()


def declared(document: Config) -> dict[str, Value | _NoDefault]:
    """The declared parameters and their defaults; a parameter without a default maps to `NO_DEFAULT`."""
    block = document.get("params")
    if not isinstance(block, Mapping):
        return {}
    found: dict[str, Value | _NoDefault] = {}
    for name, entry in block.items():
        if not isinstance(name, str):
            continue
        if isinstance(entry, Mapping):
            found[name] = entry.get("default", NO_DEFAULT)
        else:
            found[name] = entry  # public Osiris: a plain value is the default
    return found


def used(value: object) -> list[str]:
    """Names of the parameters `value` refers to, in order of first use."""
    names: list[str] = []
    for text in _strings(value):
        for match in REFERENCE.finditer(text):
            if match.group(1) not in names:
                names.append(match.group(1))
    return names


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


@dataclass
class Resolved:
    """Each parameter's value and where it came from (`param`, `env` or `default`)."""

    values: MutableConfig = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def record(self) -> dict[str, dict[str, Value]]:
        """What the trail keeps: `{name: {value, source}}`, in name order."""
        return {name: {"value": self.values[name], "source": self.sources[name]} for name in sorted(self.values)}


def resolve(document: Config, given: Mapping[str, str], env: Mapping[str, str]) -> Resolved:
    """Every parameter the pipeline declares or uses that has a value: `given` (`--param`) first,
    then the environment, then the default. A parameter with none is left out (`unresolved` names it)."""
    defaults = declared(document)
    steps = document.get("steps")
    names = list(defaults) + [n for n in used(_configs(steps)) if n not in defaults]
    resolved = Resolved()
    for name in names:
        if name in given:
            resolved.values[name], resolved.sources[name] = given[name], "param"
        elif env_name(name) in env:
            resolved.values[name], resolved.sources[name] = env[env_name(name)], "env"
        elif not isinstance(default := defaults.get(name, NO_DEFAULT), _NoDefault):
            resolved.values[name], resolved.sources[name] = default, "default"
    return resolved


def _configs(steps: object) -> list[object]:
    return [s.get("config") for s in steps if isinstance(s, Mapping)] if isinstance(steps, list) else []


def substitute(value: Value, values: Config, pointer: str = "") -> tuple[Value, list[str]]:
    """`value` with every `${params.name}` that has a value replaced, and the JSON pointers of the
    strings that held one. A whole-value reference takes the parameter's value as typed (a default
    of 100 stays a number); one inside a text becomes text. Unknown ones are left as they are."""
    if isinstance(value, str):
        whole = REFERENCE.fullmatch(value)
        if whole and whole.group(1) in values:
            return values[whole.group(1)], [pointer]
        if not REFERENCE.search(value):
            return value, []
        text = REFERENCE.sub(lambda m: as_text(values[m.group(1)]) if m.group(1) in values else m.group(0), value)
        return text, [pointer] if text != value else []
    if isinstance(value, dict):
        out: MutableConfig = {}
        pointers: list[str] = []
        for key, item in value.items():
            out[key], inner = substitute(item, values, f"{pointer}/{key}")
            pointers += inner
        return out, pointers
    if isinstance(value, list):
        items: list[Value] = []
        pointers = []
        for index, item in enumerate(value):
            new, inner = substitute(item, values, f"{pointer}/{index}")
            items.append(new)
            pointers += inner
        return items, pointers
    return value, []


def as_text(value: object) -> str:
    """A parameter's value inside a text: YAML's words for booleans and null, else `str`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def parse_given(items: list[str] | None) -> dict[str, str]:
    """`--param name=value` flags as a mapping (the last one of a name wins). Raises ValueError
    naming the flag that has no `=` or a name that is not a parameter name."""
    given: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not NAME.match(name.strip()):
            raise ValueError(f"--param {item}: expected name=value, the name made of letters, digits and _")
        given[name.strip()] = value
    return given
