"""What a readable session.json looks like, so that one damaged file is reported, not a crash."""

from __future__ import annotations

from typing import TypeGuard

FORMAT = 1  # session.json's layout; a file without "format" is format 1 (written before it existed)
TEXT_KEYS = ("id", "started_at", "ended_at", "command", "status", "provider", "model")
COUNT_KEYS = ("cycles", "attempts")
DURATION_KEYS = ("llm_ms", "validation_ms")


def meta_problem(meta: object) -> str | None:
    """Why `meta` (a parsed session.json) cannot be shown or resumed, or None when it can."""
    if not isinstance(meta, dict):
        return "not a JSON object"
    too_new = _format_problem(meta.get("format", 1))
    if too_new:
        return too_new
    for key in TEXT_KEYS:
        if meta.get(key) is not None and not isinstance(meta[key], str):
            return f"'{key}' is not a string"
    totals = meta.get("totals")
    if totals is None:
        return None
    if not isinstance(totals, dict):
        return "'totals' is not an object"
    for key in COUNT_KEYS:
        if not _is_count(totals.get(key, 0)):
            return f"'totals.{key}' is not a whole number"
    for key in DURATION_KEYS:
        if not _is_number(totals.get(key, 0)):
            return f"'totals.{key}' is not a number"
    tokens = totals.get("tokens")
    if tokens is not None and not (isinstance(tokens, dict) and all(map(_is_count, tokens.values()))):
        return "'totals.tokens' is not an object of whole numbers"
    return None


def _format_problem(version: object) -> str | None:
    if not _is_count(version):
        return "'format' is not a whole number"
    if version > FORMAT:
        return f"format {version} is newer than this Osiris reads ({FORMAT}): upgrade Osiris to open it"
    return None


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
