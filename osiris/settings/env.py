"""The OSIRIS_* environment layer: `OSIRIS_LLM__MODEL=x` is `llm.model`, `__` nesting.

A setting that holds a list or a section takes JSON (`OSIRIS_COMPONENTS__PATHS='["a", "b"]'`);
a list of paths also takes one bare path (`OSIRIS_COMPONENTS__PATHS=extra`), since that can only
mean one folder. Anything else that is not JSON is a one-line settings error with an example.
A whole-number setting reads text that is a whole number as that number (`OSIRIS_LLM__API_RETRIES=5`).
Read by Osiris itself, so that the error is ours and names the variable (ADR 0055).
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Mapping

from osiris.errors import SettingsError
from osiris.oml.values import Value
from osiris.settings.allowed import annotation_at, fields_of, is_section
from osiris.settings.model import Settings

PREFIX = "OSIRIS_"
RETRY_ATTEMPTS_ENV = "OSIRIS_VALIDATE_RETRY_ATTEMPTS"
# Flat aliases that users type more easily than the nested `__` names.
ALIASES = {RETRY_ATTEMPTS_ENV: "validation.retry.max_attempts", "OSIRIS_VALIDATION_DRY_RUN": "validation.dry_run"}
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,18}")
_EXAMPLES = {
    "validation.rules": '[{"name": "csv-output", "expr": "...", "level": "warning"}]',
    "components.paths": '["components", "more/components"]',
}


def env_values(env: Mapping[str, str]) -> list[tuple[str, str, Value]]:
    """(variable name, dotted key, value) for every OSIRIS_* variable that names a setting."""
    found: list[tuple[str, str, Value]] = []
    for name, raw in sorted(env.items()):
        key = _key_of(name)
        if key is None:
            continue
        found.append((name, key, _parse(name, key, raw)))
    found.extend((name, key, whole_number_or_text(key, env[name])) for name, key in ALIASES.items() if name in env)
    return found


def _key_of(name: str) -> str | None:
    """OSIRIS_LLM__MODEL -> 'llm.model'; None for variables that are not settings (OSIRIS_DEBUG)."""
    if not name.upper().startswith(PREFIX) or name.upper() in ALIASES:
        return None
    parts = name[len(PREFIX):].lower().split("__")
    if parts[0] not in fields_of(Settings) or not all(parts):
        return None
    return ".".join(parts)


def _parse(name: str, key: str, raw: str) -> Value:
    annotation = annotation_at(key.split("."))
    if not _takes_json(annotation):
        return whole_number_or_text(key, raw)
    try:
        parsed: Value = json.loads(raw)  # JSON holds only these values
        return parsed
    except ValueError:
        if annotation == list[str] and raw.strip() and not raw.lstrip().startswith(("[", "{")):
            return [raw]
        kind = "a JSON list" if typing.get_origin(annotation) is list else "a JSON object"
        example = _EXAMPLES.get(key, "[...]" if kind == "a JSON list" else '{"key": "value"}')
        raise SettingsError(f"env {name}: {key} must be {kind}, e.g. {name}='{example}'") from None


def whole_number_or_text(key: str, raw: str) -> int | str:
    """Text typed for a setting (env, command line): a whole number when the setting takes one and
    the text is one, else the text, for the settings check to accept or explain."""
    if _takes_whole_number(annotation_at(key.split("."))) and _WHOLE_NUMBER.fullmatch(raw.strip()):
        return int(raw)
    return raw


def _takes_json(annotation: object) -> bool:
    return is_section(annotation) or typing.get_origin(annotation) in (list, dict)


def _takes_whole_number(annotation: object) -> bool:
    return annotation is int or annotation == int | None
