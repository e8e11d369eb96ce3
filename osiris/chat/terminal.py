"""Is this a terminal that may get colours and a spinner? (Only on a terminal, never with NO_COLOR: README, "Commands".)"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO


def is_interactive(stream: TextIO) -> bool:
    """True when `stream` is a terminal."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def wants_fancy_output(stream: TextIO, env: Mapping[str, str] | None = None) -> bool:
    """Colours and spinners: on a terminal, not with NO_COLOR set (non-empty), not on TERM=dumb."""
    env = os.environ if env is None else env
    if env.get("NO_COLOR"):
        return False
    if env.get("TERM") == "dumb":
        return False
    return is_interactive(stream)
