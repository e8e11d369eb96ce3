"""The closest valid name, for hints such as "did you mean 'path'?" (validation, settings, chat)."""

from __future__ import annotations

import bisect
from collections.abc import Iterable

SCAN_AT_MOST = 64  # below this many names a plain scan is as fast as the index, and exact
NEIGHBOURS = 8  # names taken on each side of a word, in each sort order, for the index's shortlist


def closest(word: object, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    if not isinstance(word, str):
        return None
    choices = list(candidates)
    lowered = {choice.lower(): choice for choice in choices}
    if word.lower() in lowered:
        return lowered[word.lower()]
    import difflib  # only when a name is wrong: not on a valid pipeline's path

    found = difflib.get_close_matches(word, choices, n=1, cutoff=cutoff)
    return found[0] if found else None


def did_you_mean(word: object, candidates: Iterable[str]) -> str:
    """" (did you mean 'x'?)" or ""."""
    return suggestion(closest(word, candidates))


def suggestion(match: str | None) -> str:
    """" (did you mean 'x'?)" for a match found elsewhere, or ""."""
    return f" (did you mean '{match}'?)" if match else ""


class NameIndex:
    """Closest-name lookups over many names without a scan per lookup.

    The names are kept sorted forwards and by their reversed spelling. A misspelt word keeps either
    its first or its last half intact, so its best match sorts near it in one of the two orders: the
    few names around it are the shortlist that difflib ranks. Small sets are scanned as `closest` does.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.names = list(dict.fromkeys(names))  # in the order given; `before` counts in this order
        self._rank = {name: position for position, name in enumerate(self.names)}
        self._lowered: dict[str, str] = {}
        for name in self.names:
            self._lowered.setdefault(name.lower(), name)
        self._forward = sorted((name.lower(), name) for name in self.names)
        self._backward = sorted((name.lower()[::-1], name) for name in self.names)

    def closest(self, word: object, cutoff: float = 0.6, before: int | None = None) -> str | None:
        """The closest name, among the first `before` names when given."""
        if not isinstance(word, str):
            return None
        allowed = len(self.names) if before is None else min(before, len(self.names))
        if allowed <= SCAN_AT_MOST:
            return closest(word, self.names[:allowed], cutoff)
        exact = self._lowered.get(word.lower())
        if exact is not None and self._rank[exact] < allowed:
            return exact
        shortlist = self._near(self._forward, word.lower(), allowed) + self._near(self._backward, word.lower()[::-1], allowed)
        import difflib

        found = difflib.get_close_matches(word, list(dict.fromkeys(shortlist)), n=1, cutoff=cutoff)
        return found[0] if found else None

    def _near(self, ordered: list[tuple[str, str]], key: str, allowed: int) -> list[str]:
        """Up to NEIGHBOURS allowed names on each side of `key` in `ordered`, looking a bounded way."""
        middle = bisect.bisect_left(ordered, (key, ""))
        found: list[str] = []
        for step in (-1, 1):
            kept, position = 0, middle if step == 1 else middle - 1
            looked = 0
            while 0 <= position < len(ordered) and kept < NEIGHBOURS and looked < 8 * NEIGHBOURS:
                name = ordered[position][1]
                if self._rank[name] < allowed:
                    found.append(name)
                    kept += 1
                position += step
                looked += 1
        return found


def listing(values: Iterable[object], limit: int = 30) -> str:
    items = values if isinstance(values, (list, tuple)) else list(values)
    shown = ", ".join(str(v) for v in items[:limit])
    return shown + (f", ... ({len(items) - limit} more)" if len(items) > limit else "")
