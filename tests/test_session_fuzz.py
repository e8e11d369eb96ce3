"""A seeded fuzz of the session writers (issue 9): hostile text and numbers never crash a write,
and every file stays valid UTF-8 and strict JSON. Bounded: 2,000 short inputs, a fixed seed; then
LLM-sized hostile answers with planted secrets through the redactor and the writers, at most 300
inputs or 40 seconds (bench/fuzz.py drives the same checks 100,000 deep)."""

from __future__ import annotations

import itertools
import json
import random
import time

from osiris.secrets.redact import Redactor
from osiris.session import Session
from osiris.session.reader import find_session, read_events
from tests.fuzz_inputs import (
    KNOWN_NUMBER,
    KNOWN_SECRET,
    answers,
    check_redactor,
    check_writers,
    fuzz_redactor,
    fuzz_validator,
    planted,
)

SEED = 20261122
INPUTS = 2000
PIECES = ["\ud800", "\udfff", "\udc80", "\x00", "\n", "\r\n", "\u2028", "😀", "```", "</previous_pipeline>",
          "\\", '"', "password: hunter2", "é", "\t", " ", "a", "{", "]", "\x1b[31m", "\ufeff"]
NUMBERS = [float("nan"), float("inf"), float("-inf"), 1e308, -0.0, 10**40, 0, True, None]


def hostile_text(rng: random.Random, pieces: list[str] = PIECES) -> str:
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))


KEY_PIECES = [piece for piece in PIECES if "hunter2" not in piece]  # secrets in keys: the redactor's business


def hostile_value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if roll < 0.4 or depth > 3:
        return hostile_text(rng)
    if roll < 0.7:
        return rng.choice(NUMBERS)
    if roll < 0.85:
        return [hostile_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {hostile_text(rng, KEY_PIECES) or "k": hostile_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}


def strict(text: str):
    return json.loads(text, parse_constant=lambda constant: (_ for _ in ()).throw(ValueError(constant)))


ANSWER_SEED = 9
ANSWERS = 300
BUDGET_SECONDS = 40.0


def test_hostile_llm_answers_with_planted_secrets_leave_none_in_the_redactor_or_the_session(tmp_path):
    """Mutated answers (tests/fuzz_inputs.py: tags, numbers, surrogates, deep nesting, fences,
    alias bombs, up to 512,000 characters), each with a known secret planted at a random place, a
    password in one of ten shapes and the known numeric password as a plain number; the pipeline
    the validator reads from it goes through `Redactor.data` and the writers as generate writes it."""
    rng = random.Random(ANSWER_SEED)
    redactor, validator = fuzz_redactor(), fuzz_validator()
    session = Session.create(tmp_path / "sessions", provider="demo", model="demo", redactor=redactor)
    deadline = time.monotonic() + BUDGET_SECONDS
    tried = 0
    for number, (answer, truncated) in enumerate(itertools.islice(answers(ANSWER_SEED), ANSWERS)):
        if time.monotonic() > deadline:
            break
        text, secrets = planted(rng, answer)
        pipeline = validator.validate(text, truncated=truncated).pipeline
        try:
            check_redactor(redactor, text, pipeline, secrets)
            check_writers(session, number, text, pipeline, secrets)
        except Exception as error:
            raise AssertionError(f"answer {number} of seed {ANSWER_SEED} failed: {text[:300]!r}") from error
        tried += 1
    session.finish("valid")

    assert tried >= 50, f"only {tried} answers in {BUDGET_SECONDS:g} s"
    for path in (p for p in session.path.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8")
        assert KNOWN_SECRET not in text and str(KNOWN_NUMBER) not in text, path


def test_hostile_inputs_never_crash_a_session_writer_and_every_file_stays_strict(tmp_path):
    rng = random.Random(SEED)
    session = Session.create(tmp_path / "sessions", provider="demo", model="demo",
                             redactor=Redactor(known_values=["hunter2"]))
    for index in range(INPUTS):
        value = hostile_value(rng)
        session.write_event("fuzz", dict(index=index, value=value))
        session.append_conversation("assistant", hostile_text(rng), extra=value)
        if index % 50 == 0:
            session.write_text(f"artifacts/cycle-1/attempt-{index}/answer.txt", hostile_text(rng))
            session.write_json(f"artifacts/cycle-1/attempt-{index}/errors.json", {"v": value})
    session.finish("valid")

    events = [strict(line) for line in (session.path / "events.jsonl").read_text("utf-8").splitlines()]
    turns = [strict(line) for line in (session.path / "conversation.jsonl").read_text("utf-8").splitlines()]
    assert read_events(find_session(session.path.parent, session.id)) == events
    assert [e["seq"] for e in events] == list(range(1, INPUTS + 3))
    assert [e["index"] for e in events if e["event_type"] == "fuzz"] == list(range(INPUTS))
    assert len(turns) == INPUTS
    for path in session.path.rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8")  # valid UTF-8, or this raises
            assert "hunter2" not in text, path
            if path.suffix == ".json":
                strict(text)
