"""Checks that need more than a type: a URL that is a URL, rules that compile, folders that exist.

Each error is one line that names the setting and where its value came from.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from osiris.errors import SettingsError

if TYPE_CHECKING:
    from osiris.settings.loader import EffectiveSettings


def check_settings(effective: EffectiveSettings) -> None:
    """Raise SettingsError for a bad llm.base_url, run.memory_limit, rule or allow_override; warn (stderr) about missing
    component folders."""
    settings = effective.settings
    _check_allow_override(effective)
    base_url = settings.llm.base_url
    if base_url is not None and not _is_http_url(base_url):
        raise SettingsError(
            f"{effective.source('llm.base_url')}: llm.base_url = {show_value(base_url)} is not allowed; "
            "it must be an http:// or https:// URL, or null for the SDK's default"
        )
    _check_memory_limit(effective)
    if settings.validation.rules:
        from osiris.settings.rules import compile_rules

        try:
            compile_rules(list(settings.validation.rules))
        except SettingsError as error:
            raise SettingsError(f"{effective.source('validation.rules')}: {error}") from None
    if effective.source("components.paths") != "default":
        for entry in settings.components.paths:
            if not effective.resolve_path(entry).is_dir():
                print(
                    f"osiris: warning: components.paths entry {entry!r} "
                    f"(from {effective.source('components.paths')}) is not a directory; it is skipped",
                    file=sys.stderr,
                )


def _check_memory_limit(effective: EffectiveSettings) -> None:
    """`run.memory_limit`: a whole number of MB or GB, at least MIN_MEMORY_MB (osiris.settings.resources)."""
    from osiris.settings.resources import MEMORY_LIMIT_EXAMPLE, MIN_MEMORY_MB, memory_limit_mb

    given = effective.settings.run.memory_limit
    if given is None:
        return
    size = memory_limit_mb(given)
    if size is None or size < MIN_MEMORY_MB:
        raise SettingsError(
            f"{effective.source('run.memory_limit')}: run.memory_limit = {show_value(given)} is not allowed; "
            f"it must be a whole number of MB or GB, at least {MIN_MEMORY_MB}MB, e.g. {MEMORY_LIMIT_EXAMPLE}, "
            "or null for a quarter of the machine's memory")


def _check_allow_override(effective: EffectiveSettings) -> None:
    """`connections.<family>.<alias>.allow_override` lists the fields steps may set (docs/security.md)."""
    for family, aliases in effective.settings.connections.items():
        for alias, fields in (aliases or {}).items():
            given = fields.get("allow_override") if isinstance(fields, dict) else None
            names = [given] if isinstance(given, str) else given
            if given is None or (isinstance(names, list) and all(isinstance(n, str) and n for n in names)):
                continue
            key = f"connections.{family}.{alias}.allow_override"
            source = next((where for name, where in effective.sources.items()
                           if name == key or name.startswith(key + ".")), effective.source(key))
            raise SettingsError(f"{source}: {key} = {show_value(given)} is not allowed; it must be "
                                "a list of the connection's field names that a step may set, e.g. [base_url]")


def show_value(value: object) -> str:
    """A value as the person wrote it: true, null, 'text', 5, [a list]; long ones shortened."""
    if isinstance(value, str):
        text = repr(value)
    else:
        text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_http_url(text: str) -> bool:
    try:
        parts = urlsplit(text)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)
