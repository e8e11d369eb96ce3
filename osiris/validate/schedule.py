"""`schedule`: a 5-field cron expression, "minute hour day-of-month month day-of-week" (OML213)."""

from __future__ import annotations

import re

from osiris.validate.findings import Findings

# (name, lowest, highest) of each field, in order.
FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12), ("day of week", 0, 7))
_NAMES = {3: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
          4: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]}
_PART = re.compile(r"^(\*|(?P<low>\w+)(-(?P<high>\w+))?)(/(?P<step>\d+))?$")
_MACROS = {"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
           "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *"}
FIVE_FIELDS = ("the five fields, separated by spaces, are minute (0-59) hour (0-23) day-of-month (1-31) "
               "month (1-12) day-of-week (0-7, 0 and 7 are Sunday)")
EXAMPLES = ('"0 * * * *" runs every hour at minute 0, "*/15 * * * *" every 15 minutes, '
            '"0 2 * * *" every day at 02:00, "30 6 * * 1" every Monday at 06:30')
_EVERY = re.compile(r"^(?:every|each)\s+(?:(\d+)\s+)?(minute|hour|day|week|month)s?$")
# "every N minutes/hours" as a step: exact only when N divides the hour or the day.
_EVERY_FORM = {"minute": ("*/{n} * * * *", 60), "hour": ("0 */{n} * * *", 24)}
_WORDS = {"hourly": "0 * * * *", "daily": "0 0 * * *", "nightly": "0 0 * * *", "weekly": "0 0 * * 0",
          "monthly": "0 0 1 * *", "every minute": "* * * * *", "every hour": "0 * * * *",
          "every day": "0 0 * * *", "every week": "0 0 * * 0", "every month": "0 0 1 * *"}


def check_schedule(schedule: object, findings: Findings) -> None:
    """Add OML213 when `schedule` is not a valid 5-field cron expression; the hint keeps the
    schedule's timing when it can be read (a macro, a word, a seconds or year field), never a guess."""
    problem = cron_problem(schedule)
    if problem:
        meant = intended_schedule(schedule)
        hint = (f'write schedule: "{meant[0]}" ({meant[1]}); {FIVE_FIELDS}' if meant
                else f"write schedule with the timing the request asked for: {FIVE_FIELDS}; e.g. {EXAMPLES}")
        findings.add("OML213", "/schedule", f"schedule {problem}", hint,
                     value=schedule if isinstance(schedule, (str, int, float)) else None)


def intended_schedule(schedule: object) -> tuple[str, str] | None:
    """(the 5-field expression, why) that runs when `schedule` evidently meant to; None if unclear."""
    if not isinstance(schedule, str):
        return None
    text = " ".join(schedule.split())
    lowered = text.lower()
    if lowered in _MACROS:
        return _MACROS[lowered], f"the 5-field form of {text}"
    if lowered in _WORDS:
        return _WORDS[lowered], f"'{text}' as cron"
    every = _EVERY.match(lowered)
    if every and every.group(1) and every.group(2) in _EVERY_FORM:
        form, whole = _EVERY_FORM[every.group(2)]
        count = int(every.group(1))
        return (form.format(n=count), f"'{text}' as cron") if 0 < count < whole and whole % count == 0 else None
    fields = text.split()
    marked = {position for position, field in enumerate(fields) if field == "?"}
    if len(fields) == 6 and marked and marked <= {2, 4} and _year(fields[5]):  # AWS: min hour dom month dow year
        kept, why = fields[:5], "the same times without the year field, which 5-field cron does not have"
    elif len(fields) == 6 and _seconds(fields[0]):  # Quartz, Spring: sec min hour dom month dow
        kept, why = fields[1:], "the same times without the seconds field, which 5-field cron does not have"
    elif len(fields) == 7 and _seconds(fields[0]) and _year(fields[6]):
        kept, why = fields[1:6], "the same times without the seconds and year fields, which 5-field cron does not have"
    elif len(fields) == 5 and marked:
        kept, why = fields, "'?' is written '*' in 5-field cron"
    else:
        return None
    written = " ".join("*" if field == "?" else field for field in kept)
    return (written, why) if cron_problem(written) is None else None


def _year(field: str) -> bool:
    return field == "*"  # every year: leaving it out keeps the times; a given year would not


def _seconds(field: str) -> bool:
    return field.isdigit() and int(field) <= 59  # once a minute: leaving it out keeps the times


def cron_problem(schedule: object) -> str | None:
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
