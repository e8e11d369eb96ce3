"""Snapshot files of whole artifacts (a request body, an event sequence) under tests/snapshots/.

A test renders the artifact as text and calls `assert_snapshot(name, text)`. When the behaviour is
meant to change, re-record and review the diff in git:

    SNAPSHOT_UPDATE=1 .venv/bin/python -m pytest -q tests/test_snapshots.py
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("SNAPSHOT_UPDATE") == "1"  # not OSIRIS_*: the conftest clears those


def assert_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), f"no snapshot {path.name}; record it with SNAPSHOT_UPDATE=1"
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            f"snapshots/{name}", "now"))
        raise AssertionError(f"{name} changed (SNAPSHOT_UPDATE=1 re-records it):\n{diff}")


def stable(value: Any) -> Any:
    """`value` with what differs between runs replaced: timings (`*_ms`), timestamps, session ids."""
    if isinstance(value, dict):
        return {key: ("<ms>" if key.endswith("_ms") and item is not None else stable(item))
                for key, item in value.items() if key not in ("ts", "session_id")}
    if isinstance(value, list):
        return [stable(item) for item in value]
    return value


def events_text(events: list[dict[str, Any]]) -> str:
    """One JSON line per event, timings and ids replaced."""
    return "".join(json.dumps(stable(event), ensure_ascii=False) + "\n" for event in events)


def request_text(body: dict[str, Any]) -> str:
    """A Messages API request body as reviewable text: the fields as JSON, then each message.
    The cached system prompt is left out (its own tests pin it); the dynamic part is kept."""
    shown = dict(body)
    system = shown.pop("system", [])
    messages = shown.pop("messages", [])
    parts = [json.dumps(shown, indent=2, sort_keys=True)]
    for block in system:
        text = "<the cached system prompt>" if block.get("cache_control") else block.get("text", "")
        parts.append(f"--- system{' (cached)' if block.get('cache_control') else ''} ---\n{text}")
    for message in messages:
        content = message["content"]
        if not isinstance(content, str):
            content = json.dumps(content, indent=2)
        parts.append(f"--- {message['role']} ---\n{content}")
    return "\n".join(parts) + "\n"
