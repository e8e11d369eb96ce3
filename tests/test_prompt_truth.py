"""Issue 8: a system prompt and a retry prompt a model need not guess at."""

from __future__ import annotations

from osiris.explain import compact
from osiris.prompt import build_retry_prompt, build_system_prompt
from osiris.prompt.catalog import type_of
from tests.engine_samples import fenced
from tests.validate_helpers import registry, validator


def stable() -> str:
    return build_system_prompt(registry(), {}).stable


def line_of(name: str) -> str:
    return next(line for line in stable().splitlines() if line.startswith(f"- {name} ["))


def test_every_field_shows_its_type():
    assert "primary_key string|list of string" in line_of("supabase.writer")
    assert "event_types list of string" in line_of("posthog.extractor")
    for spec in registry().components.values():
        for name, prop in spec.properties.items():
            if f" {name} " in line_of(spec.name) or f": {name} " in line_of(spec.name):
                assert type_of(prop) != "any", (spec.name, name)


def test_overridable_connection_fields_are_listed_as_optional():
    rest = line_of("rest.extractor")

    assert "base_url string (conn)" in rest and "base_url*" not in rest
    assert "auth_token" not in rest.split("(supplies")[1].split(")", 1)[1]  # forbidden: never offered


def test_schedule_transform_inputs_and_unsupported_systems_are_defined():
    prompt = stable()

    assert 'schedule is a quoted 5-field cron expression: minute hour day-of-month month day-of-week' in prompt
    assert "df_<that step's id with every character other than a-z, A-Z, 0-9 replaced by _>" in prompt
    assert "input_df names it too" in prompt
    assert "do not substitute\n  another system: say in one sentence that it is not supported" in prompt
    guidance = stable().split(line_of("duckdb.processor"), 1)[1].splitlines()[1]
    assert "df_<its id with every non-alphanumeric character as _>" in guidance


def test_the_assumption_sentence_and_the_retry_wording_agree():
    prompt = build_system_prompt(registry(), {}).dynamic  # after the cache breakpoint since issue 14
    report = validator().validate(fenced('oml_version: "0.1.0"\nname: x\nsteps: []\n'))
    retry = build_retry_prompt(report.errors, report.oml_text, [], compact)

    assert "That sentence is for a first answer only: when asked to fix errors, answer with\nthe block alone." in prompt
    assert retry.endswith("Answer with the complete corrected pipeline in one ```yaml block and no other "
                          "text (the one-sentence assumption belongs to a first answer, not to a fix).")
