"""`osiris chat --resume ID`: carry an earlier session's conversation into a new session.

The earlier session stays as it was (its trail is a record); the new session starts with its
accepted turns as the conversation history and its last valid pipeline as the current one, and
copies the conversation so that it can itself be resumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from osiris.llm.types import Message
from osiris.prompt import build_request_prompt
from osiris.session.reader import SessionRecord, read_conversation


@dataclass(frozen=True)
class Restored:
    turns: int  # accepted pipelines carried over
    last_request: str | None


def restore(engine: Any, record: SessionRecord) -> Restored:
    """Load `record`'s conversation into `engine` (history and current pipeline)."""
    last_request: str | None = None
    turns = 0
    for entry in read_conversation(record):
        role, content = entry.get("role"), entry.get("content") or ""
        extra = {k: v for k, v in entry.items() if k not in {"ts", "role", "content"}}
        engine.session.append_conversation(role or "user", content, resumed_from=record.id, **extra)
        if role == "user" and entry.get("kind", "request") == "request":
            last_request = content
        elif role == "assistant" and entry.get("valid"):
            report = engine.validator.validate(content)
            if not (report.valid and report.oml_text):
                continue
            engine.current_oml = report.oml_text
            engine.history.extend([
                Message("user", build_request_prompt(last_request or "(edited by hand)")),
                Message("assistant", f"```yaml\n{report.oml_text.rstrip()}\n```"),
            ])
            turns += 1
    engine.session.emit("session_resumed", resumed_from=record.id, turns=turns)
    return Restored(turns, last_request)
