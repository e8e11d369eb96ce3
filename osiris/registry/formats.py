"""`format` checks for config schemas. jsonschema skips `uri` without extra packages; we do it here."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+[^\s]*$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@lru_cache(maxsize=1)
def format_checker() -> Any:
    from jsonschema import FormatChecker

    checker = FormatChecker()
    checker.checks("uri")(_matches(_URI))
    checker.checks("url")(_matches(_URI))
    checker.checks("email")(_matches(_EMAIL))
    return checker


def _matches(pattern: re.Pattern[str]) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        return not isinstance(value, str) or bool(pattern.match(value))

    return check
