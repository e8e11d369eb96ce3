"""Load the settings layers, merge them, and remember where every value came from."""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from osiris.errors import SettingsError
from osiris.oml.values import Config, MutableConfig, Value
from osiris.output_path import describe_os_error
from osiris.settings.check import check_settings, show_value
from osiris.settings.env import env_values
from osiris.settings.model import Settings
from osiris.settings.plain import build_plain

CONFIG_FILE_NAME = ".osiris.yaml"
API_KEY_NAMES = frozenset({"api_key", "apikey", "anthropic_api_key", "openai_api_key"})
DEFAULT_SOURCE = "default"
CLI_SOURCE = "cli"


@dataclass(frozen=True)
class Layer:
    """One source of settings: its name (as `config show` prints it) and its nested values."""

    source: str
    values: Config


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

    def items(self) -> Iterator[tuple[str, Value, str]]:
        """Every effective leaf value as (dotted key, value, source), in schema order."""
        for key, value in _flatten(_json_ready_mapping(dataclasses.asdict(self.settings))):
            yield key, value, self.source(key)

    def to_dict(self) -> dict[str, dict[str, object]]:
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
    cli: Config | None = None,
    config_path: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> EffectiveSettings:
    """Resolve defaults < settings file < OSIRIS_* env < `cli`; raise SettingsError with one line."""
    env = os.environ if env is None else env
    cwd = Path.cwd() if cwd is None else Path(cwd)
    path = _given_config_file(Path(config_path)) if config_path else find_config_file(cwd)
    layers = [Layer(DEFAULT_SOURCE, {})]
    if path is not None:
        layers.append(Layer(str(path), read_settings_file(path)))
    layers.extend(env_layers(env))
    if cli:
        layers.append(Layer(CLI_SOURCE, cli))
    for layer in layers:
        _refuse_api_key(layer)

    merged: MutableConfig = {}
    sources: dict[str, str] = {}
    for layer in layers:
        _deep_merge(merged, layer.values)
        for key, _ in _flatten(layer.values):
            sources[key] = layer.source
    _read_words_as_written(merged)
    settings = build_plain(Settings, merged)
    if settings is None:  # not plainly valid: pydantic coerces it, or explains what is wrong
        from osiris.settings.explain import validate_or_explain

        settings = validate_or_explain(merged, sources)
    root = path.resolve().parent if path is not None else cwd.resolve()
    effective = EffectiveSettings(settings, sources, root, path, env)
    check_settings(effective)
    return effective


def _refuse_api_key(layer: Layer) -> None:
    """An API key written into the settings (`llm.api_key`, `anthropic_api_key`, ...) is refused with
    where it goes instead: it comes only from ANTHROPIC_API_KEY (OPENAI_API_KEY) or the keyring (ADR 0003)."""
    llm = layer.values.get("llm")
    keys = [str(k) for k in layer.values] + ([f"llm.{k}" for k in llm] if isinstance(llm, Mapping) else [])
    for key in keys:
        name = key.rsplit(".", 1)[-1].lower().replace("-", "_")
        if name in API_KEY_NAMES:
            where = "OSIRIS_* variables" if layer.source.startswith("env ") else CONFIG_FILE_NAME
            instead = ("OPENAI_API_KEY or `osiris auth login --provider openai`" if name == "openai_api_key"
                       else "ANTHROPIC_API_KEY or `osiris auth login`")
            raise SettingsError(f"{layer.source}: {key}: the API key never goes in {where}; use {instead}")


def _given_config_file(path: Path) -> Path:
    """`--config PATH` must name a settings file."""
    if path.is_dir():
        raise SettingsError(f"--config {path}: is a directory, not a settings file")
    if not path.exists():
        raise SettingsError(f"--config {path}: settings file not found")
    return path


def find_config_file(start: Path) -> Path | None:
    """The nearest `.osiris.yaml` in `start` or one of its parents."""
    for directory in (start, *start.resolve().parents):
        candidate = directory / CONFIG_FILE_NAME
        if candidate.is_file():
            return candidate
        if candidate.is_dir():
            raise SettingsError(f"{candidate}: is a directory, not a settings file; "
                                "remove it, or pass --config FILE")
    return None


def read_settings_file(path: Path) -> MutableConfig:
    """Parse a settings file; any problem is one line naming the file (and line, for YAML errors).

    Read like a pipeline (osiris.extract): a key given twice is an error, as OML104 is."""
    from osiris.extract.load import load_document

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SettingsError(f"{path}: settings file not found") from None
    except IsADirectoryError:
        raise SettingsError(f"{path}: is a directory, not a settings file") from None
    except UnicodeDecodeError:
        raise SettingsError(f"{path}: the settings file is not UTF-8 text") from None
    except OSError as error:
        raise SettingsError(f"{path}: cannot read the settings file: {describe_os_error(error)}") from None
    loaded = load_document(text)
    if loaded.problems:
        problem = loaded.problems[0]
        where = f":{problem.position.line}:{problem.position.column}" if problem.position else ""
        raise SettingsError(f"{path}{where}: invalid YAML: {problem.message}")
    if loaded.value is None:
        return {}
    if not isinstance(loaded.value, dict):
        raise SettingsError(f"{path}: expected a mapping of settings, got {_kind(loaded.value)}")
    return loaded.value


def env_layers(env: Mapping[str, str]) -> list[Layer]:
    """OSIRIS_* variables, one layer each: the nested ones (OSIRIS_LLM__MODEL), then the flat retry alias."""
    return [Layer(f"env {name}", _nest(key, value)) for name, key, value in env_values(env)]


def _nest(key: str, value: Value) -> MutableConfig:
    nested: MutableConfig = {}
    cursor = nested
    *parents, leaf = key.split(".")
    for part in parents:
        inner: MutableConfig = {}
        cursor[part] = inner  # each level is new, so no key is there yet
        cursor = inner
    cursor[leaf] = value
    return nested


def _flatten(values: Config, prefix: str = "") -> Iterator[tuple[str, Value]]:
    for key, value in values.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            yield from _flatten(value, f"{dotted}.")
        else:
            yield dotted, value


def _deep_merge(target: MutableConfig, overlay: Config) -> None:
    for key, value in overlay.items():
        existing = target.get(key)
        if isinstance(value, Mapping) and isinstance(existing, dict):
            _deep_merge(existing, value)
        else:
            target[key] = dict(value) if isinstance(value, Mapping) else value


def _kind(value: object) -> str:
    return "a list" if isinstance(value, list) else f"a single value ({show_value(value)})"


def _read_words_as_written(merged: MutableConfig) -> None:
    """YAML 1.1 reads a bare `off` as false (and `on` as true): take validation.dry_run as the word
    written (`on` means sample)."""
    validation = merged.get("validation")
    if isinstance(validation, dict) and isinstance(validation.get("dry_run"), bool):
        validation["dry_run"] = "sample" if validation["dry_run"] else "off"


def json_ready(value: Value) -> Value:
    """Settings values as strict JSON has them: NaN and infinities (which JSON in an OSIRIS_*
    variable may hold) as null. Settings files hold no dates or bytes: Osiris's YAML reader keeps
    timestamps and tagged values as the text written."""
    if isinstance(value, dict):
        return _json_ready_mapping(value)
    if isinstance(value, list):
        return [json_ready(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _json_ready_mapping(values: Config) -> MutableConfig:
    """A mapping of settings values, as `json_ready` has them."""
    return {str(key): json_ready(item) for key, item in values.items()}
