"""When the quick path (osiris.settings.plain) refuses a value: pydantic validates the merged settings
against the same dataclasses, coercing what it safely can (a quoted number, `yes` for true), and
its first error becomes one line naming the source, the key, the value and what is allowed."""

from __future__ import annotations


from pydantic import TypeAdapter, ValidationError

from osiris.errors import SettingsError
from osiris.oml.values import MutableConfig
from osiris.secrets.names import MASK, is_secret_key
from osiris.settings.allowed import describe_allowed, known_keys_at
from osiris.settings.check import show_value
from osiris.settings.loader import DEFAULT_SOURCE
from osiris.settings.model import Settings
from osiris.suggest import closest

_UNKNOWN_KEY = ("extra_forbidden", "unexpected_keyword_argument")
_MISSING = ("missing", "missing_argument")


def validate_or_explain(merged: MutableConfig, sources: dict[str, str]) -> Settings:
    """The settings pydantic builds from `merged`; SettingsError with one line if it refuses them."""
    try:
        return TypeAdapter(Settings).validate_python(merged)
    except ValidationError as error:
        raise SettingsError(describe_first_error(error, sources)) from None


def describe_first_error(error: ValidationError, sources: dict[str, str]) -> str:
    """One line: source, key, bad value and what is allowed (or the closest known key)."""
    problems = error.errors()
    first = problems[0]
    loc = [str(part) for part in first["loc"] if not str(part).isdigit()]
    key = _dotted(first["loc"])
    source = _source_of(".".join(str(part) for part in first["loc"]), sources)
    more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    if first["type"] in _UNKNOWN_KEY:
        known = known_keys_at(loc[:-1])
        close = closest(loc[-1], known)
        suggestion = f"; did you mean '{'.'.join([*loc[:-1], close])}'?" if close else ""
        choices = f"; known keys here: {', '.join(known)}" if not close and known else ""
        return f"{source}: unknown key '{key}'{suggestion}{choices}{more}"
    if first["type"] in _MISSING:
        return f"{source}: {key} is missing; give {describe_allowed(loc) or 'a value'}{more}"
    value = MASK if any(is_secret_key(part) for part in loc) else show_value(first.get("input"))
    allowed = describe_allowed(loc) or _plain(first["msg"])
    return f"{source}: {key} = {value} is not allowed; it must be {allowed}{more}"


def _dotted(loc: tuple[int | str, ...]) -> str:
    """('validation', 'rules', 0, 'level') -> 'validation.rules[0].level'."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _plain(message: str) -> str:
    """pydantic's 'Input should be a valid string' -> 'a valid string'."""
    for prefix in ("Input should be ", "Value error, "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message[:1].lower() + message[1:]


def _source_of(key: str, sources: dict[str, str]) -> str:
    if key in sources:
        return sources[key]
    for known, source in sources.items():
        if known.startswith(key + ".") or key.startswith(known + "."):
            return source
    return DEFAULT_SOURCE
