"""The session directory: permissions, atomic JSON, ordered events, redaction at write time."""

from __future__ import annotations

import json
import stat

import pytest

from osiris.errors import FileWriteError, UsageError
from osiris.secrets.redact import Redactor
from osiris.session import Session
from osiris.session import files as session_files
from osiris.session.reader import find_session, list_sessions, read_events


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def new_session(tmp_path, known=("Known-Secret-1",)):
    return Session.create(tmp_path / "sessions", provider="demo", model="demo", redactor=Redactor(known_values=known))


def test_directories_are_0700_and_files_0600(tmp_path):
    session = new_session(tmp_path)
    session.write_text("artifacts/cycle-1/attempt-1/pipeline.yaml", "name: x\n")
    session.append_conversation("user", "hello")
    session.finish("valid")

    for path in [session.path, *session.path.rglob("*")]:
        assert mode(path) == (0o700 if path.is_dir() else 0o600), path
    assert mode(tmp_path / "sessions") == 0o700


def test_events_have_increasing_seq_and_the_common_fields(tmp_path):
    session = new_session(tmp_path)
    session.write_event("user_message", dict(text="hi"))
    session.finish("valid")

    events = [json.loads(line) for line in (session.path / "events.jsonl").read_text().splitlines()]
    assert [e["seq"] for e in events] == [1, 2, 3]
    assert [e["event_type"] for e in events] == ["session_start", "user_message", "session_end"]
    assert all(e["session_id"] == session.id and e["ts"].endswith("Z") for e in events)


def test_everything_written_is_redacted(tmp_path):
    session = new_session(tmp_path)
    session.write_event("user_message", dict(text="use Known-Secret-1 and mysql://u:dsnpass99@h/db",
                                             password="p4ss-word"))
    session.write_text("artifacts/x.txt", "token: abcdef123456 Known-Secret-1")
    session.write_json("artifacts/x.json", {"api_key": "k-123456", "note": "Known-Secret-1"})
    session.append_conversation("user", "Known-Secret-1")
    session.finish("valid")

    everything = "".join(p.read_text() for p in session.path.rglob("*") if p.is_file())
    for secret in ("Known-Secret-1", "dsnpass99", "p4ss-word", "abcdef123456", "k-123456"):
        assert secret not in everything


def test_json_is_written_atomically(tmp_path, monkeypatch):
    target = tmp_path / "d" / "state.json"
    session_files.ensure_private_dir(target.parent)
    session_files.write_json_atomic(target, {"v": 1})

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(session_files.os, "replace", crash)
    with pytest.raises(FileWriteError, match="disk full"):
        session_files.write_json_atomic(target, {"v": 2})
    assert json.loads(target.read_text()) == {"v": 1}  # the old file, whole
    assert [p.name for p in target.parent.iterdir()] == ["state.json"]  # no temp file left


def started(session, when):
    """Set the session's start time in its session.json (two sessions made in one test share a second)."""
    meta_path = session.path / "session.json"
    meta = json.loads(meta_path.read_text())
    meta["started_at"] = when
    meta_path.write_text(json.dumps(meta))


def test_reader_lists_newest_first_and_finds_by_prefix(tmp_path):
    invalid, valid = new_session(tmp_path), new_session(tmp_path)
    invalid.finish("invalid")
    valid.finish("valid")
    # The newer session gets the smaller id, so that neither a flipped sort nor a sort by id passes.
    newer, older = sorted([invalid, valid], key=lambda s: s.id)
    started(newer, "2026-11-22T10:00:02.000Z")
    started(older, "2026-11-22T10:00:01.000Z")

    root = tmp_path / "sessions"
    assert [r.id for r in list_sessions(root)] == [newer.id, older.id]
    assert find_session(root, "last").id == newer.id
    assert find_session(root, older.id[:-1]).id == older.id  # a unique prefix is enough
    assert read_events(find_session(root, invalid.id))[-1]["status"] == "invalid"
    with pytest.raises(UsageError, match="matches 2 sessions"):
        find_session(root, "2")
    with pytest.raises(UsageError, match="no session 'zzz'"):
        find_session(root, "zzz")


def test_a_torn_last_event_line_is_skipped(tmp_path):
    session = new_session(tmp_path)
    with open(session.path / "events.jsonl", "a") as handle:
        handle.write('{"seq": 99, "event_ty')
    record = find_session(tmp_path / "sessions", session.id)
    assert [e["event_type"] for e in read_events(record)] == ["session_start"]


def test_session_json_masks_a_secret_learnt_after_the_settings_were_first_written(tmp_path):
    """The settings are redacted once and reused while the redactor learns nothing (a run's fixed
    start, docs/performance.md); a secret learnt mid-session is masked in the final session.json."""
    redactor = Redactor()
    session = Session.create(tmp_path / "sessions", provider="none", model="none", redactor=redactor,
                             settings={"run": {"note": "learnt-later-Secret-5521"}}, command="run")
    first = (session.path / "session.json").read_text()
    assert "learnt-later-Secret-5521" in first  # not known yet: nothing marks it a secret
    redactor.add_known(["learnt-later-Secret-5521"])
    session.finish("succeeded")
    final = json.loads((session.path / "session.json").read_text())
    assert "learnt-later-Secret-5521" not in json.dumps(final)
    assert list(final) == list(json.loads(first))  # the same fields, in the same order
    assert final["settings"] == {"run": {"note": "***"}} and final["status"] == "succeeded"
