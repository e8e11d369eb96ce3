"""Reading session directories back, for `osiris sessions` (and for resuming a chat)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osiris.errors import UsageError
from osiris.session.store import (
    ARTIFACTS_DIR,
    CONVERSATION_FILE,
    EVENTS_FILE,
    SESSION_FILE,
)


@dataclass(frozen=True)
class SessionRecord:
    """One session directory and its session.json."""

    path: Path
    meta: dict[str, Any]

    @property
    def id(self) -> str:
        return self.meta.get("id") or self.path.name


def list_sessions(root: Path) -> list[SessionRecord]:
    """All sessions under `root`, newest first; directories without session.json are skipped."""
    if not root.is_dir():
        return []
    records = []
    for child in root.iterdir():
        meta = _read_json(child / SESSION_FILE)
        if isinstance(meta, dict):
            records.append(SessionRecord(child, meta))
    return sorted(records, key=lambda r: (r.meta.get("started_at") or "", r.id), reverse=True)


def find_session(root: Path, session_id: str) -> SessionRecord:
    """The session `session_id` (a unique prefix is enough, `last` means the newest)."""
    sessions = list_sessions(root)
    if session_id == "last" and sessions:
        return sessions[0]
    exact = [s for s in sessions if s.id == session_id]
    matches = exact or [s for s in sessions if s.id.startswith(session_id)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UsageError(f"no session '{session_id}' in {root} (see 'osiris sessions list')")
    raise UsageError(
        f"'{session_id}' matches {len(matches)} sessions ({', '.join(s.id for s in matches[:5])}); "
        "give more of the id"
    )


def read_events(record: SessionRecord) -> list[dict[str, Any]]:
    return _read_jsonl(record.path / EVENTS_FILE)


def read_conversation(record: SessionRecord) -> list[dict[str, Any]]:
    return _read_jsonl(record.path / CONVERSATION_FILE)


def read_trails(record: SessionRecord) -> list[dict[str, Any]]:
    """The retry_trail.json of every cycle, in cycle order."""
    trails = []
    for path in (record.path / ARTIFACTS_DIR).glob("cycle-*/retry_trail.json"):
        trail = _read_json(path)
        if isinstance(trail, dict):
            trails.append(trail)
    return sorted(trails, key=lambda t: t.get("cycle", 0))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every complete JSON line; a torn last line (a crash mid-write) is skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    entries = []
    for line in lines:
        try:
            entries.append(json.loads(line))
        except ValueError:
            continue
    return entries
