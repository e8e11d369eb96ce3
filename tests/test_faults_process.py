"""What a killed or starved `osiris generate` leaves behind (issue 9; docs/reliability.md).

- `kill -9` at several points of a session: every JSON file left is whole, strict JSON, and every
  complete line of `events.jsonl` is an event.
- A disk that fills up, simulated per process with RLIMIT_FSIZE (a write past the limit fails with
  EFBIG, as a full disk fails with ENOSPC; no root is needed): one clear line, a defined exit
  code, no traceback, and no half-written file where a whole one was promised.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import TEST_API_KEY, session_dirs, write_settings
from tests.engine_samples import VALID, fenced
from tests.fake_anthropic import Reply
from tests.support import clean_env

REQUEST = "copy the customers CSV to a new CSV"


def _strict_json(text: str) -> object:
    def refuse(name: str) -> None:
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _check_trail(root: Path) -> None:
    """Every JSON file is whole; every complete event line parses (a torn last line may not)."""
    for session in session_dirs(root):
        for path in session.rglob("*.json"):
            _strict_json(path.read_text(encoding="utf-8"))
        events = session / "events.jsonl"
        if events.exists():
            text = events.read_text(encoding="utf-8")
            complete = text.split("\n")[:-1]  # what follows the last newline may be torn
            for line in complete:
                _strict_json(line)


def _generate(root: Path, **popen: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "osiris", "generate", REQUEST, "-o", "out.yaml"],
        cwd=root, env=clean_env(ANTHROPIC_API_KEY=TEST_API_KEY), text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen,
    )


@pytest.mark.parametrize("after", [0.3, 0.8, 1.3, 2.0, 3.0])
def test_kill_9_leaves_whole_json_files(project, fake_api, after):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 0},
                             "validation": {"retry": {"max_attempts": 2}}})
    # An invalid answer first, so that the kill may land in a retry as well as in the first call.
    fake_api.add(Reply("steps: [", delay=0.5), Reply(fenced(VALID), delay=0.5))

    process = _generate(project)
    time.sleep(after)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=30)

    _check_trail(project)
    out = project / "out.yaml"
    assert not out.exists() or out.read_text(encoding="utf-8").strip() == VALID.strip()


def _limit_file_size(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.parametrize("limit", [0, 64, 512, 2048, 8192])
def test_a_full_disk_gives_one_line_and_whole_files(project, fake_api, limit):
    write_settings(project, {"llm": {"base_url": fake_api.url, "timeout_seconds": 5, "api_retries": 0}})
    fake_api.add(Reply(fenced(VALID)))

    process = _generate(project, preexec_fn=_limit_file_size(limit))
    _, stderr = process.communicate(timeout=60)

    assert "Traceback" not in stderr
    if process.returncode != 0:
        assert process.returncode == 5, stderr
        assert stderr.splitlines()[-1].startswith("osiris: error: cannot write "), stderr
        assert stderr.rstrip().endswith("File too large"), stderr
    _check_trail(project)
    out = project / "out.yaml"
    assert not out.exists() or out.read_text(encoding="utf-8").strip() == VALID.strip()
