"""The sample tier in the chat: the once-per-session question, and what a tested pipeline showed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from osiris.chat.save import is_yes

if TYPE_CHECKING:
    from osiris.chat.display import Display
    from osiris.chat.progress import ChatProgress
    from osiris.chat.reader import LineReader
    from osiris.retry.result import CycleResult
    from osiris.sample.sample_run import SampleRun


class SampleQuestion:
    """Asks "Test on 10 sample rows from @mysql.default? [Y/n]" (Enter is yes), holding the status
    line meanwhile. The policy asks it at most once per session. It is given to the engine when the
    engine is built, before the chat's reader exists (the reader scrubs its history with the
    engine's redactor): the chat hands it the reader with `asks_through` once it has one."""

    def __init__(self, progress: ChatProgress) -> None:
        self.progress = progress
        self.reader: LineReader | None = None

    def asks_through(self, reader: LineReader) -> None:
        self.reader = reader

    def __call__(self, question: str) -> bool:
        with self.progress.paused():
            try:
                answer = self.reader.ask(question).strip() if self.reader is not None else "n"
            except (EOFError, KeyboardInterrupt):
                answer = "n"
        yes = answer == "" or is_yes(answer)
        display = self.progress.display
        if yes:
            display.note("Testing on sample rows in this session: writes are rolled back, nothing is kept.")
        else:
            display.note("Not testing on sample rows in this session (validation.dry_run: sample tests always).")
        return yes


def show_sample_result(display: Display, result: CycleResult, redact: Callable[[str], str]) -> None:
    """Under a valid pipeline: each step's sample rows, or why it was not tested."""
    dry_run = result.dry_run
    if dry_run is None:
        return
    if dry_run.status == "passed":
        show_previews(display, dry_run, redact)
    elif dry_run.status == "skipped":
        display.warn(f"Not tested on samples: {dry_run.reason}. The pipeline is valid but untested.")


def show_previews(display: Display, dry_run: SampleRun, redact: Callable[[str], str] = lambda text: text) -> None:
    """The previews on the chat's display: `display.table` is rich on a terminal, plain on a pipe."""
    from osiris.sample.preview import step_previews
    from osiris.text_table import ROLLED_BACK

    display.note(f"Sample run: {dry_run.rows} rows a source, writes {ROLLED_BACK}.")
    for preview in step_previews(dry_run, redact):
        if preview.headers and preview.rows:
            display.table(preview.headers, preview.rows, title=preview.title)
        else:
            display.say(preview.title)
