"""The events of events.jsonl are defined once (osiris/session/events.py); the table in
docs/sessions.md lists the same types with the same fields, in the same order."""

from __future__ import annotations

import re
from pathlib import Path

from osiris.session.events import EVENTS, OMITTED, HitlResponse, StepFailed

DOC = Path(__file__).resolve().parent.parent / "docs" / "sessions.md"
ROW = re.compile(r"^\| `(?P<type>[a-z_]+)` \| (?P<fields>.*) \|$")


def documented() -> dict[str, list[str]]:
    """event type -> the field names its row lists (the words before any parenthesis or dash)."""
    rows: dict[str, list[str]] = {}
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index("| event_type | extra fields |") + 2
    end = lines.index("", start)
    for line in lines[start:end]:
        match = ROW.match(line)
        assert match, f"not an event row: {line}"
        text = re.split(r" — |: ", re.sub(r"\([^()]*(\([^()]*\)[^()]*)*\)", "", match["fields"]))[0]
        text = re.sub(r"\{[^}]*\}|\[[^]]*\]", "", text)
        rows[match["type"]] = [word.strip() for word in text.split(",") if word.strip()]
    return rows


def test_every_event_is_documented_and_every_documented_event_exists() -> None:
    assert sorted(documented()) == sorted(EVENTS)


def test_each_row_lists_the_fields_of_its_dataclass_in_order() -> None:
    rows = documented()
    for event_type, cls in EVENTS.items():
        assert rows[event_type] == cls.field_names(), event_type


def test_an_omitted_field_is_left_out_and_a_null_one_is_written() -> None:
    assert HitlResponse(action="hint").to_fields() == {"action": "hint"}
    assert StepFailed(step_id="s", code=None, message="interrupted (Ctrl-C)", duration_ms=1.0).to_fields() == {
        "step_id": "s", "code": None, "message": "interrupted (Ctrl-C)", "duration_ms": 1.0}
    assert StepFailed(step_id="s", code="OML502", message="m", hint=None, duration_ms=2.0).to_fields()["hint"] is None
    assert repr(OMITTED) == "OMITTED"


def test_api_error_writes_its_class_under_the_name_class() -> None:
    assert EVENTS["api_error"].field_names()[4] == "class"
