"""Where the chat writes: a plain-line display for pipes and NO_COLOR, a rich one for terminals.

Both have the same methods, so the rest of the chat never asks which one it has.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Protocol, TextIO

from osiris.chat.terminal import wants_fancy_output
from osiris.text_table import format_table, printable


class Status(Protocol):
    def update(self, text: str) -> None: ...
    def pause(self) -> contextlib.AbstractContextManager[None]: ...


class Display(Protocol):
    """What the chat can show."""

    fancy: bool

    def say(self, text: str = "") -> None: ...
    def note(self, text: str) -> None: ...
    def success(self, text: str) -> None: ...
    def warn(self, text: str) -> None: ...
    def error(self, text: str) -> None: ...
    def yaml(self, text: str) -> None: ...
    def table(self, headers: Sequence[str], rows: Sequence[Sequence[object]], title: str = "") -> None: ...
    def status(self, text: str) -> contextlib.AbstractContextManager[Status]: ...
    def redact(self, text: str) -> str: ...


def make_display(stream: TextIO, env: Mapping[str, str] | None = None) -> Display:
    """A rich display on a terminal without NO_COLOR; plain lines otherwise."""
    if wants_fancy_output(stream, env):
        from osiris.chat.rich_display import RichDisplay

        return RichDisplay(stream)
    return PlainDisplay(stream)


class _PlainStatus:
    """On a pipe, each new status is one line; repeats are not printed again."""

    def __init__(self, display: PlainDisplay, text: str) -> None:
        self._display = display
        self._last = ""
        self.update(text)

    def update(self, text: str) -> None:
        if text != self._last:
            self._display.say(text)
            self._last = text

    @contextlib.contextmanager
    def pause(self) -> Iterator[None]:
        yield  # a plain line needs no clearing before a question


class PlainDisplay:
    """Plain text, one line at a time, flushed: no colours, no spinner, no cursor tricks."""

    fancy = False

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def say(self, text: str = "") -> None:
        self._stream.write(text + "\n")
        self._stream.flush()

    def note(self, text: str) -> None:
        self.say(text)

    def success(self, text: str) -> None:
        self.say(text)

    def warn(self, text: str) -> None:
        self.say(text)

    def error(self, text: str) -> None:
        self.say(text)

    def yaml(self, text: str) -> None:
        self.say(text.rstrip("\n"))

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[object]], title: str = "") -> None:
        if title:
            self.say(title)
        for line in format_table(headers, rows):
            self.say(line)

    @contextlib.contextmanager
    def status(self, text: str) -> Iterator[Status]:
        yield _PlainStatus(self, text)

    def redact(self, text: str) -> str:
        return text  # RedactedDisplay masks; a bare display shows text as it is


class _RedactedStatus:
    def __init__(self, status: Status, redact: Callable[[str], str]) -> None:
        self._status, self._redact = status, redact

    def update(self, text: str) -> None:
        self._status.update(self._redact(text))

    def pause(self) -> contextlib.AbstractContextManager[None]:
        return self._status.pause()


class RedactedDisplay:
    """Any display, with every text passed through `redact` first (docs/sessions.md, "What Osiris
    masks"): a secret echoed into an error message or a pipeline is masked on the screen as it is
    in the session. Then control characters other than line ends and tabs are shown as escapes
    (osiris.text_table.printable): a value from a server or an answer never drives the terminal."""

    def __init__(self, display: Display, redact: Callable[[str], str]) -> None:
        self._display = display
        self._redact: Callable[[str], str] = lambda text: printable(redact(text), keep="\n\t")
        self.fancy = display.fancy

    def redact(self, text: str) -> str:
        """Mask a whole text at once (a pipeline whose lines are then shown a few at a time)."""
        return self._redact(text)

    def say(self, text: str = "") -> None:
        self._display.say(self._redact(text))

    def note(self, text: str) -> None:
        self._display.note(self._redact(text))

    def success(self, text: str) -> None:
        self._display.success(self._redact(text))

    def warn(self, text: str) -> None:
        self._display.warn(self._redact(text))

    def error(self, text: str) -> None:
        self._display.error(self._redact(text))

    def yaml(self, text: str) -> None:
        self._display.yaml(self._redact(text))

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[object]], title: str = "") -> None:
        shown = [[self._redact(str(cell)) for cell in row] for row in rows]
        self._display.table(headers, shown, title=self._redact(title))

    @contextlib.contextmanager
    def status(self, text: str) -> Iterator[Status]:
        with self._display.status(self._redact(text)) as status:
            yield _RedactedStatus(status, self._redact)
