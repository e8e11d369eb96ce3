"""When the sample tier runs: `validation.dry_run: off | ask | sample` (docs/sample-run.md).

- `sample`: after every attempt that validates;
- `ask`: the chat asks once per session, the first time a valid pipeline reads a database or an API,
  naming what it would read ("Test on 10 sample rows from @mysql.default? [Y/n]"); the answer holds
  for the session. A pipeline that reads only local files is not tested under `ask` (there is no
  system to ask about; `sample` tests it). `osiris generate` asks nothing, so there `ask` means off;
- `off`: never.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from osiris.oml.narrow import config_of, steps_of

if TYPE_CHECKING:
    from osiris.oml.values import Config

Ask = Callable[[str], bool]
LOCAL_FAMILIES = ("@filesystem.", "@duckdb.")  # connections to local files, not to a system


class SampleRunPolicy:
    def __init__(self, mode: str, rows: int, ask: Ask | None = None) -> None:
        self.mode = mode
        self.rows = rows
        self.ask = ask  # set by an interactive caller; None: nobody can be asked
        self.answer: bool | None = None  # the session's answer to the question, once asked

    def wants_run(self, pipeline: Config) -> bool:
        """Whether to run this pipeline on samples; may ask the person (once per session)."""
        if self.mode == "sample":
            return True
        if self.mode == "off" or self.ask is None or not systems(pipeline):
            return False
        if self.answer is None:
            self.answer = self.ask(question(self.rows, sources(pipeline)))
        return self.answer


def question(rows: int, named: list[str]) -> str:
    """`Test on 10 sample rows from @mysql.default? [Y/n] `."""
    where = f" from {_joined(named)}" if named else ""
    return f"Test on {rows} sample rows{where}? [Y/n] "


def sources(pipeline: Config) -> list[str]:
    """What the read steps read, as the person knows it: a connection, a file, an API host."""
    found: list[str] = []
    for step in steps_of(pipeline):
        if step.get("mode") != "read":
            continue
        config = config_of(step)
        connection, path, url = config.get("connection"), config.get("path"), config.get("base_url")
        name = (connection if isinstance(connection, str) and connection else
                path if isinstance(path, str) and path else
                urlsplit(url).netloc if isinstance(url, str) and url else str(step.get("id")))
        if name not in found:
            found.append(name)
    return found


def systems(pipeline: Config) -> list[str]:
    """The databases and APIs a pipeline reads or writes: its connection references and API hosts."""
    found = []
    for step in steps_of(pipeline):
        config = config_of(step)
        for value in (config.get("connection"), config.get("base_url")):
            local = isinstance(value, str) and value.startswith(LOCAL_FAMILIES)
            if isinstance(value, str) and value and not local and value not in found:
                found.append(value)
    return found


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
