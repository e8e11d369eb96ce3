"""One source of truth: the 0..5 bound of validation.retry.max_attempts lives in the settings model
(its Field's ge/le); the CLI's help, `/retry-attempts` and the engine read it from there."""

from __future__ import annotations

import argparse

import annotated_types
import pytest

from osiris.commands.options import add_llm_options
from osiris.settings.allowed import MAX_ATTEMPTS, int_bounds
from osiris.settings.model import RetrySettings


def test_the_bound_is_the_models() -> None:
    assert int_bounds(MAX_ATTEMPTS) == (0, 5)


def test_the_cli_help_follows_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    field = RetrySettings.model_fields["max_attempts"]
    monkeypatch.setattr(field, "metadata", [annotated_types.Ge(0), annotated_types.Le(3)])
    parser = argparse.ArgumentParser()
    add_llm_options(parser)
    assert "retries after the first generation, 0..3 (0 is strict mode)" in " ".join(parser.format_help().split())


def test_a_setting_without_both_bounds_is_a_programming_error() -> None:
    with pytest.raises(KeyError):
        int_bounds(["llm", "model"])
