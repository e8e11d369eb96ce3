"""The types of a parsed pipeline's values: what YAML and JSON can hold, named once.

A pipeline is read from YAML into these values, and a step's config is a mapping of them. Annotate
with these, not `Any`: a reader of `config: Config` knows what it may find, and mypy checks that a
value is narrowed (`isinstance(value, str)`) before it is used as one.

    def delimiter(config: Config) -> str:
        value = config.get("delimiter", ",")
        return value if isinstance(value, str) else ","
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

Scalar: TypeAlias = "str | int | float | bool | None"
"""A leaf: YAML's strings, integers, floats, booleans and null (dates stay text, docs/oml.md)."""

Value: TypeAlias = "Scalar | Sequence[Value] | Mapping[str, Value]"
"""Any value a pipeline can hold: a scalar, a list of values or a mapping of names to values."""

Config: TypeAlias = "Mapping[str, Value]"
"""A step's config, a connection's fields, a pipeline document: names to values, read-only."""

MutableConfig: TypeAlias = "dict[str, Value]"
"""A config being built (defaults merged, a value resolved): the same values, writable."""
