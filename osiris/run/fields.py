"""Reading a step's config fields as the types the spec gives them.

A driver's config is a `Config` (osiris.oml.values): the step's config over its connection's fields,
the spec's defaults merged. The validator has checked each field against the spec, so a driver
reads it through these helpers instead of trusting `Any`:

    batch_size = integer(ctx.config, "batch_size")
    query = optional_text(ctx.config, "query")

A field the merged defaults must hold and that is missing is a TypeError naming it; a default given
here would repeat the spec's (tests/test_rules_once.py counts those). A value of the wrong kind (a list where
the spec says a number) is a bug in the validation, raised as a TypeError naming the field, never
guessed around.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from osiris.oml.values import Config, Value

__all__ = ["flag", "integer", "mapping", "number", "optional_integer", "optional_text", "spec_mapping", "text", "texts"]


def _wrong(name: str, value: Value, expected: str) -> TypeError:
    return TypeError(f"the config field '{name}' is {type(value).__name__} {value!r:.40}, not {expected}: "
                     "the validator should have refused it")


def _missing(name: str) -> TypeError:
    return TypeError(f"the config field '{name}' is missing: the validator should have refused the step")


def optional_text(config: Config, name: str) -> str | None:
    """The field as text (a number written where a name was expected, `database: 2024`, is its
    text); None when it is missing or null."""
    value = config.get(name)
    if value is None:
        return None
    if isinstance(value, (str, int, float)):  # bool is an int: `True` reads "True", as str() did
        return str(value)
    raise _wrong(name, value, "text")


def text(config: Config, name: str, default: str | None = None) -> str:
    """The field as text; `default` when it is missing or null (a TypeError when there is none)."""
    found = optional_text(config, name)
    if found is not None:
        return found
    if default is None:
        raise _missing(name)
    return default


def optional_integer(config: Config, name: str) -> int | None:
    """The field as a whole number (a number's text, `"5432"` from an environment variable, is
    read); None when it is missing or null."""
    value = config.get(name)
    if value is None:
        return None
    if isinstance(value, (int, float, str)):
        try:
            return int(value)
        except ValueError:
            raise _wrong(name, value, "a whole number") from None
    raise _wrong(name, value, "a whole number")


def integer(config: Config, name: str, default: int | None = None) -> int:
    """The field as a whole number; `default` when it is missing or null (a TypeError when there is none)."""
    found = optional_integer(config, name)
    if found is not None:
        return found
    if default is None:
        raise _missing(name)
    return default


def number(config: Config, name: str) -> float:
    """A number field (`timeout`, `retry_delay`); a TypeError when it is missing (the spec's default
    is merged, so it is there)."""
    value = config.get(name)
    if value is None:
        raise _missing(name)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise _wrong(name, value, "a number")


def flag(config: Config, name: str) -> bool:
    """A true/false field; a TypeError when it is missing (the spec's default is merged, so it is there)."""
    value = config.get(name)
    if value is None:
        raise _missing(name)
    if isinstance(value, bool):
        return value
    raise _wrong(name, value, "true or false")


def texts(config: Config, name: str) -> list[str]:
    """A list field's items as text; empty when it is missing or null."""
    value = config.get(name)
    if value is None:
        return []
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [str(item) for item in value]
    raise _wrong(name, value, "a list")


def mapping(config: Config, name: str) -> Config:
    """A mapping field (`params`, `variables`, `dtype`); empty when it is missing, null or not a mapping."""
    value = config.get(name)
    return value if isinstance(value, Mapping) else {}


def spec_mapping(config: Config, name: str) -> Config:
    """A mapping field whose spec gives a default (`headers`, `params`, `variables`: `{}`); a
    TypeError when it is missing, since the merged defaults hold it."""
    value = config.get(name)
    if value is None:
        raise _missing(name)
    if isinstance(value, Mapping):
        return value
    raise _wrong(name, value, "a mapping")
