"""What a writer step writes to: a table (on a connection) or a file, and how (its write mode).

Read from the step as the pipeline gives it (no resolved secrets), so the run trail, `--json` and
`osiris sessions` can say later what was written where (docs/sessions.md, "Run sessions").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from osiris.oml.values import Config, Value
from osiris.registry.registry import spec_defaults
from osiris.run.fields import optional_text

FILE_MODE = "replace"  # a CSV writer replaces the whole file (a partial file, then a rename)
TABLE_MODE = "append"  # the record of a table writer of your own whose spec gives no write mode


@dataclass(frozen=True)
class WriteTarget:
    kind: str  # "table" or "file"
    name: str  # the path as written, or the table (`schema.table` when a schema is given)
    write_mode: str  # append, replace, upsert
    connection: str | None = None  # e.g. "@postgres.default"


def write_target(step: Config) -> WriteTarget | None:
    """The target of a `mode: write` step; None for other steps, or a writer that names neither a
    path nor a table (a component of your own)."""
    config = step.get("config")
    if step.get("mode") != "write" or not isinstance(config, Mapping):
        return None
    given = config.get("connection")
    connection = given if isinstance(given, str) else None
    if config.get("path"):
        return WriteTarget("file", str(config["path"]), FILE_MODE, connection)
    if not config.get("table"):
        return None
    name = f"{config['schema']}.{config['table']}" if config.get("schema") else str(config["table"])
    given = {**spec_defaults(str(step.get("component"))), **config}  # the spec's mode where the step names none
    mode = optional_text(given, "write_mode") or optional_text(given, "mode") or TABLE_MODE  # mysql.writer: `mode`
    if config.get("truncate_before") and mode == TABLE_MODE:
        mode = "replace"  # mysql.writer: the table is emptied first, in the same transaction
    return WriteTarget("table", name, mode, connection)


def target_record(target: WriteTarget | None, *, rows: int, kept: bool) -> dict[str, Value] | None:
    """`{"kind", "name", "write_mode", "connection", "rows", "kept"}` for run.json, events and
    `--json`: `rows` the rows the writer wrote (or proved, on samples), `kept` false when nothing
    stayed in the target (a sample run, a failed step)."""
    return None if target is None else {**asdict(target), "rows": rows, "kept": kept}


def describe_target(record: Config) -> str:
    """`table customers on @postgres.default (append): 1,204 rows written`, or `... (rolled back,
    nothing kept)` when nothing was kept."""
    from osiris.text_table import ROLLED_BACK, count_rows, printable

    rows = record.get("rows")
    where = f" on {record['connection']}" if record.get("connection") else ""
    done = "written" if record.get("kept") else f"({ROLLED_BACK})"
    return printable(f"{record.get('kind')} {record.get('name')}{where} ({record.get('write_mode')}): "
                     f"{count_rows(rows if isinstance(rows, int) else 0)} {done}")
