"""Exit codes (README, "Exit codes") and the exceptions that carry them: the one place they are mapped.

Code anywhere in Osiris raises an `OsirisError` subclass for an expected failure; `osiris.cli.main`
turns it into one line on stderr and the exit code below. No traceback is shown for these.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    INVALID = 1  # pipeline invalid (validate) or still invalid after retries
    USAGE = 2  # usage or settings error
    LLM_AUTH = 3  # LLM authentication or permission error
    LLM_UNAVAILABLE = 4  # LLM service unavailable after its retries
    INTERNAL = 5
    RUN_FAILED = 6  # a pipeline run failed at run time (`osiris run`)
    BUSY = 7  # another run of the same pipeline is running (`osiris run`, docs/run-again.md)
    INTERRUPTED = 130


class OsirisError(Exception):
    """An expected failure: its message is shown as one line, its exit code is returned."""

    exit_code: ExitCode = ExitCode.INTERNAL


class UsageError(OsirisError):
    """The command line was wrong, or a command is not available."""

    exit_code = ExitCode.USAGE


class SettingsError(UsageError):
    """A setting is bad: the message names its source, key, value and what is allowed."""


class PipelineInvalidError(OsirisError):
    """The pipeline did not validate (after any retries)."""

    exit_code = ExitCode.INVALID


class FileWriteError(OsirisError):
    """A file Osiris keeps (session trail, pipeline) could not be written: disk full, permissions."""

    def __init__(self, path: object, error: OSError) -> None:
        super().__init__(f"cannot write {path}: {error.strerror or error}")


class LLMAuthError(OsirisError):
    """The LLM service rejected the key, or the key lacks permission."""

    exit_code = ExitCode.LLM_AUTH


class LLMUnavailableError(OsirisError):
    """The LLM service stayed unavailable after its retries."""

    exit_code = ExitCode.LLM_UNAVAILABLE


class RunFailedError(OsirisError):
    """A pipeline validated but failed while running: a step raised an OML5xx problem."""

    exit_code = ExitCode.RUN_FAILED


class RunInternalError(RunFailedError):
    """A run stopped at an error no driver maps (OML105): a bug in Osiris, not in the pipeline."""

    exit_code = ExitCode.INTERNAL


def where_raised(error: BaseException) -> str:
    """'KeyError in osiris/validate/sql.py:120': the exception's type and the last line of Osiris it
    passed, never its text (which may quote a value from a pipeline or a server, a secret included)."""
    import traceback
    from pathlib import Path

    package = Path(__file__).parent
    ours = [frame for frame in traceback.extract_tb(error.__traceback__)
            if Path(frame.filename).is_relative_to(package)]
    if not ours:
        return type(error).__name__
    module = Path(ours[-1].filename).relative_to(package.parent).as_posix()
    return f"{type(error).__name__} in {module}:{ours[-1].lineno}"
