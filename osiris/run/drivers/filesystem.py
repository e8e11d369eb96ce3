"""filesystem.csv_extractor and filesystem.csv_writer, done by DuckDB's own read_csv and COPY.

Paths are relative to the connection's `base_dir`, or to the project directory. A writer writes a
temporary file beside the target and renames it at the end, so a failure or Ctrl-C leaves the
target as it was; on `--sample` it writes under the session directory instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from osiris.run.driver import ColumnInfo, Family, RuntimeProblem, StepContext, StepOutcome, TableInfo
from osiris.run.counts import row_count
from osiris.run.csv_input import read_exactly
from osiris.run.csv_output import CsvFormat, literal
from osiris.run.problems import redacted
from osiris.run.spool import CSV_BUFFER_BYTES, quote_ident
from osiris.suggest import did_you_mean, listing


class FilesystemDriver:
    def run(self, ctx: StepContext) -> StepOutcome:
        if ctx.component == "filesystem.csv_extractor":
            return self._read(ctx)
        return self._write(ctx)

    def discover(self, config: Mapping[str, Any], tables: list[str] | None) -> list[TableInfo]:
        import duckdb

        names = tables or [str(config["path"])]
        con = duckdb.connect()
        found = []
        for name in names:
            path = _existing(_resolve(config, name), name)
            rows = con.execute(f"DESCRIBE SELECT * FROM read_csv({literal(str(path))})").fetchall()
            found.append(TableInfo(name, [ColumnInfo(str(r[0]), str(r[1])) for r in rows]))
        return found

    def _read(self, ctx: StepContext) -> StepOutcome:
        config = ctx.config
        path = _existing(_resolve(config, str(config["path"])), str(config["path"]))
        limits = [n for n in (config.get("limit"), ctx.sample) if n is not None]
        limit = f" LIMIT {int(min(limits))}" if limits else ""
        typed = config["dtype"] if isinstance(config.get("dtype"), Mapping) else {}
        try:
            read_exactly(ctx.con, quote_ident(ctx.output_table), literal(str(path)),
                         lambda types: _read_options(config, types), limit, typed)
        except Exception as error:
            raise RuntimeProblem("OML503", f"cannot read {config['path']} as CSV: {redacted(error)}",
                                 "check delimiter, header and encoding for this file") from None
        rows = row_count(ctx.con, ctx.output_table)
        ctx.progress(rows)
        return StepOutcome(rows_in=rows, rows_out=rows)

    def _write(self, ctx: StepContext) -> StepOutcome:
        config = ctx.config
        (source,) = ctx.input_tables.values() if len(ctx.input_tables) == 1 else (_one_input(ctx),)
        columns = [(str(r[0]), str(r[1])) for r in ctx.con.execute(f"DESCRIBE {quote_ident(source)}").fetchall()]
        form = CsvFormat(config, columns)
        with csv_output(ctx) as partial:
            copied = partial.with_name(partial.name + "-utf8") if form.second_pass else partial
            try:
                ctx.con.execute(f"COPY (SELECT {form.select_list()} FROM {quote_ident(source)}) "
                                f"TO {literal(str(copied))} ({form.copy_options()})")
                if form.second_pass:
                    form.finish(copied, partial)
            finally:
                if copied != partial:
                    copied.unlink(missing_ok=True)
        rows = row_count(ctx.con, source)
        ctx.progress(rows)
        return StepOutcome(rows_in=rows, rows_out=rows)


@contextmanager
def csv_output(ctx: StepContext) -> Iterator[Path]:
    """The file a csv_writer step fills, beside its target (under the session on `--sample`): the
    target gets it whole, in one rename, only when the block ends without an error, so a failure or
    Ctrl-C leaves the target as it was."""
    target = csv_target(ctx)
    partial = target.with_name(f".{target.name}.osiris-partial")
    try:
        yield partial
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def csv_target(ctx: StepContext) -> Path:
    """A csv_writer step's target file, its folder made (`create_dirs`, the default) or found."""
    config = ctx.config
    if ctx.sample is not None and ctx.work_dir is not None:
        target = ctx.work_dir / "sample-output" / ctx.step_id / Path(str(config["path"])).name
    else:
        target = _resolve(config, str(config["path"]))
    if config.get("create_dirs", True):
        target.parent.mkdir(parents=True, exist_ok=True)
    elif not target.parent.is_dir():
        raise RuntimeProblem("OML510", f"the directory of {config['path']} does not exist",
                             "create it, or set create_dirs: true")
    return target


def plain_csv(config: Mapping[str, Any]) -> bool:
    """A writer whose file is comma-separated UTF-8 with LF line ends and minimal quoting: the bytes
    PostgreSQL's COPY (FORMAT CSV) writes too (osiris.run.direct)."""
    form = CsvFormat(config, [])
    return (form.delimiter, form.quoting, form.encoding, form.newline) == (",", "minimal", "utf-8", "\n")


def _one_input(ctx: StepContext) -> str:
    raise RuntimeProblem("OML503", f"a CSV writer writes one input, but this step has {len(ctx.input_tables)}",
                         "join or union the inputs in a duckdb.processor step first")


def _resolve(config: Mapping[str, Any], path: str) -> Path:
    given = Path(path).expanduser()
    return given if given.is_absolute() else Path(str(config.get("base_dir") or ".")) / given


def _existing(path: Path, shown: str) -> Path:
    if path.is_file():
        return path
    folder = path.parent
    nearby = sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    hint = (f"files in {folder.name or folder}: {listing(nearby)}{did_you_mean(path.name, nearby)}" if nearby
            else f"the folder {folder} does not exist or is empty; paths are relative to the project (or base_dir)")
    raise RuntimeProblem("OML510", f"file not found: {shown}", hint, value=shown)


def _read_options(config: Mapping[str, Any], exact: Mapping[str, str] | None = None) -> str:
    """read_csv's options; `exact`: column types that keep numbers exact (osiris/run/csv_input.py).
    A quoted empty field is '', an unquoted one NULL, as csv_writer writes them."""
    parts = [f"buffer_size = {CSV_BUFFER_BYTES}", f"delim = {literal(str(config.get('delimiter', ',')))}",
             f"header = {'true' if config.get('header', True) else 'false'}", "allow_quoted_nulls = false"]
    if config.get("skip_rows"):
        parts.append(f"skip = {int(config['skip_rows'])}")
    if config.get("comment"):
        parts.append(f"comment = {literal(str(config['comment']))}")
    encoding = str(config.get("encoding", "utf-8")).lower()
    if encoding not in ("utf-8", "ascii"):
        parts.append(f"encoding = {literal(encoding.replace('iso-8859-1', 'latin-1'))}")
    if config.get("compression") and config["compression"] != "infer":
        parts.append(f"compression = {literal(str(config['compression']))}")
    if config.get("na_values"):
        parts.append("nullstr = [" + ", ".join(literal(str(v)) for v in config["na_values"]) + "]")
    types = {**(exact or {}), **(config["dtype"] if isinstance(config.get("dtype"), Mapping) else {})}
    if types:
        parts.append("types = {" + ", ".join(f"{literal(str(k))}: {literal(str(v))}" for k, v in types.items()) + "}")
    return ", " + ", ".join(parts)


DRIVER = FilesystemDriver()
FAMILY = Family("filesystem", "CSV files", ("filesystem.csv_extractor", "filesystem.csv_writer"), kind="files",
                discoverable=True)
