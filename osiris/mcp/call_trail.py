"""Each call to the MCP server in its session (docs/sessions.md, `mcp_tool_call`): the tool, its
arguments, ok or error, what it found in brief, and how long it took. An `oml` argument is written
as its length and sha256, and the pipeline itself to `artifacts/calls/` (redacted, as every file of
a session), unless it was invalid and `sessions.save_failed_oml` is false, or larger than the
validator reads. A run started by a tool
has a session of its own, as `osiris run` does; the summary names it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from osiris.extract import MAX_CHARS
from osiris.session import events

if TYPE_CHECKING:
    from osiris.oml.values import Value
    from osiris.session.store import Session

# What a result's summary keeps: verdicts, codes, counts, paths and ids; never a pipeline or rows.
SUMMARY_KEYS = ("valid", "error_codes", "saved", "path", "sha256", "status", "session", "catalog",
                "table_count", "cached", "count", "missing")


class CallTrail:
    """The server's session: one event per call, the OML of calls that carried one."""

    def __init__(self, session: Session, *, save_failed_oml: bool) -> None:
        self.session = session
        self.save_failed_oml = save_failed_oml
        self.calls = 0

    def record(self, tool: str, arguments: Mapping[str, Value], started: float, *,
               result: Mapping[str, Value] | None = None, message: str | None = None) -> None:
        self.calls += 1
        summary = {key: result[key] for key in SUMMARY_KEYS if result is not None and key in result}
        oml = arguments.get("oml")
        if not isinstance(oml, str) or len(oml) > MAX_CHARS:  # beyond it the validator read none of it (OML105)
            oml = None
        if oml is not None and (result is None or result.get("valid", True) or self.save_failed_oml):
            self.session.write_text(f"artifacts/calls/{self.calls:04d}-{tool}.yaml", oml)
        self.session.emit(events.McpToolCall(
            tool=tool, arguments={name: _brief(value) for name, value in arguments.items()},
            status="error" if message is not None else "ok", summary=summary, message=message,
            duration_ms=round((time.perf_counter() - started) * 1000, 1)))

    def close(self) -> None:
        self.session.finish("ended")


def _brief(value: Value) -> Value:
    """A long text argument (a pipeline) as its length and digest; anything else as given."""
    if isinstance(value, str) and (len(value) > 200 or "\n" in value):
        return {"chars": len(value), "sha256": hashlib.sha256(value.encode("utf-8")).hexdigest()}
    return value
