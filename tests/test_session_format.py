"""session.json carries its format version (1). Older files without it read as format 1; a newer
format is one unreadable row in `sessions list` and a refused resume, with a clear line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from osiris import cli
from osiris.errors import UsageError
from osiris.secrets.redact import Redactor
from osiris.session import Session


def write_meta(root: Path, session_id: str, **extra: object) -> Path:
    path = root / session_id
    path.mkdir(parents=True)
    meta = {"id": session_id, "command": "chat", "started_at": "2026-01-01T00:00:00.000Z",
            "ended_at": "2026-01-01T00:01:00.000Z", "status": "ended", "provider": "demo", "model": "demo", **extra}
    (path / "session.json").write_text(json.dumps(meta), encoding="utf-8")
    return path


def test_a_new_session_json_starts_with_its_format(tmp_path: Path) -> None:
    session = Session.create(tmp_path, command="generate", provider="demo", model="demo", redactor=Redactor())
    session.finish("ended")
    meta = json.loads((session.path / "session.json").read_text(encoding="utf-8"))
    assert list(meta)[:2] == ["format", "id"] and meta["format"] == 1


def test_list_reads_old_files_and_marks_a_newer_format_unreadable(tmp_path: Path, monkeypatch, capsys) -> None:
    root = tmp_path / ".osiris" / "sessions"
    write_meta(root, "20260101-000000-aaaaaa")  # written before "format" existed
    write_meta(root, "20260102-000000-bbbbbb", format=2)
    monkeypatch.chdir(tmp_path)

    assert cli.main(["sessions", "list"]) == 0

    rows = capsys.readouterr().out.splitlines()[1:]
    assert rows[0].startswith("20260101-000000-aaaaaa ") and " ended " in rows[0]
    assert rows[1].startswith("20260102-000000-bbbbbb ") and " unreadable " in rows[1]
    assert cli.main(["sessions", "show", "20260102"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "status    unreadable (session.json: format 2 is newer than this Osiris reads (1): upgrade Osiris to open it)")


def test_resume_refuses_a_newer_format_with_one_clear_line(tmp_path: Path) -> None:
    path = write_meta(tmp_path, "20260102-000000-bbbbbb", format=2)
    with pytest.raises(UsageError) as refused:
        Session.resume(path, provider="demo", model="demo", redactor=Redactor())
    assert str(refused.value) == ("cannot resume 20260102-000000-bbbbbb: session.json is unreadable "
                                  "(format 2 is newer than this Osiris reads (1): upgrade Osiris to open it)")
    assert json.loads((path / "session.json").read_text())["format"] == 2  # left as it was
