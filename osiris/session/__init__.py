"""The session directory (docs/sessions.md): a redacted, append-only record of everything that happened.

    session = Session.create(root, provider="anthropic", model=..., effective=..., redactor=...)
    session.emit(events.UserMessage(kind="request", text="...", scrubbed=False))
    session.write_json("artifacts/cycle-1/retry_trail.json", trail)
    session.finish("valid")

Every write goes through the session's `Redactor`; directories are 0700, files 0600, and JSON
files are replaced atomically. The writing process holds the session's lock (`lock.py`), nothing
is written through a symbolic link (`safe_io.py`), and every JSON file is strict (`strict_json.py`).
"""

from osiris.session.store import Session, new_session_id

__all__ = ["Session", "new_session_id"]
