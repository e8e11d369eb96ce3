"""Writing one session: session.json, events.jsonl, conversation.jsonl and artifacts/."""

from __future__ import annotations

import json
import secrets as _random
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from collections.abc import Mapping
from typing import TYPE_CHECKING

from osiris.errors import UsageError
from osiris.secrets.redact import Redactor
from osiris.session import strict_json
from osiris.session.files import (
    AppendLog,
    ensure_private_dir,
    write_atomic,
    write_json_atomic,
)
from osiris.session.lock import LOCK_FILE, SessionLock
from osiris.session.events import Event, SessionEnd, SessionResumed, SessionStart
from osiris.session.meta import FORMAT, meta_problem
from osiris.session.safe_io import refuse_links_below, write_error

if TYPE_CHECKING:
    from osiris.oml.values import Value

SESSION_FILE = "session.json"
EVENTS_FILE = "events.jsonl"
CONVERSATION_FILE = "conversation.jsonl"
ARTIFACTS_DIR = "artifacts"


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_session_id() -> str:
    """Sortable and unique: 20261122-031502-a1b2c3."""
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + _random.token_hex(3)


@dataclass
class Totals:
    """Session totals; tokens are the provider's counts, each booked once."""

    cycles: int = 0
    attempts: int = 0
    tokens: dict[str, int] = field(
        default_factory=lambda: {"input": 0, "output": 0, "cache_write": 0, "cache_read": 0}
    )
    llm_ms: float = 0.0
    validation_ms: float = 0.0

    def to_dict(self) -> dict[str, Value]:
        return {
            "cycles": self.cycles,
            "attempts": self.attempts,
            "tokens": dict(self.tokens),
            "llm_ms": round(self.llm_ms, 1),
            "validation_ms": round(self.validation_ms, 1),
        }


class Session:
    """An open session directory. All content is redacted by `redactor` before it is written."""

    def __init__(self, path: Path, session_id: str, redactor: Redactor, meta: dict[str, object]) -> None:
        self.path = path
        self.id = session_id
        self.redactor = redactor
        self.meta = meta
        self.totals = Totals()
        self._seq = 0
        self._dirs: set[Path] = {path}
        self._events = AppendLog(path / EVENTS_FILE)
        self._conversation = AppendLog(path / CONVERSATION_FILE)
        self._lock: SessionLock | None = None
        self._settings_shown: tuple[int, dict[str, object]] | None = None  # (redactor.learned, redacted)

    @classmethod
    def create(
        cls,
        root: Path,
        *,
        provider: str,
        model: str,
        redactor: Redactor,
        settings: Mapping[str, Mapping[str, object]] | None = None,
        command: str = "generate",
    ) -> Session:
        """Make `<root>/<new id>/` and write session.json and the `session_start` event."""
        ensure_private_dir(root)
        session_id = new_session_id()
        path = ensure_private_dir(root / session_id)
        meta: dict[str, object] = {
            "format": FORMAT,
            "id": session_id,
            "command": command,
            "started_at": now_iso(),
            "ended_at": None,
            "provider": provider,
            "model": model,
            "status": "running",
            "settings": settings or {},
        }
        session = cls(path, session_id, redactor, meta)
        session._lock = _acquire(path, session_id)
        session._save_meta()
        session.emit(SessionStart(provider=provider, model=model, command=command))
        return session

    @classmethod
    def resume(cls, path: Path, *, provider: str, model: str, redactor: Redactor) -> Session:
        """Reopen an existing session directory (`osiris chat --resume`): totals, cycle numbers and
        event `seq` carry on from where it stopped. Raises SessionInUseError when another process
        has it open, UsageError when its session.json cannot be read."""
        lock = _acquire(path, path.name)
        try:
            meta = _read_meta(path)
        except BaseException:
            lock.release()
            raise
        session = cls(path, str(meta.get("id") or path.name), redactor, dict(meta))
        session._lock = lock
        session.totals = _read_totals(meta.get("totals"))
        session._seq = _last_seq(path / EVENTS_FILE)
        meta.update(status="running", ended_at=None)
        session._save_meta()
        session.emit(SessionResumed(provider=provider, model=model))
        return session

    # --- writing -------------------------------------------------------------------------

    def emit(self, event: Event) -> dict[str, object]:
        """Append one event (osiris.session.events) to events.jsonl, redacted and flushed; return it."""
        return self.write_event(event.TYPE, event.to_fields())

    def write_event(self, event_type: str, fields: Mapping[str, object]) -> dict[str, object]:
        """The line `emit` writes, for any type and fields: the storage layer on its own."""
        self._seq += 1
        event: dict[str, object] = {"ts": now_iso(), "seq": self._seq, "session_id": self.id, "event_type": event_type}
        event.update(self.redactor.data(dict(fields)))
        self._events.append(strict_json.dumps(event))
        return event

    def append_conversation(self, role: str, content: str, **extra: object) -> None:
        """One redacted turn of the conversation, enough to resume the session."""
        entry: dict[str, object] = {"ts": now_iso(), "role": role, "content": self.redactor.text(content)}
        entry.update(self.redactor.data(extra))
        self._conversation.append(strict_json.dumps(entry))

    def write_text(self, relative: str, text: str) -> Path:
        """A redacted text artifact, e.g. artifacts/cycle-1/attempt-2/pipeline.yaml."""
        target = self._target(relative)
        write_atomic(target, self.redactor.text(text))
        return target

    def write_json(self, relative: str, data: object) -> Path:
        target = self._target(relative)
        write_json_atomic(target, self.redactor.data(data))
        return target

    def _target(self, relative: str) -> Path:
        """`relative` under the session directory; no link on the way is followed."""
        target = self.path / relative
        try:
            refuse_links_below(self.path, target)
        except OSError as error:
            raise write_error(target, error) from None
        if target.parent not in self._dirs:
            ensure_private_dir(target.parent)
            self._dirs.add(target.parent)
        return target

    def book(self, *, tokens: dict[str, int], llm_ms: float, validation_ms: float, attempts: int) -> None:
        """Add one attempt's spending to the session totals (saved by `checkpoint` and `finish`)."""
        for name, count in tokens.items():
            self.totals.tokens[name] = self.totals.tokens.get(name, 0) + int(count)
        self.totals.llm_ms += llm_ms
        self.totals.validation_ms += validation_ms
        self.totals.attempts += attempts

    def start_cycle(self) -> int:
        self.totals.cycles += 1
        return self.totals.cycles

    def checkpoint(self) -> None:
        """Save session.json with the totals so far (the engine calls it after every cycle)."""
        self._save_meta()

    def finish(self, status: str) -> None:
        """Write `session_end` and the final session.json."""
        self.meta["status"] = status
        self.meta["ended_at"] = now_iso()
        self._save_meta()
        self.emit(SessionEnd(status=status, totals=self.totals.to_dict()))
        self._events.close()
        self._conversation.close()
        if self._lock is not None:
            self._lock.release()

    def _save_meta(self) -> None:
        """session.json, redacted. The settings, most of it, are redacted again only when the
        redactor has learnt a secret since they last were: the copy would be the same."""
        self.meta["totals"] = self.totals.to_dict()
        if self._settings_shown is None or self._settings_shown[0] != self.redactor.learned:
            self._settings_shown = (self.redactor.learned, self.redactor.data({"settings": self.meta.get("settings")}))
        shown = self.redactor.data({key: None if key == "settings" else value for key, value in self.meta.items()})
        if "settings" in self.meta:
            shown.update(self._settings_shown[1])
        write_json_atomic(self._target(SESSION_FILE), shown)


def _acquire(path: Path, session_id: str) -> SessionLock:
    try:
        return SessionLock.acquire(path, session_id)
    except OSError as error:  # a link or a non-file where the lock file belongs
        raise write_error(path / LOCK_FILE, error) from None


def _read_totals(totals: Value) -> Totals:
    """The totals a session.json holds (its counts checked by `meta_problem`), or none yet."""
    read = totals if isinstance(totals, Mapping) else {}
    tokens = read.get("tokens")

    def number(key: str, default: float) -> float:
        value = read.get(key, default)
        return value if isinstance(value, (int, float)) else default

    return Totals(
        cycles=int(number("cycles", 0)),
        attempts=int(number("attempts", 0)),
        tokens={**Totals().tokens, **{name: int(count) for name, count in (tokens or {}).items()
                                      if isinstance(count, int)}} if isinstance(tokens, Mapping) else Totals().tokens,
        llm_ms=float(number("llm_ms", 0.0)),
        validation_ms=float(number("validation_ms", 0.0)),
    )


def _read_meta(path: Path) -> dict[str, Value]:
    """session.json of a session to resume, or UsageError saying why it cannot be."""
    try:
        meta = json.loads((path / SESSION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot resume {path.name}: {SESSION_FILE} is unreadable ({error})") from None
    problem = meta_problem(meta)
    if problem or not isinstance(meta, dict):
        raise UsageError(f"cannot resume {path.name}: {SESSION_FILE} is unreadable ({problem})")
    return meta


def _last_seq(events: Path) -> int:
    """The `seq` of the last complete event line (0 for none)."""
    try:
        lines = events.read_bytes().decode("utf-8", "replace").split("\n")
    except OSError:
        return 0
    for line in reversed(lines):
        try:
            return int(json.loads(line)["seq"])
        except (ValueError, KeyError, TypeError):
            continue
    return 0
