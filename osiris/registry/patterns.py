"""Regular expressions from specs and rules run on RE2: time linear in the text, never backtracking.

Python's `re` backtracks, so a pattern such as `^(a+)+$` takes exponential time on a text of a's
followed by one other character, and both the pattern (a user's spec, a rule) and the text (the
pipeline an LLM wrote) can come from outside. RE2 has no backreferences or lookaround; a pattern
that needs them is refused when its spec or rule is loaded (ADR 0085).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Protocol

from osiris.registry.walk import schema_nodes

MAX_PATTERN_CHARS = 1_000  # a config pattern is a few dozen characters


class Program(Protocol):
    """A compiled RE2 pattern, as far as Osiris uses it (the `re2` module has no type information)."""

    def search(self, text: str) -> object | None: ...


class PatternError(ValueError):
    """A pattern RE2 cannot run; the message says why."""


@lru_cache(maxsize=1_024)
def compiled(pattern: str) -> Program:
    """The RE2 program of `pattern` (cached); PatternError when RE2 refuses it."""
    import re2

    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"the pattern has {len(pattern):,} characters; the limit is {MAX_PATTERN_CHARS:,}")
    options = re2.Options()
    options.log_errors = False  # RE2 would print its own lines on stderr
    try:
        program: Program = re2.compile(pattern, options)  # re2 is untyped: its programs have search()
        return program
    except re2.error as error:
        reason = error.args[0].decode("utf-8", "replace") if error.args and isinstance(error.args[0], bytes) \
            else str(error)
        raise PatternError(f"not a pattern Osiris can run ({reason}); lookahead, lookbehind and "
                           "backreferences are not supported") from None


def search(pattern: str, text: str) -> bool:
    """True when `pattern` matches somewhere in `text` (like re.search), in linear time."""
    return compiled(pattern).search(text) is not None


def pattern_problem(pattern: object) -> str | None:
    """Why RE2 cannot run `pattern`, or None when it can."""
    if not isinstance(pattern, str):
        return None  # the meta-schema says what type a pattern must be
    try:
        compiled(pattern)
    except PatternError as error:
        return str(error)
    return None


def schema_patterns(schema: object, pointer: str = "") -> Iterator[tuple[str, str]]:
    """(JSON pointer, pattern) of every `pattern` and `patternProperties` key in a schema."""
    for where, node, _ in schema_nodes(schema, pointer):
        pattern, patterns = node.get("pattern"), node.get("patternProperties")
        if isinstance(pattern, str):
            yield f"{where}/pattern", pattern
        if isinstance(patterns, dict):
            yield from ((f"{where}/patternProperties", key) for key in patterns)
