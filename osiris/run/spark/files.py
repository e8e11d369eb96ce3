"""CSV files on the Spark engine: read with Spark's reader, written as ONE file (docs/spark.md).

Paths are checked against the trust boundary first, as on DuckDB (docs/security.md). The same
options as on DuckDB: DuckDB sniffs the file's columns and types with the options the
DuckDB engine uses, and Spark reads it with that schema (and fails, never guesses, on a value that
does not fit). A write goes through one task into a folder of the run's scratch directory; its one
part file becomes the target by an atomic rename, after the same second pass as on DuckDB for
other encodings (osiris.run.csv_output). Spark's CSV options that have no DuckDB twin are refused
at validation (osiris.run.spark.transpile).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from osiris.run.csv_columns import header_index, kept_columns, refuse_repeated_header
from osiris.run.csv_output import CsvFormat, literal
from osiris.run.fields import flag, text
from osiris.problems import no_directory_problem, unreadable_file_problem
from osiris.run.problems import redacted
from osiris.run.spark.columns import parsed_texts
from osiris.run.spark.nested_json import json_text
from osiris.run.spark.types import duckdb_columns, spark_ddl
from osiris.trust.paths import sample_file, sample_name

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from osiris.trust.paths import Files

_TIMESTAMPS = "yyyy-MM-dd HH:mm:ss[.SSSSSS]"
_PARSED = {"DATE": "date", "TIMESTAMP": "timestamp_ntz", "TIMESTAMP WITH TIME ZONE": "timestamp"}
_NULL_MARK = "\u0000osiris-null\u0000"  # never in a file: only the parser's marker for an empty field


def project_file(files: Files, path: str, *, existing: bool) -> Path:
    """The file a step names, checked against the trust boundary (`files`, docs/security.md): the
    one place where the Spark engine turns a step's path into a file (the filesystem driver's rules)."""
    from osiris.run.drivers import filesystem

    if existing:
        return filesystem._existing(files.resolve(path), path, files)  # the DuckDB engine's own rule
    return files.resolve(path, write=True)


def csv_target(config: Mapping[str, Any], step_id: str, files: Files, *, sample: bool, sample_dir: Path | None,
               scratch: Path) -> Path:
    """Where a CSV writer writes: its `path` (checked on a sample run too); on `--sample`, under the
    session with a safe name when `sessions.save_samples` keeps it, else into the scratch directory."""
    name = str(config["path"])
    target = project_file(files, name, existing=False)
    if not sample:
        return target
    folder = (sample_dir / "sample-output" / sample_name(step_id)) if sample_dir is not None else scratch / "dropped"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder / sample_file(name)


def read_csv(spark: SparkSession, config: Mapping[str, Any], files: Files, sample: int | None,
             scratch: Path, read_after: tuple[str, Any] | None = None) -> tuple[DataFrame, list[tuple[str, str]]]:
    """The rows of a CSV extractor's file, and the columns DuckDB sniffed (the DuckDB engine's): the
    checked file is first brought into `scratch` through handles that refuse links
    (osiris.trust.handles), and Spark reads that copy, never the name. `read_after`: an incremental
    read's (cursor, saved value); the rows whose cursor is greater are kept, the value a literal of
    the column's own type, then the row limit (as on DuckDB)."""
    name = str(config["path"])
    path = files.stage(project_file(files, name, existing=True), scratch, name)
    sniffed = _sniffed_columns(path, config)
    parsed = {name: _PARSED[kind] for name, kind in sniffed if kind in _PARSED}  # parsed by Spark's cast, which
    columns = [(name, "VARCHAR" if name in parsed else kind) for name, kind in sniffed]  # reads what DuckDB wrote
    reader = (spark.read.schema(spark_ddl(columns)).option("sep", text(config, "delimiter"))
              .option("header", header_index(config) is not None).option("mode", "FAILFAST")
              .option("escape", '"').option("multiLine", True).option("timestampFormat", _TIMESTAMPS)
              .option("timestampNTZFormat", _TIMESTAMPS)
              .option("nanValue", "nan").option("positiveInf", "inf").option("negativeInf", "-inf")  # DuckDB's texts
              .option("encoding", text(config, "encoding").replace("latin-1", "iso-8859-1")))
    if config.get("comment"):
        reader = reader.option("comment", str(config["comment"]))
    # An unquoted empty field is NULL and a quoted one ("") an empty text, as DuckDB reads them: Spark
    # gives the parser's NULL marker to the first, and turns a field equal to `nullValue` into NULL.
    reader = reader.option("nullValue", str(config["na_values"][0]) if config.get("na_values") else _NULL_MARK)
    frame = parsed_texts(reader.csv(str(path)), parsed)
    if read_after is not None:
        frame = _kept_after(frame, *read_after, str(config["path"]))
    kept = kept_columns(config, [column for column, _ in sniffed], str(config["path"]))
    if kept is not None:  # the step's `columns`, in its order, as on DuckDB
        types = dict(sniffed)
        frame, sniffed = frame.select(*[f"`{c.replace('`', '``')}`" for c in kept]), [(c, types[c]) for c in kept]
    limits = [int(n) for n in (config.get("limit"), sample) if n is not None]
    return (frame.limit(min(limits)) if limits else frame), sniffed


def _kept_after(frame: DataFrame, cursor: str, value: Any, shown: str) -> DataFrame:
    """The rows whose `cursor` is greater than `value`; a cursor the file lacks is OML502 naming its
    columns, as on DuckDB (osiris.run.drivers.filesystem)."""
    from pyspark.sql import functions as F

    from osiris.problems import file_column_problem

    fields = {f.name: f.dataType for f in frame.schema.fields}
    if cursor not in fields:
        raise file_column_problem(cursor, list(fields), shown)
    return frame.where(F.col(f"`{cursor.replace('`', '``')}`") > F.lit(value).cast(fields[cursor]))


def _sniffed_columns(path: Path, config: Mapping[str, Any]) -> list[tuple[str, str]]:
    import duckdb  # the package, as on every Spark path (ADR 0206)

    from osiris.run.drivers.filesystem import _read_options, header_row

    from osiris.run.csv_input import exact_number_types

    typed = config["dtype"] if isinstance(config.get("dtype"), Mapping) else {}
    source = literal(str(path))
    try:
        with duckdb.connect() as con:
            rows = con.execute(f"DESCRIBE SELECT * FROM read_csv({source}{_read_options(config)})").fetchall()
            refuse_repeated_header(config, [str(r[0]) for r in rows], lambda: header_row(con, source, config),
                                   str(config["path"]))  # OML540, as on DuckDB
            doubles = [str(r[0]) for r in rows if str(r[1]) in ("DOUBLE", "FLOAT") and r[0] not in typed]
            exact = exact_number_types(con, source, _read_options(config), doubles)  # numbers stay exact, as on
            if exact:  # the DuckDB engine: a column a double would not carry is DECIMAL(p,s) or its text
                rows = con.execute(f"DESCRIBE SELECT * FROM read_csv({source}{_read_options(config, exact)})").fetchall()
    except duckdb.Error as error:
        raise unreadable_file_problem(str(config['path']), redacted(error),
                                      "check delimiter, header and encoding for this file") from None
    return [(str(r[0]), str(r[1])) for r in rows]


def write_csv(frame: DataFrame, config: Mapping[str, Any], target: Path, scratch: Path, files: Files | None,
              columns: Mapping[str, str] | None = None) -> None:
    """Write the rows to `target` as one file; the old file stays until the new one is complete.
    `files`: the boundary of a project file, whose folders are made and which is placed through
    handles that refuse links; None for a sample's file in Osiris's own folders. `columns`: the
    DuckDB engine's type of each column (osiris.run.spark.engine_columns), when known."""
    form = CsvFormat(config, duckdb_columns(frame.schema))
    name = str(config["path"])
    create_dirs = flag(config, "create_dirs")
    if create_dirs and files is not None:
        files.make_folders(target, name)
    elif create_dirs:
        target.parent.mkdir(parents=True, exist_ok=True)
    elif not target.parent.is_dir():
        raise no_directory_problem(name)
    folder = scratch / f"csv-{os.getpid()}-{id(frame)}"
    partial = scratch / f"{folder.name}-{target.name}" if files else target.with_name(f".{target.name}.osiris-partial")
    try:
        (as_text(frame, columns or {}).coalesce(1).write.mode("overwrite").option("ignoreLeadingWhiteSpace", False)
         .option("ignoreTrailingWhiteSpace", False).option("sep", form.delimiter)
         .option("header", form.header and not form.own_header).option("quote", '"').option("escape", '"')
         .option("emptyValue", '""').option("nullValue", "")
         .option("lineSep", "\n").option("timestampFormat", _TIMESTAMPS).option("timestampNTZFormat", _TIMESTAMPS)
         .csv(str(folder)))
        parts = sorted(folder.glob("part-*"))
        written = parts[0] if parts else _header_only(folder, form)
        if form.second_pass:
            form.finish(written, partial)
        else:
            shutil.move(written, partial)
        if files is not None:
            files.place(partial, target, name)
        else:
            os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)


def as_text(frame: DataFrame, types: Mapping[str, str]) -> DataFrame:
    """Every value as the DuckDB engine's CSV writer writes it (docs/types.md): numbers in their
    shortest exact text (`1e-10`, `nan`, not `1.0E-10`), decimals in plain digits, instants with
    their `+00`, binary as `\\x` and hex, lists and objects as JSON (`types`: the DuckDB engine's
    types, which say where that JSON holds JSON values)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    # defined here, so that Spark ships the functions themselves: an executor need not have Osiris
    double_text = F.udf(_number_texts()[0], StringType(), useArrow=False)
    float_text = F.udf(_number_texts()[1], StringType(), useArrow=False)
    columns = []
    for field in frame.schema.fields:
        value, kind = F.col(f"`{field.name.replace('`', '``')}`"), type(field.dataType).__name__
        if kind == "DoubleType":
            value = double_text(value)
        elif kind == "FloatType":
            value = float_text(value)
        elif kind == "TimestampType":  # the session runs in UTC
            value = F.concat(value.cast("string"), F.lit("+00"))
        elif kind == "BinaryType":
            value = F.concat(F.lit("\\x"), F.lower(F.hex(value)))
        elif kind in ("ArrayType", "StructType", "MapType"):
            value = json_text(value, types.get(field.name))
        elif kind != "StringType":
            value = value.cast("string")
        columns.append(value.alias(field.name))
    return frame.select(*columns)


def _number_texts() -> tuple[Callable[[float | None], str | None], Callable[[float | None], str | None]]:
    """DuckDB's texts of a DOUBLE and a FLOAT, as functions defined here (cloudpickle sends a nested
    function by value: the executors' Python needs pyspark only, not Osiris)."""

    def double_text(value: float | None) -> str | None:
        return None if value is None else repr(value)  # 0.1, 1e-10, 1e+20, nan, inf

    def float_text(value: float | None) -> str | None:
        """The shortest text that reads back as the same 32-bit value."""
        import struct

        if value is None or value != value or value in (float("inf"), float("-inf")):
            return None if value is None else repr(value)
        for digits in range(1, 10):
            text = f"{value:.{digits}g}"
            if struct.unpack("f", struct.pack("f", float(text)))[0] == value:
                return repr(float(text))
        return repr(value)

    return double_text, float_text


def _header_only(folder: Path, form: CsvFormat) -> Path:
    """No rows: Spark may write no part file; the DuckDB engine writes the header alone."""
    path = folder / "empty.csv"
    path.write_text(form.delimiter.join(name for name, _ in form.columns) + "\n" if form.header else "",
                    encoding="utf-8")
    return path
