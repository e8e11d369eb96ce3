"""filesystem.csv_extractor and filesystem.csv_writer: DuckDB's read_csv and COPY, inside the sandbox.

Paths are relative to the project, or to the `base_dir` of the step's filesystem connection, and
are checked against the trust boundary (`ctx.files`, docs/security.md) before any file is opened.
DuckDB itself may reach only the run's scratch directory, so the driver moves files across:

- a reader links (or copies) the checked file into the scratch directory and reads it there;
- a writer has DuckDB COPY into the scratch directory, then renames the finished file onto the
  target in one step, so a failure or Ctrl-C leaves the target as it was, and two runs writing one
  target never mix their rows. Both reach the project's folders through handles that refuse links
  (osiris.trust.handles), so a folder swapped for a link after the check redirects nothing. On
  `--sample` the real target is checked but never written: the file is kept in the session
  (`ctx.sample_dir`, with `sessions.save_samples: true`) or dropped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.oml.values import Config, Value
from osiris.run.driver import Family, RuntimeProblem, StepContext, StepOutcome, TableInfo
from osiris.run.counts import row_count
from osiris.run.csv_columns import header_index, kept_columns, lines_skipped, refuse_repeated_header
from osiris.run.csv_input import exact_view, read_exactly
from osiris.run.csv_output import CsvFormat, literal
from osiris.run.fields import flag, mapping, optional_integer, text, texts
from osiris.problems import file_column_problem, no_directory_problem, unknown_dtype_column_problem, unreadable_file_problem
from osiris.run.problems import file_problem, inputs_problem, masked, out_of_memory
from osiris.run.spool import CSV_BUFFER_BYTES, quote_ident
from osiris.suggest import did_you_mean, listing
from osiris.trust.disclosure import conversion_problem
from osiris.trust.paths import OSIRIS_DIR, SETTINGS_FILE, Files, sample_file, sample_name
from osiris.trust.sandbox import output_file, place

if TYPE_CHECKING:
    import duckdb

DUCKDB_TYPE_NAMES = "VARCHAR, BIGINT, INTEGER, DOUBLE, DECIMAL(18,2), BOOLEAN, DATE, TIMESTAMP"
PANDAS_TYPES = {"str": "VARCHAR", "string": "VARCHAR", "object": "VARCHAR", "int": "BIGINT", "int64": "BIGINT",
                "int32": "INTEGER", "float": "DOUBLE", "float64": "DOUBLE", "float32": "FLOAT", "bool": "BOOLEAN",
                "datetime64": "TIMESTAMP", "datetime64[ns]": "TIMESTAMP", "category": "VARCHAR"}
_UNKNOWN_TYPE = re.compile(r"Type with name (\S+) does not exist")


class FilesystemDriver:
    def run(self, ctx: StepContext) -> StepOutcome:
        files = ctx.files or _files_of(ctx.config)
        if ctx.component == "filesystem.csv_extractor":
            return self._read(ctx, files)
        return self._write(ctx, files)

    def discover(self, config: Config, tables: list[str] | None) -> list[TableInfo]:
        """`osiris discover @filesystem.alias FILE...`: the person names the files, so there is no
        pipeline to distrust. Each is sniffed as `osiris discover FILE.csv` sniffs it: a file DuckDB
        cannot read, or whose header names a column twice (OML540's words), is a problem, not a table."""
        from osiris.catalog.csv_file import sniff_csv

        names = tables or [str(config["path"])]
        found = []
        for name in names:
            given = Path(name).expanduser()
            path = given if given.is_absolute() else Path(str(config.get("base_dir") or ".")) / given
            path = _existing(path, name, _files_of(config))
            found.append(TableInfo(name, sniff_csv(path, Path(name)).columns))
        return found

    def _read(self, ctx: StepContext, files: Files) -> StepOutcome:
        from osiris.duckdb_core import duckdb

        config, shown = ctx.config, str(ctx.config["path"])
        limits = [n for n in (optional_integer(config, "limit"), ctx.sample) if n is not None]
        limit = f" LIMIT {min(limits)}" if limits else ""
        typed = mapping(config, "dtype")
        if ctx.as_view:  # fused into its transform: the file stays staged until the run's scratch goes
            path = _existing(files.resolve(shown), shown, files)
            source = files.stage(path, ctx.scratch_dir, shown) if ctx.scratch_dir is not None else path
            whole = f"osiris_file_{ctx.output_table}" if config.get("columns") else ctx.output_table  # not df_<id>
            try:
                columns = exact_view(ctx.con, quote_ident(whole), literal(str(source)),
                                     lambda types, sniffed=None: _read_options(config, types, sniffed), typed)
            except duckdb.Error as error:
                raise _read_problem(shown, config, masked(str(error), ctx.secrets)) from None
            columns = _kept(ctx, whole, columns, "VIEW", literal(str(source)))
            return StepOutcome(rows_in=0, rows_out=0, columns=columns)  # counted by the transform (osiris.run.fused)
        with staged_input(ctx, files) as source:
            try:
                read_exactly(ctx.con, quote_ident(ctx.output_table), literal(str(source)),
                             lambda types, sniffed=None: _read_options(config, types, sniffed), "" if ctx.read_after else limit, typed)
                if ctx.read_after is not None:
                    _keep_after(ctx, *ctx.read_after, limit)
                table = quote_ident(ctx.output_table)
                _kept(ctx, ctx.output_table, ctx.con.execute(f"DESCRIBE {table}").fetchall(), "TABLE",
                      literal(str(source)))
            except duckdb.OutOfMemoryException as error:
                raise out_of_memory(error) from None
            except duckdb.Error as error:
                raise _read_problem(shown, config, masked(str(error), ctx.secrets)) from None
        rows = row_count(ctx.con, ctx.output_table)
        ctx.progress(rows)
        return StepOutcome(rows_in=rows, rows_out=rows)

    def _write(self, ctx: StepContext, files: Files) -> StepOutcome:
        config = ctx.config
        (source,) = ctx.input_tables.values() if len(ctx.input_tables) == 1 else (_one_input(ctx),)
        columns = [(str(r[0]), str(r[1])) for r in ctx.con.execute(f"DESCRIBE {quote_ident(source)}").fetchall()]
        form = CsvFormat(config, columns)
        with csv_output(ctx, files) as finished:
            copied = finished.with_name(finished.name + "-utf8") if form.second_pass else finished
            try:
                ctx.con.execute(f"COPY (SELECT {form.select_list()} FROM {quote_ident(source)}) "
                                f"TO {literal(str(copied))} ({form.copy_options()})")
                if form.second_pass:
                    form.finish(copied, finished)
            finally:
                if copied != finished:
                    copied.unlink(missing_ok=True)
        rows = row_count(ctx.con, source)
        ctx.progress(rows)
        return StepOutcome(rows_in=rows, rows_out=rows)


@contextmanager
def staged_input(ctx: StepContext, files: Files | None = None) -> Iterator[Path]:
    """A csv_extractor step's file, checked against the trust boundary and brought into the run's
    scratch directory (where DuckDB may read it), removed from there when the block ends."""
    files = files or ctx.files or _files_of(ctx.config)
    shown = str(ctx.config["path"])
    path = _existing(files.resolve(shown), shown, files)
    source = files.stage(path, ctx.scratch_dir, shown) if ctx.scratch_dir is not None else path
    try:
        yield source
    finally:
        if source != path:
            source.unlink(missing_ok=True)


@contextmanager
def csv_output(ctx: StepContext, files: Files | None = None, target: Path | None = None) -> Iterator[Path]:
    """The file a csv_writer step fills, in the run's scratch directory: when the block ends without
    an error it is kept whole, in one rename (`_keep`), so a failure or Ctrl-C leaves the target as
    it was. `target`: the step's `csv_target`, when the caller has checked it already."""
    files = files or ctx.files or _files_of(ctx.config)
    target = target or csv_target(ctx, files)
    finished = output_file(ctx.scratch_dir or target.parent, target)
    try:
        yield finished
        _keep(finished, target, ctx, files)
    finally:
        finished.unlink(missing_ok=True)


def _keep_after(ctx: StepContext, cursor: str, value: Value, limit: str) -> None:
    """An incremental read (docs/run-again.md): keep the rows whose cursor is greater than `value`,
    a bound parameter, then the row limit. A cursor the file lacks is OML502 naming its columns."""
    table = quote_ident(ctx.output_table)
    columns = [str(row[0]) for row in ctx.con.execute(f"DESCRIBE {table}").fetchall()]
    if cursor not in columns:
        raise file_column_problem(cursor, columns, str(ctx.config["path"]))
    ctx.con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM {table} WHERE {quote_ident(cursor)} > ?{limit}",
                    [value])


def _kept(ctx: StepContext, whole: str, described: Sequence[Sequence[object]], kind: str,
          source: str) -> list[tuple[str, str]]:
    """The step's output (`kind`: VIEW or TABLE) as the file's columns `described` (DuckDB's
    DESCRIBE rows of `whole`) the step keeps (osiris.run.csv_columns); those (name, type) columns.
    OML540 when the file `source` (a literal) names a column twice in its header."""
    found = [(str(row[0]), str(row[1])) for row in described]
    names, shown = [name for name, _ in found], str(ctx.config["path"])
    refuse_repeated_header(ctx.config, names, lambda: header_row(ctx.con, source, ctx.config), shown)
    kept = kept_columns(ctx.config, names, shown)
    if kept is None and whole == ctx.output_table:
        return found
    names = kept if kept is not None else [name for name, _ in found]
    ctx.con.execute(f"CREATE OR REPLACE {kind} {quote_ident(ctx.output_table)} AS "
                    f"SELECT {', '.join(quote_ident(n) for n in names)} FROM {quote_ident(whole)}")
    types = dict(found)
    return [(name, types[name]) for name in names]


def header_row(con: duckdb.DuckDBPyConnection, source: str, config: Config) -> list[str]:
    """The header row of the file `source` (a literal) as text, as it stands: DuckDB renames a
    repeated name when it reads the header (osiris.run.csv_columns.refuse_repeated_header)."""
    plain = {**config, "header": False, "dtype": {}, "skip_rows": lines_skipped(config)}
    row = con.execute(f"SELECT * FROM read_csv({source}{_read_options(plain)}, all_varchar = true) LIMIT 1").fetchone()
    return [str(value) for value in row or ()]


def csv_target(ctx: StepContext, files: Files | None = None) -> Path:
    """A csv_writer step's target file, checked against the trust boundary (on a sample run too:
    consent never widens it), its folder made (`create_dirs`, the default; not on a sample) or found."""
    config, shown = ctx.config, str(ctx.config["path"])
    files = files or ctx.files or _files_of(config)
    target = files.resolve(shown, write=True)
    if flag(config, "create_dirs"):
        if ctx.sample is None:
            files.make_folders(target, shown)
    elif not target.parent.is_dir():
        raise no_directory_problem(shown)
    return target


def plain_csv(config: Config) -> bool:
    """A writer whose file is comma-separated UTF-8 with LF line ends and minimal quoting: the bytes
    PostgreSQL's COPY (FORMAT CSV) writes too (osiris.run.direct)."""
    form = CsvFormat(config, [])
    return (form.delimiter, form.quoting, form.encoding, form.newline) == (",", "minimal", "utf-8", "\n")


def _keep(finished: Path, target: Path, ctx: StepContext, files: Files) -> None:
    """A real run's file goes onto its target (through link-refusing handles, osiris.trust.handles);
    a sample's into the session, or nowhere."""
    if ctx.sample is None:
        files.place(finished, target, str(ctx.config["path"]))
    elif ctx.sample_dir is not None:
        folder = ctx.sample_dir / "sample-output" / sample_name(ctx.step_id)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        kept = folder / sample_file(str(ctx.config["path"]))
        place(finished, kept)
        os.chmod(kept, 0o600)


def _files_of(config: Config) -> Files:
    """The boundary of a step run without the engine (a driver test, `osiris discover`): its base_dir."""
    root = Path(str(config.get("base_dir") or ".")).expanduser()
    return Files.at(root, (root / SETTINGS_FILE, root / OSIRIS_DIR))


def _one_input(ctx: StepContext) -> str:
    raise inputs_problem("CSV writer", len(ctx.input_tables))


def _existing(path: Path, shown: str, files: Files) -> Path:
    if path.is_file():
        return path
    folder = path.parent
    listed = folder.is_dir() and files.shows(folder)
    nearby = sorted(p.name for p in folder.iterdir() if p.is_file() and files.shows(p)) if listed else []
    hint = (f"files in {folder.name or folder}: {listing(nearby)}{did_you_mean(path.name, nearby)}" if nearby
            else f"the folder {Path(shown).parent} does not exist or is empty; paths are relative to the project "
                 "(or base_dir)")
    raise file_problem(shown, hint)


def _read_problem(shown: str, config: Config, text: str) -> RuntimeProblem:
    """Why DuckDB could not read the file, in names and types: never a line of it."""
    unknown = _UNKNOWN_TYPE.search(text)
    if unknown:
        name = unknown.group(1).strip("\"'")
        instead = PANDAS_TYPES.get(name.lower())
        return unreadable_file_problem(
            shown, f"dtype names the type '{name}', which DuckDB does not know",
            (f"write {instead} for '{name}'; " if instead else "") + f"dtype takes DuckDB type names: {DUCKDB_TYPE_NAMES}",
            value=name)
    if "COLUMN_TYPES error" in text:  # DuckDB's text withholds the names: they are the step's own
        typed = sorted(mapping(config, "dtype"))
        return unknown_dtype_column_problem(shown, typed)
    detail = conversion_problem(text)  # DuckDB's words: filtered there (docs/security.md)
    hint = ("set dtype for that column to a type its values fit (VARCHAR reads anything), or clean the file"
            if "does not convert" in detail else "check delimiter, header and encoding for this file")
    return unreadable_file_problem(shown, detail, hint)


def _read_options(config: Config, exact: Mapping[str, str] | None = None, sniffed: Mapping[str, str] | None = None) -> str:
    """read_csv's options; `exact`: column types that keep numbers exact (osiris/run/csv_input.py);
    `sniffed`: the file's sniffed dialect and columns, for a read that does not sniff it again (the
    step's own options win; its dtype is in the columns). A quoted empty field is '', an unquoted one
    NULL, as csv_writer writes them."""
    parts = [f"buffer_size = {CSV_BUFFER_BYTES}", f"delim = {literal(text(config, 'delimiter'))}",
             f"header = {'false' if header_index(config) is None else 'true'}", "allow_quoted_nulls = false"]
    skip = lines_skipped(config)
    if skip:
        parts.append(f"skip = {skip}")
    if config.get("comment"):
        parts.append(f"comment = {literal(str(config['comment']))}")
    encoding = text(config, "encoding").lower()
    if encoding not in ("utf-8", "ascii"):
        parts.append(f"encoding = {literal(encoding.replace('iso-8859-1', 'latin-1'))}")
    if config.get("compression") and config["compression"] != "infer":
        parts.append(f"compression = {literal(str(config['compression']))}")
    if config.get("na_values"):
        parts.append("nullstr = [" + ", ".join(literal(v) for v in texts(config, "na_values")) + "]")
    types = {**(exact or {}), **mapping(config, "dtype")}
    if sniffed is not None:
        given = {part.split(" = ", 1)[0] for part in parts}
        parts += [f"{name} = {value}" for name, value in sniffed.items() if name not in given]
    elif types:
        parts.append("types = {" + ", ".join(f"{literal(str(k))}: {literal(str(v))}" for k, v in types.items()) + "}")
    return ", " + ", ".join(parts)


DRIVER = FilesystemDriver()
FAMILY = Family("filesystem", "CSV files", ("filesystem.csv_extractor", "filesystem.csv_writer"), kind="files",
                discoverable=True, endpoints=("base_dir",))
