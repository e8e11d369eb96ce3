"""Strict JSON for every session file: no NaN or Infinity, no lone surrogates, one line or indented.

`json.dumps` writes NaN and Infinity by default, which strict readers (jq, JavaScript, serde)
reject. Non-finite floats are written as the strings "NaN", "Infinity" and "-Infinity" instead.
A lone surrogate cannot be encoded as UTF-8; it is written as the text `\\ud800` (an escaped
backslash in the JSON), so every reader gets a plain string and nothing is lost. U+0085, U+2028
and U+2029 are escaped (`\\u2028`), so that no line-splitting reader cuts a JSON line in two.
"""

from __future__ import annotations

import json
import math
import re
_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAKS = re.compile("[\x85\u2028\u2029]")  # not escaped by json.dumps; str.splitlines splits on them


def dumps(data: object, *, indent: int | None = None) -> str:
    """`data` as strict JSON text (non-JSON objects as their str())."""
    text = json.dumps(_finite(data), indent=indent, ensure_ascii=False, default=str, allow_nan=False)
    text = _LINE_BREAKS.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    return _SURROGATE.sub(lambda found: f"\\\\u{ord(found.group()):04x}", text)


def _finite(value: object) -> object:
    """`value` with every non-finite float replaced by its name as a string."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {_finite(key): _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
