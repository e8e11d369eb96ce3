"""A seeded fuzz of the session writers (issue 9): hostile text and numbers never crash a write,
and every file stays valid UTF-8 and strict JSON. Bounded: 2,000 inputs, a fixed seed."""

from __future__ import annotations

import json
import random

from osiris.secrets.redact import Redactor
from osiris.session import Session
from osiris.session.reader import find_session, read_events

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
