"""`schedule`: a 5-field cron expression, "minute hour day-of-month month day-of-week" (OML213)."""

from __future__ import annotations

import re
from typing import Any

from osiris.validate.findings import Findings

# (name, lowest, highest) of each field, in order.
FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12), ("day of week", 0, 7))
_NAMES = {3: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
          4: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]}
_PART = re.compile(r"^(\*|(?P<low>\w+)(-(?P<high>\w+))?)(/(?P<step>\d+))?$")
_MACROS = {"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
           "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *"}
EXAMPLE = '"0 2 * * *" (every day at 02:00)'


def check_schedule(schedule: Any, findings: Findings) -> None:
    """Add OML213 when `schedule` is not a valid 5-field cron expression."""
    problem = cron_problem(schedule)
    if problem:
        macro = _MACROS.get(schedule.strip().lower()) if isinstance(schedule, str) else None
        hint = (f'write schedule: "{macro}" (the 5-field form of {schedule.strip()})' if macro
                else f"write schedule as minute hour day-of-month month day-of-week, e.g. schedule: {EXAMPLE}")
        findings.add("OML213", "/schedule", f"schedule {problem}", hint,
                     value=schedule if isinstance(schedule, (str, int, float)) else None)


def cron_problem(schedule: Any) -> str | None:
    """What is wrong with `schedule` as a 5-field cron expression, or None."""
    if not isinstance(schedule, str):
        return "must be a cron expression in quotes, not a " + ("mapping" if isinstance(schedule, dict) else
                                                                  "list" if isinstance(schedule, list) else "number")
    fields = schedule.split()
    if len(fields) != 5:
        return f"'{schedule}' has {len(fields)} fields; a cron expression has 5"
    for position, (text, (name, low, high)) in enumerate(zip(fields, FIELDS)):
        for part in text.split(","):
            if not _part_ok(part, position, low, high):
                return f"'{schedule}': the {name} field '{text}' is not valid (allowed: {low}-{high}, *, ranges a-b, steps /n, lists a,b)"
    return None


def _part_ok(part: str, position: int, low: int, high: int) -> bool:
    match = _PART.match(part)
    if not match:
        return False
    if match.group("step") is not None and int(match.group("step")) == 0:
        return False
    bounds = [match.group("low"), match.group("high")]
    numbers = [_number(b, position) for b in bounds if b is not None]
    values = [v for v in numbers if v is not None]
    if len(values) < len(numbers) or any(not low <= v <= high for v in values):
        return False
    return len(values) < 2 or values[0] <= values[1]


def _number(text: str, position: int) -> int | None:
    if text.isdigit():
        return int(text)
    names = _NAMES.get(position, [])
    if text.upper() in names:
        return names.index(text.upper()) + (1 if position == 3 else 0)
    return None
