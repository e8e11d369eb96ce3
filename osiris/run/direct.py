"""Plain copies on a direct route: a reader's rows straight into its writer, past the engine's
DuckDB, where the bytes written are provably those of the engine's route (ADR 0165).

A *plain copy* is a read step whose output only one write step reads, and that writer reads nothing
else. On a full run (never `--sample`, whose previews come from the engine's tables) the engine
offers each plain copy whose two components have a route here. The route does the whole copy, or
declines before anything is kept, and the two steps then run through the engine as before; a run
whose every step is such a copy never starts DuckDB at all.

Routes:
- postgres.extractor -> filesystem.csv_writer (comma-separated UTF-8, LF, minimal quoting):
  PostgreSQL's `COPY ... TO STDOUT (FORMAT CSV)` straight into the file, the types and values the
  engine would write (osiris.run.drivers.postgres_csv says which, and what sends a copy back).
- postgres.extractor -> mysql.writer (`append` or `replace` into an existing table): the same COPY
  relayed as the file of MySQL's `LOAD DATA LOCAL INFILE`, where the text MySQL reads is the
  engine's (osiris.run.drivers.postgres_mysql says where, ADR 0177).
- filesystem.csv_extractor -> postgres.writer (`append` or `replace` into an existing table): the
  file's own bytes into PostgreSQL's `COPY ... FROM STDIN (FORMAT csv, HEADER)`, where every value's
  text is the one the engine would send, which DuckDB checks while PostgreSQL loads
  (osiris.run.drivers.csv_postgres says which, ADR 0203).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from osiris.problems import unwritable_file_problem
from osiris.run.driver import RuntimeProblem, StepContext
from osiris.run.fields import flag


@dataclass
class Copied:
    """A plain copy done on a direct route: the rows, and the reader's (name, DuckDB type) columns."""

    rows: int
    columns: list[tuple[str, str]]


class Failed(Exception):
    """A plain copy stopped with `problem`; `step` is the id of the step to blame."""

    def __init__(self, step: str, problem: RuntimeProblem) -> None:
        super().__init__(problem.message)
        self.step, self.problem = step, problem


Route = Callable[[StepContext, StepContext], "Copied | None"]


def plain_copies(steps: Sequence[Mapping[str, Any]], dependencies: Mapping[str, list[str]],
                 sample: int | None) -> dict[str, str]:
    """reader id -> writer id for each plain copy a route here can take."""
    if sample is not None:
        return {}
    readers: dict[str, list[str]] = {}
    for step_id, inputs in dependencies.items():
        for name in inputs:
            readers.setdefault(name, []).append(step_id)
    components = {str(step["id"]): (str(step["component"]), step.get("mode")) for step in steps}
    found = {}
    for reader, (writer, *more) in readers.items():
        if more or dependencies[writer] != [reader] or dependencies[reader]:
            continue
        (read, read_mode), (write, write_mode) = components[reader], components[writer]
        if (read, write) in ROUTES and (read_mode, write_mode) == ("read", "write"):
            found[reader] = writer
    return found


def engine_needed(steps: Sequence[Mapping[str, Any]], sample: int | None) -> bool:
    """True when the run will surely use the engine: some step is not one end of a plain copy a
    direct route may take (a route may still decline, and then the engine runs the copy)."""
    from osiris.oml.step_graph import dependencies_of

    copies = plain_copies(steps, dependencies_of(steps), sample)
    return len(steps) > 2 * len(copies)


def copy(reader: StepContext, writer: StepContext) -> Copied | None:
    """Do a plain copy on its route: Copied, or None when the route declined and nothing was kept.
    Raises Failed for the step to blame, KeyboardInterrupt as it came."""
    return ROUTES[(reader.component, writer.component)](reader, writer)


@contextmanager
def _postgres_source(reader: StepContext) -> Iterator[tuple[Any, Any, str, list[Any]]]:
    """The reader's PostgreSQL connection, a cursor on it, its query and the query's columns (psycopg's
    `cursor.description` of a LIMIT 0 run), for a route to copy from. Failed, the reader's, when the
    connection cannot be made or the query is wrong."""
    from osiris.run.drivers.postgres import DRIVER

    query = DRIVER.read_query(reader)
    try:
        with DRIVER.session(reader.config, reader.secrets) as conn, conn.cursor() as cursor:
            try:
                cursor.execute(f"SELECT * FROM ({query}) AS osiris_source LIMIT 0")
            except Exception as error:
                raise Failed(reader.step_id, DRIVER.problem(error, conn, reader.config, reader.secrets)) from None
            yield conn, cursor, query, list(cursor.description or [])
    except RuntimeProblem as problem:  # the connection could not be made
        raise Failed(reader.step_id, problem) from None


def postgres_to_csv(reader: StepContext, writer: StepContext) -> Copied | None:
    from osiris.run.drivers.filesystem import csv_output, csv_target, plain_csv
    from osiris.run.drivers.postgres import DRIVER
    from osiris.run.drivers.postgres_csv import Fallback, copy_csv, direct_select, engine_columns

    if not plain_csv(writer.config):
        return None
    with _postgres_source(reader) as (conn, cursor, query, description):
        if direct_select(description) is None or conn.info.encoding != "utf-8":
            return None
        try:
            target = csv_target(writer)
        except RuntimeProblem:  # the target's folder is missing: the engine's route says so, after the read
            return None
        try:
            with csv_output(writer, target=target) as partial, open(partial, "wb") as out:
                rows = copy_csv(cursor, conn, query, description, flag(writer.config, "header"),
                                out.write, reader.progress)
        except Fallback:
            return None
        except OSError as error:
            raise Failed(writer.step_id, unwritable_file_problem(writer.config['path'], str(error.strerror or error))) from None
        except Exception as error:
            raise Failed(reader.step_id, DRIVER.problem(error, conn, reader.config, reader.secrets)) from None
    reader.progress(rows)
    return Copied(rows, engine_columns(description))


def postgres_to_mysql(reader: StepContext, writer: StepContext) -> Copied | None:
    """osiris.run.drivers.postgres_mysql. A failure on the MySQL side (or in the middle of the relay)
    declines: nothing is kept, and the engine's route reports it in its own words."""
    from osiris.run.drivers import mysql
    from osiris.run.drivers.postgres_csv import engine_columns
    from osiris.run.drivers.postgres_mysql import direct_select, load_rows
    from osiris.run.drivers.sql_base import clear_before_write

    config, dialect = writer.config, mysql.DRIVER.dialect
    mode = str(config.get(dialect.mode_field) or "append")
    if mode not in ("append", "replace"):
        return None
    with _postgres_source(reader) as (pg, cursor, query, description):
        if pg.info.encoding != "utf-8":
            return None
        try:
            with mysql.DRIVER.session(config, writer.secrets) as conn:
                schema, table = dialect.schema(config), str(config["table"])
                found = dialect.discover(conn, schema, [table])
                select = direct_select(description, {c.name: c.type for c in found[0].columns}) if found else None
                if select is None:
                    return None
                into = f"{dialect.quote(schema)}.{dialect.quote(table)}"
                clear_before_write(dialect, conn, into, mode, config)
                rows = load_rows(conn, cursor, pg, query, select, into, [str(c.name) for c in description],
                                 reader.progress)
                if rows is None:
                    conn.rollback()
                    return None
                conn.commit()
        except Exception:
            return None
    reader.progress(rows)
    return Copied(rows, engine_columns(description))


def csv_to_postgres(reader: StepContext, writer: StepContext) -> Copied | None:
    """osiris.run.drivers.csv_postgres. Anything that goes wrong declines: nothing is kept, and the
    engine's route reads the file and reports it in its own words."""
    from osiris.run.drivers.csv_postgres import (check_query, checking, duckdb_in, engine_columns, header_is,
                                                 lands_alike, plain_reader, send_file)
    from osiris.run.drivers.filesystem import _read_options, staged_input
    from osiris.run.drivers.postgres import DRIVER
    from osiris.run.drivers.sql_base import clear_before_write
    from osiris.run.csv_output import literal

    config, dialect = writer.config, DRIVER.dialect
    mode = str(config.get(dialect.mode_field) or "append")
    if mode not in ("append", "replace") or not plain_reader(reader.config) or reader.scratch_dir is None:
        return None
    options = _read_options(reader.config)
    try:
        with staged_input(reader) as path, duckdb_in(reader.scratch_dir) as duck:
            source = literal(str(path))
            columns = engine_columns(duck, source, options)
            if columns is None or not header_is(path, [name for name, _ in columns]):
                return None
            with DRIVER.session(config, writer.secrets) as conn, conn.cursor() as cursor:
                found = dialect.discover(conn, dialect.schema(config), [str(config["table"])])
                if conn.info.encoding != "utf-8" or not found or \
                        not lands_alike(columns, {c.name: c.type for c in found[0].columns}):
                    return None
                into = dialect.table_name(config)
                clear_before_write(dialect, conn, into, mode, config)
                with checking(duck, check_query(source, options, columns)) as check:
                    rows = send_file(cursor, into, [name for name, _ in columns], path, reader.progress)
                    if check.rows() != rows:
                        conn.rollback()
                        return None
                conn.commit()
    except Exception:  # noqa: BLE001  (the engine's route runs and says what is wrong)
        return None
    reader.progress(rows)
    return Copied(rows, columns)


ROUTES: dict[tuple[str, str], Route] = {("postgres.extractor", "filesystem.csv_writer"): postgres_to_csv,
                                        ("postgres.extractor", "mysql.writer"): postgres_to_mysql,
                                        ("filesystem.csv_extractor", "postgres.writer"): csv_to_postgres}
