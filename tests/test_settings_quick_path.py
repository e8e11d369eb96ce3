"""The settings' quick path (osiris.settings.plain, ADR 0126) never disagrees with pydantic.

Whatever it builds, pydantic builds the same from the same values, types included (60 is 60.0 in
a number setting); whatever pydantic refuses, it refuses. It must also really be taken for the
settings people write, or the saving silently disappears.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from osiris.settings.allowed import fields_of, is_section
from osiris.settings.model import Rule, Settings
from osiris.settings.plain import build_plain

ADAPTER = TypeAdapter(Settings)

# Values that sit on every edge the schema has: types, bounds, YAML's booleans, text that looks
# like a number, huge and non-finite numbers, and the words of the Literal settings.
EDGES: list[Any] = [
    None, True, False, 0, 1, -1, 2, 5, 6, 10, 499, 500, 3600, 3601, 100_000, 100_001, 10**20, 10**400,
    0.0, 0.5, 60.0, -0.5, 3600.0, 3600.5, math.nan, math.inf, -math.inf,
    "", "x", "3", "60", "off", "ask", "sample", "on", "anthropic", "demo", "error", "warning", "https://h",
    [], ["components"], ["a", 1], [None], {}, {"k": "v"}, {"name": "r", "expr": "true"},
    [{"name": "r", "expr": "true"}], [{"name": "r"}], [{"name": "r", "expr": "x", "level": "fatal"}],
    {"mysql": {"default": {"host": "db", "port": 3306}}}, {"mysql": {"default": "db"}}, {"mysql": []},
]


def section_values(section: type[Any], depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """Dicts of some of a section's keys (and now and then an unknown one) with edge values, or
    nested sections built the same way."""
    entries = {}
    for name, setting in fields_of(section).items():
        # mostly a valid value (its default), so that one edge at a time decides the verdict
        valid = st.just(_default(setting))
        value: st.SearchStrategy[Any] = st.one_of(valid, valid, valid, st.sampled_from(EDGES))
        if is_section(setting.type) and depth < 2:
            value = st.one_of(section_values(setting.type, depth + 1), value)
        entries[name] = value
    keys = st.lists(st.sampled_from([*entries, "unknown_key"]), unique=True, max_size=len(entries))
    return keys.flatmap(lambda chosen: st.fixed_dictionaries(
        {key: entries.get(key, st.sampled_from(EDGES)) for key in chosen}))


def _default(setting: dataclasses.Field[Any]) -> Any:
    if setting.default is not dataclasses.MISSING:
        return setting.default
    if setting.default_factory is not dataclasses.MISSING:
        made = setting.default_factory()
        return dataclasses.asdict(made) if dataclasses.is_dataclass(made) else made
    return "required-text"


def pydantic_verdict(values: dict[str, Any]) -> Settings | None:
    try:
        return ADAPTER.validate_python(values)
    except ValidationError:
        return None


@settings(max_examples=1000, deadline=None)
@given(section_values(Settings))
def test_whatever_the_quick_path_builds_pydantic_builds_the_same(values: dict[str, Any]) -> None:
    built = build_plain(Settings, values)
    if built is not None:
        expected = pydantic_verdict(values)
        assert expected is not None, f"pydantic refuses what the quick path accepted: {values!r}"
        assert repr(built) == repr(expected)


def leaf_paths(section: type[Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every setting's path, through sections (validation.retry.max_attempts ...)."""
    paths = []
    for name, setting in fields_of(section).items():
        if is_section(setting.type):
            paths.extend(leaf_paths(setting.type, (*prefix, name)))
        else:
            paths.append((*prefix, name))
    return paths


def one_edge(path: tuple[str, ...], edge: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    cursor = values
    for part in path[:-1]:
        cursor = cursor.setdefault(part, {})
    cursor[path[-1]] = edge
    return values


RULE = {"name": "r", "expr": "true"}
RULE_KEYS = [*fields_of(Rule), "unknown_key"]
SINGLE_EDGES = [one_edge(path, edge) for path in leaf_paths(Settings) for edge in EDGES]
SINGLE_EDGES += [{"validation": {"rules": [{**RULE, key: edge}]}} for key in RULE_KEYS for edge in EDGES]


def test_each_setting_at_each_edge_gets_the_same_verdict() -> None:
    """Every setting alone at every edge value: the quick path builds what pydantic builds, or
    leaves the values to pydantic; never accepts what pydantic refuses."""
    for values in SINGLE_EDGES:
        built = build_plain(Settings, values)
        expected = pydantic_verdict(values)
        if built is not None:
            assert expected is not None, f"pydantic refuses what the quick path accepted: {values!r}"
            assert repr(built) == repr(expected), values


@pytest.mark.parametrize("values", [
    {"validation": {"retry": {"max_attempts": True}}},  # YAML's yes is not 1
    {"validation": {"retry": {"max_attempts": 6}}},
    {"llm": {"timeout_seconds": 0}},
    {"llm": {"timeout_seconds": math.inf}},
    {"llm": {"model": ""}},
    {"llm": {"provider": "gemini"}},  # openai became a provider (ADR 0190)
    {"llm": {"modle": "x"}},
    {"validation": {"rules": [{"name": "r"}]}},  # expr is required
    {"connections": {"mysql": {"default": "db"}}},
    {"components": {"paths": "components"}},
])
def test_what_pydantic_refuses_the_quick_path_refuses(values: dict[str, Any]) -> None:
    assert pydantic_verdict(values) is None
    assert build_plain(Settings, values) is None


def test_the_settings_people_write_take_the_quick_path() -> None:
    written = {
        "llm": {"provider": "anthropic", "model": "claude-sonnet-5-5", "timeout_seconds": 30,
                "max_session_tokens": 200_000, "base_url": None},
        "validation": {"dry_run": "off", "sample_rows": 20, "retry": {"max_attempts": 3},
                       "rules": [{"name": "csv-only", "expr": "true", "level": "warning"}]},
        "sessions": {"dir": ".osiris/sessions", "save_failed_oml": False},
        "components": {"paths": ["components", "more"]},
        "catalog": {"max_age_days": 14},
        "connections": {"mysql": {"default": {"host": "db", "port": 3306, "password": "${MYSQL_PASSWORD}"}}},
    }
    built = build_plain(Settings, written)
    assert built is not None
    assert repr(built) == repr(ADAPTER.validate_python(written))
    assert built.llm.timeout_seconds == 30.0 and isinstance(built.llm.timeout_seconds, float)
    assert dataclasses.asdict(build_plain(Settings, {}) or Settings()) == dataclasses.asdict(Settings())
