"""The sample tier in the chat: the once-per-session question, and what a tested pipeline showed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from osiris.chat.save import is_yes

if TYPE_CHECKING:
    from osiris.chat.display import Display
    from osiris.retry.result import CycleResult


class SampleQuestion:
    """Asks "Test on 10 sample rows from @mysql.default? [Y/n]" (Enter is yes), holding the status
    line meanwhile. The policy asks it at most once per session."""

    def __init__(self, display: Display, reader: Any, progress: Any) -> None:
        self.display, self.reader, self.progress = display, reader, progress

    def __call__(self, question: str) -> bool:
        with self.progress.paused():
            try:
                answer = self.reader.ask(question).strip()
            except (EOFError, KeyboardInterrupt):
                answer = "n"
        yes = answer == "" or is_yes(answer)
        if yes:
            self.display.note("Testing on sample rows in this session: writes are rolled back, nothing is kept.")
        else:
            self.display.note("Not testing on sample rows in this session (validation.dry_run: sample tests always).")
        return yes


def show_sample_result(display: Display, result: CycleResult, redact: Callable[[str], str]) -> None:
    """Under a valid pipeline: each step's sample rows, or why it was not tested."""
    from osiris.sample.preview import show_previews

    dry_run = result.dry_run
    if dry_run is None:
        return
    if dry_run.status == "passed":
        show_previews(display, dry_run, redact)
    elif dry_run.status == "skipped":
        display.warn(f"Not tested on samples: {dry_run.reason}. The pipeline is valid but untested.")
