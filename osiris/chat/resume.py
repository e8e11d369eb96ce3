"""`osiris chat --resume ID`: carry an earlier session's conversation into a new session.

The earlier session stays as it was (its trail is a record). The new session copies the
conversation, so that it can itself be resumed, and the engine rebuilds its turns from it: the
accepted pipelines become the history sent with each call, the last one the current pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from osiris.session.reader import SessionRecord, read_conversation


@dataclass(frozen=True)
class Restored:
    turns: int  # accepted pipelines carried over
    last_request: str | None


def restore(engine: Any, record: SessionRecord) -> Restored:
    """Load `record`'s conversation into `engine` and into its new session."""
    conversation = read_conversation(record)
    for entry in conversation:
        extra = {k: v for k, v in entry.items() if k not in {"ts", "role", "content", "resumed_from"}}
        engine.session.append_conversation(entry.get("role", "user"), entry.get("content") or "",
                                            resumed_from=record.id, **extra)
    engine.restore(conversation)
    turns = len(engine.history) // 2
    engine.session.emit("session_resumed", resumed_from=record.id, turns=turns)
    requests = [e.get("content") for e in conversation if e.get("role") == "user" and e.get("kind", "request") == "request"]
    return Restored(turns, requests[-1] if requests else None)
