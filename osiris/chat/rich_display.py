"""The terminal display: a spinner while waiting, highlighted YAML, coloured notices, tables."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TextIO

from osiris.chat.display import Status

from rich.console import Console
from rich.status import Status as RichStatus
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text


class RichDisplay:
    """Same methods as `PlainDisplay`; only used on a terminal without NO_COLOR."""

    fancy = True

    def __init__(self, stream: TextIO) -> None:
        self.console = Console(file=stream, highlight=False, soft_wrap=True)

    def say(self, text: str = "") -> None:
        self.console.print(Text(text))

    def note(self, text: str) -> None:
        self.console.print(Text(text, style="dim"))

    def success(self, text: str) -> None:
        self.console.print(Text(text, style="bold green"))

    def warn(self, text: str) -> None:
        self.console.print(Text(text, style="yellow"))

    def error(self, text: str) -> None:
        self.console.print(Text(text, style="red"))

    def redact(self, text: str) -> str:
        return text  # RedactedDisplay masks; a bare display shows text as it is

    def yaml(self, text: str) -> None:
        self.console.print(Syntax(text.rstrip("\n"), "yaml", theme="ansi_dark", background_color="default"))

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[object]], title: str = "") -> None:
        table = Table(*headers, title=title or None, title_justify="left")
        for row in rows:
            table.add_row(*(Text(str(cell)) for cell in row))
        self.console.print(table)

    @contextlib.contextmanager
    def status(self, text: str) -> Iterator[Status]:
        with self.console.status(escape(text), spinner="dots") as status:
            yield _RichStatus(status)


class _RichStatus:
    def __init__(self, status: RichStatus) -> None:
        self._status = status

    def update(self, text: str) -> None:
        self._status.update(escape(text))

    @contextlib.contextmanager
    def pause(self) -> Iterator[None]:
        """Stop the spinner while the person answers a question, then start it again."""
        self._status.stop()
        try:
            yield
        finally:
            self._status.start()
