"""Asking where to save a pipeline, and writing it there: the default path offered, a path typed
instead, an answer that is not a path handed back as the next message, and an existing file
overwritten only on a yes (the paths and the writing itself: osiris.chat.save)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from osiris.chat.display import Display
from osiris.chat.reader import LineReader
from osiris.chat.save import is_yes, looks_like_path, save_pipeline, target_path

if TYPE_CHECKING:
    from osiris.oml.values import Config


class SaveDialog:
    """The chat's questions about saving, relative to the directory the chat was started in."""

    def __init__(self, display: Display, reader: LineReader, project_root: Path, cwd: Path) -> None:
        self.display = display
        self.reader = reader
        self.project_root = project_root
        self.cwd = cwd

    def ask_path(self, pipeline: Config | None) -> tuple[Path | None, str | None]:
        """(where to save, or None; the person's next message when the answer was not a path)."""
        default = target_path("", pipeline, self.project_root, self.cwd)
        try:
            answer = self.reader.ask(f"Save to {self.shown(default)}? [Enter = yes, n = no, or a path] ").strip()
        except (EOFError, KeyboardInterrupt):
            return None, None
        if answer.lower() in {"n", "no"}:
            self.display.note("Not saved. /save [FILE] saves it later.")
            return None, None
        if answer.lower() in {"", "y", "yes"}:
            return default, None
        if not looks_like_path(answer):
            return None, answer
        return target_path(answer, pipeline, self.project_root, self.cwd), None

    def write(self, text: str, path: Path) -> bool:
        """Write the pipeline; an existing file is overwritten only when the person says yes."""
        def confirm(existing: Path) -> bool:
            try:
                return is_yes(self.reader.ask(f"{self.shown(existing)} exists. Overwrite? [y/N] "))
            except (EOFError, KeyboardInterrupt):
                return False

        try:
            written = save_pipeline(text, path, confirm)
        except OSError as error:
            self.display.error(f"Could not save {self.shown(path)}: {error.strerror or error}")
            return False
        if written:
            self.display.success(f"Saved {self.shown(path)}")
        else:
            self.display.note("Not overwritten.")
        return written

    def shown(self, path: Path) -> str:
        """The path as the person sees it: relative to where the chat started, when it is below it."""
        try:
            return str(path.relative_to(self.cwd))
        except ValueError:
            return str(path)
