"""The closest valid name, for hints such as "did you mean 'path'?" (validation, settings, chat)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: object, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    if not isinstance(word, str):
        return None
    choices = list(candidates)
    lowered = {choice.lower(): choice for choice in choices}
    if word.lower() in lowered:
        return lowered[word.lower()]
    found = difflib.get_close_matches(word, choices, n=1, cutoff=cutoff)
    return found[0] if found else None


def did_you_mean(word: object, candidates: Iterable[str]) -> str:
    """" (did you mean 'x'?)" or ""."""
    match = closest(word, candidates)
    return f" (did you mean '{match}'?)" if match else ""


def listing(values: Iterable[object], limit: int = 30) -> str:
    items = [str(v) for v in values]
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items) - limit} more)" if len(items) > limit else "")
