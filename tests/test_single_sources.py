"""One source of truth: the 0..5 bound of validation.retry.max_attempts lives in the settings model
(its field's ge/le metadata); the CLI's help, `/retry-attempts` and the engine read it from there."""

from __future__ import annotations

import argparse

import pytest

from osiris.commands.options import add_llm_options
from osiris.settings.allowed import MAX_ATTEMPTS, fields_of, int_bounds
from osiris.settings.model import RetrySettings


def test_the_bound_is_the_models() -> None:
    assert int_bounds(MAX_ATTEMPTS) == (0, 5)


def test_the_cli_help_follows_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    field = fields_of(RetrySettings)["max_attempts"]
    monkeypatch.setattr(field, "metadata", {"ge": 0, "le": 3, "strict": True})
    parser = argparse.ArgumentParser()
    add_llm_options(parser)
    assert "retries after the first generation, 0..3 (0 is strict mode)" in " ".join(parser.format_help().split())


def test_a_setting_without_both_bounds_is_a_programming_error() -> None:
    with pytest.raises(KeyError):
        int_bounds(["llm", "model"])
