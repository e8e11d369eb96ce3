"""A disk that is full or a path that cannot be written: one line, a non-zero exit, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from osiris.errors import FileWriteError
from osiris.session.files import AppendLog
from tests.inprocess import run_inprocess as run_osiris  # in-process: tests/inprocess.py

DEV_FULL = Path("/dev/full")


@pytest.mark.skipif(not DEV_FULL.exists(), reason="needs Linux's /dev/full")
def test_a_full_disk_is_reported_with_the_file_name() -> None:
    log = AppendLog(DEV_FULL)
    with pytest.raises(FileWriteError, match=r"cannot write /dev/full: No space left on device"):
        log.append('{"event_type": "session_start"}')


def test_sessions_dir_that_cannot_be_created(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a directory\n")
    (tmp_path / ".osiris.yaml").write_text("sessions:\n  dir: blocker/sessions\n")

    done = run_osiris("generate", "--provider", "demo", "copy customers to a csv", cwd=tmp_path)

    assert done.returncode == 2  # a settings error since issue 11 item 1: checked before the LLM call
    assert "Traceback" not in done.stderr
    assert done.stderr == (f"osiris: error: sessions.dir = blocker/sessions (from {tmp_path / '.osiris.yaml'}): "
                           f"{tmp_path / 'blocker'} is a file, not a directory\n")
