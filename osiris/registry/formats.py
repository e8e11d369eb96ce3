"""`format` checks for config schemas. jsonschema skips `uri` without extra packages; we do it here."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jsonschema import FormatChecker

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+[^\s]*$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@lru_cache(maxsize=1)
def format_checker() -> FormatChecker:
    from jsonschema import FormatChecker

    checker = FormatChecker()
    checker.checks("uri")(_matches(_URI))
    checker.checks("url")(_matches(_URI))
    checker.checks("email")(_matches(_EMAIL))
    return checker


def _matches(pattern: re.Pattern[str]) -> Callable[[object], bool]:
    def check(value: object) -> bool:
        return not isinstance(value, str) or bool(pattern.match(value))

    return check
