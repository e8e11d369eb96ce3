"""Which components a request likely needs: a small lexical ranking, no embedding model.

A component scores when the request names it, its family (`mysql`), a part of its name (`csv`,
`writer`), a word of its title, or a mode its wording implies ("copy ... into" writes, "from"
reads). Ties keep the registry's name order, so the ranking is stable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from osiris.registry.spec import ComponentSpec

_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"a", "an", "and", "the", "of", "to", "in", "into", "from", "for", "with", "on", "by", "data", "rows",
         "table", "file", "files", "or", "at", "as", "is", "it", "all", "only", "that", "this", "my", "our"}
# Words that imply an OML mode (read, write, transform), matched on the request's words.
_MODE_WORDS = {
    "read": {"read", "extract", "fetch", "pull", "get", "export", "copy", "query", "select", "load", "sync"},
    "write": {"write", "save", "store", "insert", "upsert", "append", "dump", "load", "export", "copy", "sync"},
    "transform": {"join", "filter", "aggregate", "transform", "sum", "count", "group", "dedupe", "clean", "sql"},
}


def words(text: str) -> set[str]:
    """Lower-case words of `text`, each also without a plural `s` ("orders" -> "order")."""
    found = set(_WORD.findall(text.lower()))
    return found | {word[:-1] for word in found if len(word) > 3 and word.endswith("s")}


def score(spec: ComponentSpec, request_words: set[str], request_text: str) -> int:
    """How strongly the request points at `spec`; 0 when it does not at all."""
    points = 0
    if spec.name.lower() in request_text:
        points += 20
    if spec.family.lower() in request_words:
        points += 8
    parts = set(_WORD.findall(spec.name.lower().split(".", 1)[-1])) - _STOP
    points += 3 * len(parts & request_words)
    title = words(spec.title) - _STOP - {spec.family.lower()}
    points += len(title & request_words)
    if points and any(request_words & _MODE_WORDS.get(mode, set()) for mode in spec.oml_modes):
        points += 1
    return points


def ranked(specs: Iterable[ComponentSpec], text: str, *, first: Iterable[str] = ()) -> list[str]:
    """The names of the specs the text points at, best first; names in `first` lead, in their order."""
    request_words, lowered = words(text), text.lower()
    leading = list(dict.fromkeys(first))
    scored = [(score(spec, request_words, lowered), spec.name) for spec in specs if spec.name not in leading]
    return leading + [name for points, name in sorted(scored, key=lambda item: (-item[0], item[1])) if points > 0]
