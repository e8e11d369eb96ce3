"""Fuzzing (issue 9): thousands of mutated and hostile answers through extraction and validation.

The inputs are seeded (tests/fuzz_inputs.py), so a failure names an input that fails again. Each
answer goes through `Validator.validate`, which cuts the YAML out of the answer and parses it
(osiris.extract), then every tier; the report must render and serialise as strict JSON
(`allow_nan=False`, as the session writers do). bench/fuzz.py runs the same stream 100,000 deep.
"""

from __future__ import annotations

import itertools

from tests.fuzz_inputs import answers, check, fuzz_validator

SEED = 9
INPUTS = 2_000  # about 10 s on the development machine; bench/fuzz.py runs 100,000


def test_thousands_of_hostile_answers_never_raise_and_stay_strict_json():
    validator = fuzz_validator()
    for number, (text, truncated) in enumerate(itertools.islice(answers(SEED), INPUTS)):
        try:
            check(validator.validate(text, truncated=truncated))
        except Exception as error:
            raise AssertionError(f"input {number} of seed {SEED} failed: {text[:300]!r}") from error
