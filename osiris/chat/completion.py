"""Tab completion for the chat prompt: slash command names, and file paths after `/save `."""

from __future__ import annotations

from collections.abc import Iterable

from prompt_toolkit.completion import (
    CompleteEvent,
    Completer,
    Completion,
    PathCompleter,
)
from prompt_toolkit.document import Document

from osiris.chat.slash import COMMANDS


class SlashCompleter(Completer):
    """Completes `/sa` to `/save`; completes the FILE of `/save FILE` as a path."""

    def __init__(self) -> None:
        self._paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or "\n" in text:
            return
        if " " not in text:
            for command in COMMANDS:
                word = "/" + command.name
                if word.startswith(text):
                    yield Completion(word, start_position=-len(text), display_meta=command.summary)
            return
        name, _, argument = text.partition(" ")
        if name == "/save":
            yield from self._paths.get_completions(Document(argument, len(argument)), complete_event)
