"""JSON pointers (RFC 6901) for issue paths, and the dotted form people read."""

from __future__ import annotations

from osiris.extract import escape


def join(base: str, *parts: object) -> str:
    """`join("/steps", 1, "config")` -> "/steps/1/config"."""
    return base + "".join(f"/{escape(str(part))}" for part in parts)


def split(pointer: str) -> list[str]:
    if not pointer:
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer.lstrip("/").split("/")]


def readable(pointer: str) -> str:
    """"/steps/1/config/port" -> "steps[1].config.port" ("" -> "the document")."""
    text = ""
    for part in split(pointer):
        text += f"[{part}]" if part.isdigit() else (f".{part}" if text else part)
    return text or "the document"
