"""The contract between the engine and a driver: what a step is given and what it gives back.

A driver is one class per component family (`mysql`, `postgres`, `filesystem`, ...), in the module
`osiris.run.drivers.<family>`, exposing `DRIVER: Driver` and the family's facts, `FAMILY: Family`.
The engine imports a family's module only when a pipeline uses it, so `osiris run` pays for psycopg
or PyMySQL only when it needs them.

Rows never travel through Python lists: a reader leaves its rows in the DuckDB table
`ctx.output_table`, in batches (Arrow or DuckDB relations); a writer reads `ctx.input_tables`;
a transform runs SQL over them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from osiris.oml.values import Config, Value
from osiris.families import ColumnInfo, Family, TableInfo
from osiris.problems import RuntimeProblem

__all__ = ["ColumnInfo", "Driver", "Family", "RuntimeProblem", "StepContext", "StepOutcome", "TableInfo"]

if TYPE_CHECKING:
    import duckdb

    from osiris.trust.paths import Files


@dataclass
class StepContext:
    """Everything a driver needs to run one step."""

    step_id: str
    component: str  # e.g. "mysql.extractor"
    mode: str  # OML mode: read | write | transform
    config: Config  # step config merged with its resolved connection; holds secrets
    con: duckdb.DuckDBPyConnection  # the run's engine; every step's output lives here
    output_table: str  # `df_<id>`: where a reader or transform leaves its rows
    input_tables: Mapping[str, str]  # upstream step id -> its table name (`df_<id>`)
    sample: int | None = None  # row limit per source; None for a full run
    work_dir: Path | None = None  # where a driver keeps its working files: the run's scratch directory
    progress: Callable[[int], None] = lambda rows: None  # rows so far, for the live display
    secrets: tuple[str, ...] = ()  # this step's secret values, for redacting driver errors
    scratch_dir: Path | None = None  # the run's scratch directory, the only one DuckDB may reach; deleted after the run
    sample_dir: Path | None = None  # a sample write's output is kept here (sessions.save_samples); None: not kept
    files: Files | None = None  # where the step may read and write files (docs/security.md)
    # A writer's rows already in a table of the target database (the Spark engine stages them there,
    # docs/spark.md): the writer moves them from it; `con`'s input table then only gives the columns.
    staged_table: str | None = None
    # An incremental read (osiris.oml.incremental): (cursor column, value) to read after; None: every row.
    read_after: tuple[str, Value] | None = None
    # The project's folder (its .osiris/catalog), wherever the run started; None: the current folder.
    project_dir: Path | None = None
    # A read fused into the transform that consumes it (osiris.run.fused): the reader leaves a view
    # over its source, which the transform's query reads, instead of a table of every row.
    as_view: bool = False
    # The input steps whose reads are fused into this transform: their rows are counted from DuckDB's
    # profile of the transform's query (osiris.run.counts.scanned_rows), not from a table.
    fused_inputs: tuple[str, ...] = ()


@dataclass
class StepOutcome:
    """What a step did: rows in and out, the output's columns, and any warnings."""

    rows_in: int = 0
    rows_out: int = 0
    columns: list[tuple[str, str]] = field(default_factory=list)  # (name, DuckDB type)
    warnings: list[str] = field(default_factory=list)


class Driver(Protocol):
    """One component family's runtime."""

    def run(self, ctx: StepContext) -> StepOutcome:
        """Run one step: read into `ctx.output_table`, write from the input, or transform."""
        ...

    def discover(self, config: Config, tables: list[str] | None) -> list[TableInfo]:
        """Tables, columns, types and keys of a connection (all tables when `tables` is None).

        Families whose specs do not list the `discover` mode raise RuntimeProblem.
        """
        ...
