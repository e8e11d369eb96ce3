"""Reading what the person types: prompt_toolkit on a terminal, plain lines from a pipe.

Both raise EOFError on Ctrl-D (or end of input) and KeyboardInterrupt on Ctrl-C.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TextIO

from osiris.chat.terminal import is_interactive

PROMPT = "osiris> "


class LineReader(Protocol):
    def read(self) -> str:
        """The next message or slash command (may span several lines)."""

    def ask(self, question: str) -> str:
        """A one-line answer to a question (no history, no completion)."""


class TerminalReader:
    """prompt_toolkit input: history kept per project (scrubbed of secrets by `scrub`), Enter
    sends, Alt-Enter adds a new line, Tab completes slash commands."""

    def __init__(self, history_file: Path, scrub: Callable[[str], str]) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

        from osiris.chat.completion import SlashCompleter
        from osiris.chat.history import ScrubbedFileHistory

        bindings = KeyBindings()

        @bindings.add("escape", "enter")
        def _newline(event: KeyPressEvent) -> None:
            event.current_buffer.insert_text("\n")

        self._session: PromptSession[str] = PromptSession(
            history=ScrubbedFileHistory(history_file, scrub),
            completer=SlashCompleter(),
            complete_while_typing=False,
            key_bindings=bindings,
            multiline=False,
            prompt_continuation=lambda width, line_number, wrap_count: ".".rjust(width - 1) + " ",
        )

    def read(self) -> str:
        return self._session.prompt(PROMPT)

    def ask(self, question: str) -> str:
        from prompt_toolkit import prompt

        return prompt(question)


class PlainReader:
    """Input from a pipe or file: one line per message. The prompt is still printed, and input
    that was not typed on a terminal is echoed after it, so the output of a piped run reads
    like the terminal session it stands for."""

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None,
                 scrub: Callable[[str], str] = str) -> None:
        self._in = stdin or sys.stdin
        self._out = stdout or sys.stdout
        self._echo = not is_interactive(self._in)
        self._scrub = scrub  # the echo is output: a password in the input is masked there too

    def read(self) -> str:
        return self._line(PROMPT)

    def ask(self, question: str) -> str:
        return self._line(question)

    def _line(self, prompt: str) -> str:
        self._out.write(prompt)
        self._out.flush()
        line = self._in.readline()
        if not line:
            self._out.write("\n")
            raise EOFError
        if self._echo:
            self._out.write(self._scrub(line.rstrip("\n")) + "\n")
        return line.rstrip("\n")
