"""What a run is given and what it gives back: its options, each step's result, the run's result,
and the listener that hears each step start, progress and finish (osiris.run.duckdb_run)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from osiris.oml.values import Config, Value
from osiris.run.connections import Connections
from osiris.run.deadline import RunLimit
from osiris.run.driver import RuntimeProblem
from osiris.run.targets import WriteTarget, write_target
from osiris.trust.boundary import Boundary

if TYPE_CHECKING:
    from osiris.oml.config import StepConfig

SAMPLE_PREVIEW_ROWS = 5


Redact = Callable[[list[object]], list[object]]
"""What masks a preview row or its column names (the session's `Redactor.data`): a copy, masked."""


@dataclass
class RunOptions:
    connections: Connections
    env: Mapping[str, str]
    base_dir: Path  # the project directory: relative file paths start here, and files stay inside it
    sample: int | None = None
    sample_dir: Path | None = None  # sample CSV output is kept here (sessions.save_samples); None: not kept
    secret_fields: Callable[[str], set[str]] = lambda component: set()
    preview_rows: int = SAMPLE_PREVIEW_ROWS
    boundary: Boundary | None = None  # None: the project's own, with the built-in specs' endpoint fields
    redact: Redact = lambda values: values  # sample preview rows and their names pass through it
    limit: RunLimit | None = None  # the run's deadline and stop button (osiris.run.deadline); None: none
    threads: int | None = None  # the engine's DuckDB threads (run.threads); None: the machine's cores
    memory_limit_mb: int | None = None  # its memory cap (run.memory_limit); None: a quarter of the machine's

    # step id -> (cursor column, value) for an incremental read (osiris.oml.incremental); none: every row
    read_after: Mapping[str, tuple[str, Value]] = field(default_factory=dict)

    @property
    def trust(self) -> Boundary:
        return self.boundary or Boundary(self.base_dir)
    step_configs: Mapping[str, StepConfig] = field(default_factory=dict)  # from validation: spec defaults


@dataclass
class StepResult:
    step_id: str
    component: str
    mode: str
    status: str = "pending"  # ok | failed | skipped | interrupted
    rows_in: int = 0
    rows_out: int = 0
    duration_ms: float = 0.0
    columns: list[tuple[str, str]] = field(default_factory=list)
    text_numbers: list[str] = field(default_factory=list)  # columns holding numbers as their exact text
    warnings: list[RuntimeProblem] = field(default_factory=list)
    problem: RuntimeProblem | None = None
    skipped_because: str | None = None  # the step whose failure kept this one from running
    halted: bool = False  # skipped_because is not an input: the whole run stopped there (a check, a plan)
    preview: tuple[list[str], list[tuple[object, ...]]] | None = None  # sample rows, for the display
    target: WriteTarget | None = None  # a writer's table or file (osiris.run.targets)
    watermark: int | str | None = None  # an incremental read's highest cursor value read (None: no row)
    fused_into: str | None = None  # a read run by this transform's query; its rows are DuckDB's count (osiris.run.fused)
    route: str | None = None  # "direct": a plain copy done past the engine (osiris.run.direct); None: the engine's


@dataclass
class RunResult:
    steps: list[StepResult]
    interrupted: bool = False

    @property
    def ok(self) -> bool:
        return not self.interrupted and all(step.status == "ok" for step in self.steps)


class RunListener(Protocol):
    def step_started(self, step: StepResult) -> None: ...
    def step_progress(self, step: StepResult, rows: int) -> None: ...
    def step_finished(self, step: StepResult) -> None: ...



def pending_result(step: Config) -> StepResult:
    return StepResult(str(step["id"]), str(step["component"]), str(step.get("mode", "")), target=write_target(step))

