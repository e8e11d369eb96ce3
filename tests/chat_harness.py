"""Drive the real `osiris chat` in a pseudo-terminal with pexpect.

prompt_toolkit asks the terminal for the cursor position unless PROMPT_TOOLKIT_NO_CPR=1, and
pads its prompt, so we match the prompt without its trailing space.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pexpect

from tests.conftest import TEST_API_KEY, cli_env

PROMPT = "osiris>"
TIMEOUT_S = 20


class Chat:
    """One `osiris chat` process in a pty, with the screen so far in `self.screen`."""

    def __init__(self, project: Path, *args: str, env: dict[str, str] | None = None, **extra_env: str) -> None:
        environment = env if env is not None else cli_env(ANTHROPIC_API_KEY=TEST_API_KEY)
        environment.update({"PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm-256color", "COLUMNS": "160"})
        environment.update(extra_env)
        self.project = project
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "osiris", "chat", *args],
            cwd=str(project),
            env=environment,
            encoding="utf-8",
            timeout=TIMEOUT_S,
            dimensions=(50, 160),
        )
        self.screen = ""

    def expect(self, pattern: str | list[Any]) -> int:
        """Wait for a regex (or one of several); everything read so far goes to `screen`."""
        try:
            index = self.child.expect(pattern)
        finally:
            self.screen += (self.child.before or "") + (self.child.after if isinstance(self.child.after, str) else "")
        return index

    def expect_exact(self, text: str) -> None:
        try:
            self.child.expect_exact(text)
        finally:
            self.screen += (self.child.before or "") + (self.child.after if isinstance(self.child.after, str) else "")

    def prompt(self) -> None:
        self.expect_exact(PROMPT)

    def say(self, text: str) -> None:
        """Type a line and press Enter."""
        self.child.send(text + "\r")

    def interrupt(self) -> None:
        self.child.sendcontrol("c")

    def end(self) -> int:
        """Ctrl-D at the prompt; returns the exit status."""
        self.child.sendcontrol("d")
        self.child.expect(pexpect.EOF)
        self.screen += self.child.before or ""
        self.child.close()
        return self.child.exitstatus

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


def only_session(project: Path) -> Path:
    sessions = sorted((project / ".osiris" / "sessions").iterdir())
    assert len(sessions) == 1, sessions
    return sessions[0]


def events(session: Path, event_type: str | None = None) -> list[dict[str, Any]]:
    lines = (session / "events.jsonl").read_text(encoding="utf-8").splitlines()
    found = [json.loads(line) for line in lines]
    return [e for e in found if event_type is None or e["event_type"] == event_type]


def editor_script(tmp_path: Path, replace: str, by: str) -> Path:
    """An 'editor' that fixes the file it is given by a text replacement, as a person would."""
    script = tmp_path / "fix-editor.py"
    script.write_text(
        "import sys, pathlib\n"
        "path = pathlib.Path(sys.argv[1])\n"
        f"path.write_text(path.read_text().replace({replace!r}, {by!r}))\n",
        encoding="utf-8",
    )
    return script


def editor_command(script: Path) -> str:
    return f"{sys.executable} {script}"

