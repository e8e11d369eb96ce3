"""Saving the accepted pipeline: by default to pipelines/<name>.yaml; overwriting asks first."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from collections.abc import Callable
from pathlib import Path

from osiris.output_path import OutputPathError, output_problem, write_output

if TYPE_CHECKING:
    from osiris.oml.values import Config

DEFAULT_DIR = "pipelines"


def default_path(pipeline: Config | None, project_root: Path) -> Path:
    """pipelines/<name>.yaml under the project root; the name is made safe for a file name."""
    name = str((pipeline or {}).get("name") or "pipeline")
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip(".-") or "pipeline"
    return project_root / DEFAULT_DIR / f"{safe}.yaml"


def draft_path(pipeline: Config | None, project_root: Path) -> Path:
    """pipelines/<name>.draft.yaml: an invalid pipeline kept on request, named so."""
    default = default_path(pipeline, project_root)
    return default.with_name(default.stem + ".draft.yaml")


def draft_text(text: str, error_count: int) -> str:
    """The draft with a first line saying what it is, so nobody takes it for a valid pipeline."""
    plural = "s" if error_count != 1 else ""
    return f"# DRAFT: this pipeline does not validate yet ({error_count} error{plural}); " \
           f"osiris validate lists them.\n{text}"


def looks_like_path(answer: str) -> bool:
    """At the save prompt, only a path-like answer is a file name: a separator or a YAML suffix.
    Anything else ("now also filter on country = DE") is the person's next message."""
    return "/" in answer or answer.lower().endswith((".yaml", ".yml"))


def target_path(argument: str, pipeline: Config | None, project_root: Path, cwd: Path) -> Path:
    """Where `/save [FILE]` writes: FILE relative to the current directory, else the default."""
    if argument:
        path = Path(argument).expanduser()
        return path if path.is_absolute() else cwd / path
    return default_path(pipeline, project_root)


def save_pipeline(text: str, path: Path, confirm_overwrite: Callable[[Path], bool]) -> bool:
    """Write `text` to `path`, creating folders. An existing file is replaced only when
    `confirm_overwrite(path)` says yes. Returns whether the file was written. Raises
    OutputPathError (an OSError) for a path that cannot be written: a link, a directory, ..."""
    problem = output_problem(path)
    if problem:
        raise OutputPathError(problem)
    if path.exists() and not confirm_overwrite(path):
        return False
    write_output(path, text if text.endswith("\n") else text + "\n")
    return True


def is_yes(answer: str) -> bool:
    return answer.strip().lower() in {"y", "yes"}
