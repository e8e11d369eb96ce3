"""What an engine says is not trusted either (docs/security.md, "What an engine says").

An engine's or a server's error text can carry a cell value: `SELECT error(name)` makes DuckDB say
`Invalid Input Error: Ann`, a regex built from a cell says `missing ): Ann(`, a unique violation
says `Key (email)=(ann@example.com)`. So such a text keeps a word only when it is known: a word of
the pipeline's own text, a schema name (a source's columns, the connection's settings), or a word of
the engines' fixed vocabulary (their keywords and message templates, `engine_words.txt`, built by
bench/engine_words.py). Every other word, and every number that is not in the pipeline, becomes
`(…)`: allowed by list, never refused by shape.

    with knowing(Known.of(pipeline_text, schema_names)):   # the engine, around each step
        ...  filtered("Invalid Input Error: Ann")              # -> "Invalid Input Error: (…)"

Column names are held to the same list: a transform's output column that is not known (a PIVOT
turned cells into columns) is shown as `column_<n>` (`shown_columns`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PLACEHOLDER = "(…)"
_TOKEN = re.compile(r"\w+(?:[-.@+]\w+)*")
_PART = re.compile(r"[-.@+_]")
_STRAY = re.compile(r"[^\x20-\x7e\s…]+")  # neither a word nor ASCII punctuation: withheld too
_RUN = re.compile(re.escape(PLACEHOLDER) + r"(?:[\s'\"`,;:=()/\\\-.]*" + re.escape(PLACEHOLDER) + r")+")


@cache
def vocabulary() -> frozenset[str]:
    """The engines' fixed words, lowercase (osiris/trust/engine_words.txt)."""
    text = Path(__file__).with_name("engine_words.txt").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


@dataclass(frozen=True)
class Known:
    """The names a run may repeat: the pipeline's words, schema names, the settings' own words."""

    names: frozenset[str] = frozenset()

    @classmethod
    def of(cls, *texts: object) -> Known:
        """The words of each text (a mapping or list is read as its JSON)."""
        return cls(frozenset(word for text in texts for word in words_of(text)))

    def more(self, *texts: object) -> Known:
        return Known(self.names | Known.of(*texts).names)

    def allows(self, token: str) -> bool:
        if token in self.names or (token.lower() in vocabulary() and not token.isdigit()):
            return True
        parts = [p for p in _PART.split(token) if p]
        return len(parts) > 1 and all(self.allows(p) for p in parts)


_CURRENT: ContextVar[Known | None] = ContextVar("osiris_known_words", default=None)


@contextmanager
def knowing(known: Known) -> Iterator[None]:
    """Filter every engine text met inside with `known` (the engine, around one step)."""
    token = _CURRENT.set(known)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> Known | None:
    """The words known where this runs; None outside a run (a person's `discover`: nothing untrusted ran)."""
    return _CURRENT.get()


def words_of(text: object) -> set[str]:
    """Each word of `text` and each part of a dotted, hyphenated or snake-case word (`df_read.name`:
    also `df_read`, `name`, `df`, `read`)."""
    if not isinstance(text, str):
        text = json.dumps(text, default=str, ensure_ascii=False)
    found: set[str] = set()
    for token in _TOKEN.findall(text):
        found.add(token)
        found.update(p for p in _PART.split(token) if p)
    return found


def filtered(text: str, known: Known | None = None) -> str:
    """`text` with every word and number that `known` (by default the run's) does not allow replaced
    by `(…)`, runs of them by one; outside a run, as it is."""
    known = known if known is not None else current()
    if known is None:
        return text
    kept = _TOKEN.sub(lambda m: m[0] if known.allows(m[0]) else PLACEHOLDER, text)
    return _RUN.sub(PLACEHOLDER, _STRAY.sub(PLACEHOLDER, kept))


def shown_columns(names: Sequence[str], known: Known | None) -> list[str]:
    """Column names as they may be shown: a name whose words `known` does not all hold (made from
    data) is `column_<n>`, n its position from 1. Outside a run, as they are."""
    if known is None:
        return list(names)
    return [name if _is_known_name(name, known) else f"column_{n}" for n, name in enumerate(names, start=1)]


def _is_known_name(name: str, known: Known) -> bool:
    """Known as a whole, or made only of known words: an unnamed expression's column (`sum(amount)`,
    `count_star()`) keeps its name; a cell made into a column (`Ann`, `7731`) does not."""
    tokens = _TOKEN.findall(name)
    return name in known.names or (bool(tokens) and all(known.allows(token) for token in tokens)
                                   and not _STRAY.search(name))
