"""Reading session directories back, for `osiris sessions` (and for resuming a chat)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.errors import UsageError
from osiris.session.lock import is_held
from osiris.session.meta import meta_problem
from osiris.session.store import (
    ARTIFACTS_DIR,
    CONVERSATION_FILE,
    EVENTS_FILE,
    SESSION_FILE,
)

if TYPE_CHECKING:
    from osiris.oml.values import Value


RUN_FILE, SAMPLE_RUN_FILE = "run.json", "dry_run.json"  # osiris/run/run_trail.py writes them
UNREADABLE = "unreadable"
INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class SessionRecord:
    """One session directory and its session.json (`meta` is empty and `problem` says why when
    session.json cannot be read)."""

    path: Path
    meta: dict[str, Value]
    problem: str | None = None

    @property
    def id(self) -> str:
        return str(self.meta.get("id") or self.path.name)

    @property
    def status(self) -> str | None:
        """The recorded status; `interrupted` for a `running` session no process holds (killed),
        `unreadable` for a damaged session.json."""
        if self.problem:
            return UNREADABLE
        status = self.meta.get("status")
        if status == "running" and not is_held(self.path):
            return INTERRUPTED
        return status if isinstance(status, str) else None


def list_sessions(root: Path) -> list[SessionRecord]:
    """All sessions under `root`, newest first; directories without session.json are skipped,
    a damaged session.json is listed as unreadable."""
    if not root.is_dir():
        return []
    records = [_record(child) for child in root.iterdir() if (child / SESSION_FILE).exists()]
    return sorted(records, key=lambda r: (str(r.meta.get("started_at") or ""), r.id), reverse=True)


def _record(path: Path) -> SessionRecord:
    try:
        meta = json.loads((path / SESSION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return SessionRecord(path, {}, f"{SESSION_FILE}: {_reason(error)}")
    problem = meta_problem(meta)
    return SessionRecord(path, {}, f"{SESSION_FILE}: {problem}") if problem else SessionRecord(path, meta)


def _reason(error: Exception) -> str:
    if isinstance(error, OSError):
        return (error.strerror or str(error)).lower()
    if isinstance(error, UnicodeDecodeError):
        return "not UTF-8 text"
    return f"not valid JSON ({error})"


def find_session(root: Path, session_id: str) -> SessionRecord:
    """The session `session_id` (a unique prefix is enough, `last` means the newest)."""
    if not session_id.strip():
        raise UsageError("a session ID must not be empty (see 'osiris sessions list')")
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


def read_events(record: SessionRecord) -> list[dict[str, Value]]:
    return _read_jsonl(record.path / EVENTS_FILE)


def read_conversation(record: SessionRecord) -> list[dict[str, Value]]:
    return _read_jsonl(record.path / CONVERSATION_FILE)


def read_trails(record: SessionRecord) -> list[dict[str, Value]]:
    """The retry_trail.json of every cycle, in cycle order."""
    trails = []
    for path in (record.path / ARTIFACTS_DIR).glob("cycle-*/retry_trail.json"):
        trail = _read_json(path)
        if isinstance(trail, dict):
            trails.append(trail)
    return sorted(trails, key=_cycle)


def read_run(record: SessionRecord) -> dict[str, Value] | None:
    """The run of an `osiris run` session: its `run.json` (`dry_run.json` for `--sample`), or None
    for a session that ran no pipeline (or whose run was cut off before its end)."""
    for name in (RUN_FILE, SAMPLE_RUN_FILE):
        run = _read_json(record.path / ARTIFACTS_DIR / name)
        if isinstance(run, dict):
            return run
    return None


def _cycle(trail: dict[str, Value]) -> int:
    cycle = trail.get("cycle", 0)
    return cycle if isinstance(cycle, int) else 0


def _read_json(path: Path) -> Value:
    try:
        value: Value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value


def _read_jsonl(path: Path) -> list[dict[str, Value]]:
    """Every complete JSON line; a torn line (a crash or a full disk mid-write) is skipped.
    Lines end at "\n" only: U+2028 and friends are text, not line ends."""
    try:
        lines = path.read_bytes().decode("utf-8", "replace").split("\n")
    except OSError:
        return []
    entries = []
    for line in lines:
        try:
            entry: Value = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):  # a line that is not an object is as damaged as a torn one
            entries.append(entry)
    return entries
