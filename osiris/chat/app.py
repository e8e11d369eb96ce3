"""Putting a chat together: display, input, engine, optional resume; then the loop."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from osiris.chat.display import RedactedDisplay, make_display
from osiris.chat.loop import ChatLoop
from osiris.chat.progress import ChatProgress
from osiris.chat.reader import LineReader, PlainReader, TerminalReader
from osiris.chat.sample import SampleQuestion
from osiris.chat.terminal import is_interactive
from osiris.chat.warm_up import warm_up_in_background

if TYPE_CHECKING:
    from osiris.chat.display import Display
    from osiris.retry.generation_engine import GenerationEngine
    from osiris.secrets.redact import Redactor
    from osiris.settings.loader import EffectiveSettings

HISTORY_FILE = "history"


def start_chat(
    effective: EffectiveSettings,
    *,
    resume: str | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Run `osiris chat` with these settings; returns the exit code."""
    from osiris.retry import open_engine

    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    sessions_root = effective.resolve_path(effective.settings.sessions.dir)
    display = make_display(stdout, effective.env)
    progress = ChatProgress(display)
    question = SampleQuestion(progress)  # validation.dry_run: ask asks the person once
    # A bad --resume id fails here, before anything is written.
    engine = open_engine(effective, command="chat", observer=progress, may_ask=True, resume=resume,
                         ask_before_sample=question)
    display = progress.display = RedactedDisplay(display, engine.session.redactor.text)
    reader = make_reader(stdin, stdout, sessions_root.parent / HISTORY_FILE, engine.session.redactor)
    question.asks_through(reader)
    if isinstance(reader, TerminalReader):  # someone types: import the SDK meanwhile (piped input is there at once)
        warm_up_in_background(engine.provider)
    loop = ChatLoop(
        engine, display, reader, progress,
        project_root=effective.project_root, cwd=Path.cwd(), env=effective.env,
    )
    greet(display, engine)
    if resume:
        show_resumed(display, engine)
    return loop.run()


def make_reader(stdin: TextIO, stdout: TextIO, history_file: Path, redactor: Redactor) -> LineReader:
    """prompt_toolkit when both ends are a terminal (its history scrubbed like requests are);
    plain lines otherwise."""
    if is_interactive(stdin) and is_interactive(stdout):
        from osiris.request import scrub_request

        return TerminalReader(history_file, lambda text: scrub_request(text, redactor).text)
    return PlainReader(stdin, stdout, scrub=redactor.text)


def greet(display: Display, engine: GenerationEngine) -> None:
    retries = engine.config.max_attempts
    strict = " (strict mode)" if retries == 0 else ""
    display.say(
        f"Osiris chat — {engine.provider.name} ({engine.provider.model}), "
        f"{retries} retr{'y' if retries == 1 else 'ies'}{strict}."
    )
    display.note(f"Session {engine.session.id}. Describe the pipeline you want; /help lists commands, "
                 "Ctrl-D or /exit ends.")


def show_resumed(display: Display, engine: GenerationEngine) -> None:
    """What carries on: the session (same directory, same totals) and its current pipeline."""
    display.say(f"Resumed session {engine.session.id}: the conversation carries on.")
    if engine.current_oml:
        display.say("Current pipeline:")
        display.yaml(engine.current_oml)
