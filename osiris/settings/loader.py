"""Load the settings layers, merge them, and remember where every value came from."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from osiris.errors import SettingsError
from osiris.secrets.names import MASK, is_secret_key
from osiris.settings.model import Settings
from osiris.suggest import closest

CONFIG_FILE_NAME = ".osiris.yaml"
RETRY_ATTEMPTS_ENV = "OSIRIS_VALIDATE_RETRY_ATTEMPTS"
DEFAULT_SOURCE = "default"
CLI_SOURCE = "cli"


@dataclass(frozen=True)
class Layer:
    """One source of settings: its name (as `config show` prints it) and its nested values."""

    source: str
    values: dict[str, Any]


@dataclass
class EffectiveSettings:
    """The merged settings, the source of each value, and where the project lives."""

    settings: Settings
    sources: dict[str, str]
    project_root: Path
    config_path: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict, repr=False)

    def source(self, key: str) -> str:
        """Where `key` (a dotted path such as `llm.model`) got its value."""
        return self.sources.get(key, DEFAULT_SOURCE)

    def items(self) -> Iterator[tuple[str, Any, str]]:
        """Every effective leaf value as (dotted key, value, source), in schema order."""
        for key, value in _flatten(self.settings.model_dump(mode="json")):
            yield key, value, self.source(key)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """`{"llm.model": {"value": ..., "source": ...}, ...}` with secrets masked: what
        `config show --json` prints and `session.json` keeps. `${ENV}` references stay readable."""
        from osiris.secrets.redact import Redactor

        redactor = Redactor()
        return {
            key: {"value": redactor.data(value, key=key.rsplit(".", 1)[-1]), "source": source}
            for key, value, source in self.items()
        }

    def resolve_path(self, path: str | os.PathLike[str]) -> Path:
        """A path from the settings, relative to the project root unless absolute."""
        candidate = Path(path).expanduser()
        return candidate if candidate.is_absolute() else self.project_root / candidate


def load_settings(
    cli: dict[str, Any] | None = None,
    config_path: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> EffectiveSettings:
    """Resolve defaults < settings file < OSIRIS_* env < `cli`; raise SettingsError with one line."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else Path(cwd)
    path = Path(config_path) if config_path else find_config_file(cwd)
    layers = [Layer(DEFAULT_SOURCE, {})]
    if path is not None:
        layers.append(Layer(str(path), read_settings_file(path)))
    layers.extend(env_layers(env))
    if cli:
        layers.append(Layer(CLI_SOURCE, cli))

    merged: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for layer in layers:
        _deep_merge(merged, layer.values)
        for key, _ in _flatten(layer.values):
            sources[key] = layer.source
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as error:
        raise SettingsError(_describe_first_error(error, sources)) from None
    root = path.resolve().parent if path is not None else cwd.resolve()
    return EffectiveSettings(settings, sources, root, path, env)


def find_config_file(start: Path) -> Path | None:
    """The nearest `.osiris.yaml` in `start` or one of its parents."""
    for directory in (start, *start.resolve().parents):
        candidate = directory / CONFIG_FILE_NAME
        if candidate.is_file():
            return candidate
    return None


def read_settings_file(path: Path) -> dict[str, Any]:
    """Parse a settings file; any problem is one line naming the file (and line, for YAML errors)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SettingsError(f"{path}: settings file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SettingsError(f"{path}: cannot read settings file: {error}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise SettingsError(f"{path}{where}: invalid YAML: {error.problem or error.context}") from None
    except yaml.YAMLError as error:
        raise SettingsError(f"{path}: invalid YAML: {error}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: expected a mapping of settings, got {type(data).__name__}")
    return data


def env_layers(env: Mapping[str, str]) -> list[Layer]:
    """OSIRIS_* variables: the nested ones (OSIRIS_LLM__MODEL), then the flat retry alias."""
    values: dict[str, Any] = {}
    if any(name.upper().startswith("OSIRIS_") and "__" in name for name in env):
        from pydantic_settings import (
            EnvSettingsSource,  # 230 ms to import: only when needed
        )

        nested = EnvSettingsSource(
            Settings, env_prefix="OSIRIS_", env_nested_delimiter="__", case_sensitive=False
        )
        nested.env_vars = {k.lower(): v for k, v in env.items()}  # this mapping, not os.environ
        values = nested()
    layers = [
        Layer(f"env {_env_name(key, env)}", _nest(key, value)) for key, value in _flatten(values)
    ]
    if RETRY_ATTEMPTS_ENV in env:
        attempts = env[RETRY_ATTEMPTS_ENV]
        layers.append(
            Layer(f"env {RETRY_ATTEMPTS_ENV}", {"validation": {"retry": {"max_attempts": attempts}}})
        )
    return layers


def _env_name(key: str, env: Mapping[str, str]) -> str:
    """The variable that set `key`: OSIRIS_A__B__C, or the nearest parent holding JSON."""
    parts = key.split(".")
    for end in range(len(parts), 0, -1):
        name = "OSIRIS_" + "__".join(parts[:end]).upper()
        if any(existing.upper() == name for existing in env):
            return name
    return "OSIRIS_" + "__".join(parts).upper()


def _nest(key: str, value: Any) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    cursor = nested
    *parents, leaf = key.split(".")
    for part in parents:
        cursor = cursor.setdefault(part, {})
    cursor[leaf] = value
    return nested


def _flatten(values: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in values.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            yield from _flatten(value, f"{dotted}.")
        else:
            yield dotted, value


def _deep_merge(target: dict[str, Any], overlay: Mapping[str, Any]) -> None:
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            _deep_merge(target[key], value)
        else:
            target[key] = dict(value) if isinstance(value, Mapping) else value


def _describe_first_error(error: ValidationError, sources: dict[str, str]) -> str:
    """One line: source, key, bad value and what is allowed (or the closest known key)."""
    from osiris.settings.allowed import (  # only on errors
        describe_allowed,
        known_keys_at,
    )

    problems = error.errors()
    first = problems[0]
    loc = [str(part) for part in first["loc"] if not str(part).isdigit()]
    key = ".".join(str(part) for part in first["loc"])
    source = _source_of(key, sources)
    more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    if first["type"] == "extra_forbidden":
        known = known_keys_at(loc[:-1])
        close = closest(loc[-1], known)
        suggestion = f"; did you mean '{'.'.join([*loc[:-1], close])}'?" if close else ""
        choices = f"; known keys here: {', '.join(known)}" if not close and known else ""
        return f"{source}: unknown key '{key}'{suggestion}{choices}{more}"
    value = MASK if any(is_secret_key(part) for part in loc) else first.get("input")
    allowed = describe_allowed(loc) or first["msg"]
    return f"{source}: {key} = {value!r} is not allowed; it must be {allowed}{more}"


def _source_of(key: str, sources: dict[str, str]) -> str:
    if key in sources:
        return sources[key]
    for known, source in sources.items():
        if known.startswith(key + ".") or key.startswith(known + "."):
            return source
    return DEFAULT_SOURCE
