"""Every runtime problem a step can meet, built in one place: `RuntimeProblem` and one named
constructor per kind, so that each OML5xx code keeps the one meaning docs/errors.md gives it.

A constructor takes the facts (names, counts, a library's redacted detail) and writes the message
and the hint. Texts are the person's: they name the step's connection, table or column, never a
cell value. This module sits at the bottom of the layers (docs/architecture.md): the trust
boundary and the catalog raise these problems as the runtime does. `osiris.run.problems` gives the
drivers the same constructors, with the helpers that redact a library's error text and those that
read the engine's caps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from osiris.suggest import did_you_mean, listing

_QUOTED = re.compile(r"""["'`]([^"'`]+)["'`]""")


class RuntimeProblem(Exception):
    """An expected runtime failure of one step, reported as an OML5xx issue (never a traceback).

    `message` and `hint` must already be free of secrets: drivers build them from their own words
    and redact any text taken from a driver library's exception.
    """

    def __init__(self, code: str, message: str, hint: str, *, value: object = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.value = value


def restated(problem: RuntimeProblem, message: str, hint: str) -> RuntimeProblem:
    """`problem` with its message and hint said again (masked a second time), code and value kept."""
    return RuntimeProblem(problem.code, message, hint, value=problem.value)


def internal_problem(component: str, where: str) -> RuntimeProblem:
    """OML105: an error no driver mapped, a bug in Osiris, told by where it was raised (never its text)."""
    return RuntimeProblem("OML105", f"the {component} driver stopped at an internal error ({where})",
                          "this is a bug in Osiris, not in the pipeline: please report it with this line")


def quoted_name(text: str) -> str | None:
    """The first quoted name in an error text: `column "emial" does not exist` -> `emial`."""
    match = _QUOTED.search(text)
    return match.group(1) if match else None


def names_hint(kind: str, wrong: str | None, known: Iterable[str]) -> str:
    """`tables the database knows: a, b (did you mean 'a'?)`."""
    names = sorted(set(known))
    if not names:
        return f"the database lists no {kind}s this connection can see"
    bare = wrong.split(".")[-1] if wrong else None
    return f"{kind}s the database knows: {listing(names)}{did_you_mean(bare, names)}"


# --- OML501-OML504: names, SQL and values ------------------------------------------------------

def unknown_table_problem(table: str | None, known: Iterable[str]) -> RuntimeProblem:
    """OML501: a step reads a table the database does not have."""
    return RuntimeProblem("OML501", f'table "{table}" does not exist', names_hint("table", table, known),
                          value=table)


def engine_table_problem(table: str | None, known: Iterable[str]) -> RuntimeProblem:
    """OML501: a transform reads a table the engine (DuckDB or Spark) does not have."""
    return RuntimeProblem("OML501", f'table "{table}" does not exist in the engine',
                          names_hint("table", table, known).replace("the database knows", "the engine has"), value=table)


def unknown_data_type_problem(name: str, reader: str, known: list[str]) -> RuntimeProblem:
    """OML501: a step names a data type (PostHog's events, persons) its API does not serve."""
    return RuntimeProblem("OML501", f"unknown PostHog data type '{name}'",
                          f"{reader} reads: {listing(known)}{did_you_mean(name, known)}", value=name)


def missing_target_problem(table: str, create_field: str) -> RuntimeProblem:
    """OML501: a writer's target does not exist. The hint creates it; it never suggests another,
    similar table, which may be the production one."""
    return RuntimeProblem("OML501", f'table "{table}" does not exist',
                          f"set {create_field}: true to create it with the input's columns, or correct the "
                          "table name", value=table)


def unknown_dtype_column_problem(shown: str, typed: list[str]) -> RuntimeProblem:
    """OML502: a CSV reader's dtype names a column the file does not have."""
    return RuntimeProblem(
        "OML502", f"dtype names a column {shown} does not have (dtype names: {listing(typed)})",
        "correct the names in dtype to the file's header; without a header (header: false) the columns "
        "are column0, column1, ...")


def uncreatable_target_problem(table: str, reason: str, fix: str) -> RuntimeProblem:
    """OML501: a writer's target does not exist and this connection cannot create it (`reason`);
    `fix` says what lets it, or the DDL to run by hand."""
    return RuntimeProblem("OML501", f"table '{table}' does not exist, and {reason}", fix, value=table)


def unknown_column_problem(column: str | None, known: Iterable[str], where: str = "") -> RuntimeProblem:
    """OML502: a column the table (`where`, when named) does not have."""
    place = f" in {where}" if where else ""
    return RuntimeProblem("OML502", f'column "{column}" does not exist{place}', names_hint("column", column, known),
                          value=column)


def nothing_to_discover_problem(component: str, hint: str) -> RuntimeProblem:
    """OML503: `osiris discover` on a step that reads no database of its own (a transform)."""
    return RuntimeProblem("OML503", f"{component} has nothing to discover", hint)


def unreadable_file_problem(shown: str, detail: str, hint: str, value: object = None) -> RuntimeProblem:
    """OML503: a step's CSV file cannot be read as its config says (`detail`: why, in names and types)."""
    return RuntimeProblem("OML503", f"cannot read {shown} as CSV: {detail}", hint, value=value)


def system_problem(component: str, detail: str) -> RuntimeProblem:
    """OML503: the operating system stopped a driver (a full disk, a permission, a path), in its words."""
    return RuntimeProblem("OML503", f"the {component} driver stopped: {detail}",
                          "check the free space, the permissions and the paths this step uses")


def unwritable_file_problem(shown: object, detail: str) -> RuntimeProblem:
    """OML503: the operating system refused to write a step's file (`detail`: its words)."""
    return RuntimeProblem("OML503", f"cannot write {shown}: {detail}",
                          "check the free space and the permissions of the folder it goes to")


def no_bounds_problem() -> RuntimeProblem:
    """OML503: the database gave no min and max of the key a Spark read is partitioned on."""
    return RuntimeProblem("OML503", "the database returned no bounds for the primary key", "")


def spark_inputs_problem(count: int) -> RuntimeProblem:
    """OML503: a Spark write step with more or fewer than one input (the DuckDB engine says OML519)."""
    return RuntimeProblem("OML503", f"a writer writes one input, but this step has {count}",
                          "join or union the inputs in a duckdb.processor step first")


def sql_problem(detail: str) -> RuntimeProblem:
    """OML503: the database or the engine rejected a step's SQL."""
    return RuntimeProblem("OML503", f"the database rejected the SQL: {detail}",
                          "correct the SQL in this step's query and run again")


def type_problem(detail: str) -> RuntimeProblem:
    """OML504: a value does not fit its column's type, in the database's words."""
    return RuntimeProblem(
        "OML504", f"a value does not fit its column's type: {detail}",
        "cast the column in a duckdb.processor step before this one, or change the target column's type")


def value_problem(column: str, what: str, fix: str) -> RuntimeProblem:
    """OML504: values of `column` that cannot arrive exactly (`what` says which and how many);
    nothing was written. docs/types.md lists every such case."""
    return RuntimeProblem("OML504", f"column '{column}' {what}", f"{fix}; nothing was written (docs/types.md)",
                          value=column)


def not_a_datetime_problem(field: str, given: object) -> RuntimeProblem:
    """OML504: a setting that takes an ISO 8601 date and time holds something else."""
    return RuntimeProblem("OML504", f"{field} '{given}' is not an ISO 8601 date and time",
                          "write it like 2024-01-01T00:00:00Z (a time without a zone is taken as UTC)", value=given)


def unencodable_problem(encoding: str, char: str, line: int) -> RuntimeProblem:
    """OML504: a character a CSV writer's encoding cannot hold; nothing was written."""
    return RuntimeProblem(
        "OML504", f"a value does not fit the file's encoding {encoding}: {char!r} (U+{ord(char):04X}) "
                  f"on line {line} of the file",
        "set encoding: utf-8 (the default) or utf-16, or replace the character in a duckdb.processor step "
        "before this one; nothing was written")


def inexact_float_problem(column: str) -> RuntimeProblem:
    """OML504: a MySQL FLOAT the query can only read with the text protocol's six digits, since it
    cannot be read as a derived table, where it would be widened to its exact value."""
    return value_problem(column, "is a MySQL FLOAT that this query reads with six digits only (16777216 as "
                                 "16777200): the query cannot be read as a subquery, where it would be read exactly",
                         f"read it as CAST({column} AS DOUBLE) in the step's query, or leave out what keeps the query "
                         "from being a subquery (SQL_NO_CACHE, HIGH_PRIORITY, SQL_CALC_FOUND_ROWS)")


def unreadable_value_problem(column: str, duckdb_type: str) -> RuntimeProblem:
    """OML504: a value a reader sent that the column's engine type cannot hold (docs/types.md)."""
    kind = duckdb_type.split("(")[0]
    if kind == "DECIMAL":
        return value_problem(column, f"holds NaN or an infinite number, which {duckdb_type} cannot hold",
                             "read it as text (CAST(x AS TEXT)) or as double precision in the step's query")
    if kind in ("DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE"):
        return value_problem(column, f"holds a date before the year 1 (BC), which the engine's {kind} cannot hold",
                             "read it as text (CAST(x AS TEXT)) in the step's query, or leave those rows out")
    return value_problem(column, f"holds a value the engine's {duckdb_type} cannot hold",
                         "read it as text (CAST(x AS TEXT)) in the step's query")


def no_engine_count_problem() -> RuntimeProblem:
    """OML105, internal and never shown: DuckDB counted no single scan of a fused read, which is then
    run apart (osiris.run.fused)."""
    return RuntimeProblem("OML105", "DuckDB counted no single scan of the fused read", "")


# --- OML505-OML507: reaching the database --------------------------------------------------------

def connect_problem(family: str, host: object, port: object, detail: str) -> RuntimeProblem:
    """OML505: the server did not answer (refused, unknown host, timeout) or has no such database.
    The hint speaks of "the connection", which fits a run's step and `osiris discover` alike."""
    return RuntimeProblem(
        "OML505", f"cannot connect to {family} at {host}:{port}: {detail}",
        f"check that the {family} server is running there, and the host, port and database of the "
        "connection in .osiris.yaml")


def auth_problem(family: str, user: object, detail: str) -> RuntimeProblem:
    """OML506: the server rejected the user or the password."""
    return RuntimeProblem(
        "OML506", f"{family} rejected the user '{user}': {detail}",
        "check the connection's user in .osiris.yaml and the value of its password reference")


def permission_problem(detail: str) -> RuntimeProblem:
    """OML507: the user may connect, but not do what the step needs."""
    return RuntimeProblem(
        "OML507", f"permission denied: {detail}",
        "grant the connection's user the rights this step needs (SELECT to read; INSERT, UPDATE, DELETE to write)")


# --- OML509: an API's records -----------------------------------------------------------------

def no_records_problem(path: str, where: str, shape: str) -> RuntimeProblem:
    """OML509: nothing list- or object-shaped at `path`; `shape` says what the body holds (its
    top-level keys, never its values)."""
    shown = f"'{path}'" if path else "'' (the whole body)"
    return RuntimeProblem("OML509", f"no records at data_path {shown} in the response of {where}",
                          f"{shape} Set data_path to the dotted path of the list of records.")


def no_page_info_problem(path: str, where: str, shape: str) -> RuntimeProblem:
    """OML509: a GraphQL answer without its pageInfo object at `path`; `shape`: its top-level keys."""
    return RuntimeProblem(
        "OML509",
        f"no pageInfo object at pagination_path '{path}' in the response of {where}",
        f"{shape} Ask for pageInfo {{ hasNextPage endCursor }} in the query "
        "and set pagination_path to where it is.",
    )


# --- OML510-OML516 -------------------------------------------------------------------------------

def file_problem(shown: str, hint: str) -> RuntimeProblem:
    """OML510: a file a step reads is not there."""
    return RuntimeProblem("OML510", f"file not found: {shown}", hint, value=shown)


def no_directory_problem(shown: str) -> RuntimeProblem:
    """OML510: a writer's file would go into a folder that is not there, and create_dirs is off."""
    return RuntimeProblem("OML510", f"the directory of {shown} does not exist", "create it, or set create_dirs: true")


def unconfigured_problem(reference: str, family: str, alias: str) -> RuntimeProblem:
    """OML511: the step's connection alias is not in .osiris.yaml."""
    return RuntimeProblem("OML511", f"connection '{reference}' is not configured",
                          f"define connections.{family}.{alias} in .osiris.yaml", value=reference)


def unset_secret_problem(where: str, name: str, hint: str) -> RuntimeProblem:
    """OML511: a connection field names a variable that neither the environment nor the keyring has."""
    return RuntimeProblem("OML511", f"{where} refers to ${{{name}}}, which is not set", hint, value=f"${{{name}}}")


def key_problem(keys: list[str], columns: list[str]) -> RuntimeProblem:
    """OML512: upsert keys the rows do not have."""
    return RuntimeProblem(
        "OML512",
        f"the upsert key {', '.join(repr(k) for k in keys)} is not a column of the rows written "
        f"(columns: {listing(columns)})",
        "set the key to columns the rows have, with a primary key or unique index on them in the target")


def keys_needed_problem(mode: str, table: object) -> RuntimeProblem:
    """OML512: a write mode that matches rows by key, on a step that names no key."""
    return RuntimeProblem("OML512", f"write_mode '{mode}' needs primary_key: the key column(s) of '{table}'",
                          "Set primary_key to the column (or list of columns) that identifies a row.")


def key_not_in_input_problem(key: str, component: str, names: list[str]) -> RuntimeProblem:
    """OML512: a key column the step's input does not have."""
    return RuntimeProblem("OML512", f"key column '{key}' is not in the input of the {component} step",
                          f"The input's columns are: {listing(names)}.")


def unique_key_problem(table: str, keys: list[str], field: str) -> RuntimeProblem:
    """OML512: the target has no primary key or unique index on the upsert's key columns."""
    return RuntimeProblem(
        "OML512", f"the target {table} has no primary key or unique index on {', '.join(keys)}",
        f"add a primary key or unique index on the {field} columns, or set {field} to them")


REJECTION_HINTS = {  # the kind of constraint -> what fixes the rows
    "unique": "use an upsert on the key columns, or remove the duplicate rows in a transform step",
    "not_null": "give the column a value in a transform step (COALESCE), or allow NULL in the target",
    "foreign_key": "write the rows they refer to first, or leave out the rows without them in a transform step",
    "check": "correct or leave out the rows the constraint refuses, in a transform step",
}


def driver_warning(text: str) -> RuntimeProblem:
    """OML513: a warning a driver gave in its own words, with no hint."""
    return RuntimeProblem("OML513", text, "")


def empty_sample_problem(described: str, joins: bool) -> RuntimeProblem:
    """OML513: on samples, a transform found no rows in inputs that have some (`described`: each
    input's rows); it speaks of keys only for a join."""
    if joins:
        return RuntimeProblem(
            "OML513", f"the transform returned no rows from sampled inputs ({described}); "
                      "the samples may share no keys",
            "sample more rows (--sample 1000), or filter the driving table's query so that the samples match")
    return RuntimeProblem(
        "OML513", f"the transform returned no rows from sampled inputs ({described}); "
                  "none of the sampled rows met its conditions",
        "sample more rows (--sample 1000); if the full run should keep rows, check the values its conditions "
        "compare with")


def rejected_problem(detail: str, constraint: str = "") -> RuntimeProblem:
    """OML514: the target refused the rows (`constraint`: unique, not_null, foreign_key or check)."""
    fix = REJECTION_HINTS.get(constraint, "correct or leave out the offending rows in a transform step")
    return RuntimeProblem("OML514", f"the target rejected the rows: {detail}", f"{fix}; nothing was kept")


def invalid_response_problem(where: str, what: str, hint: str) -> RuntimeProblem:
    """OML515: an API's answer at `where` is not what its component reads (`what` says how)."""
    return RuntimeProblem("OML515", f"invalid API response from {where}: {what}", hint)


def unloadable_record_problem(number: int | None, why: str) -> RuntimeProblem:
    """OML515: record `number` (or some record) of an API's answer cannot be loaded into the engine."""
    which = f"record {number:,}" if number is not None else "a record"
    return RuntimeProblem("OML515", f"invalid API response: {which} cannot be loaded: {why}",
                          "Ask the API for fewer fields or smaller records (its own parameters in params), "
                          "or point data_path at the part of the record you need.")


def no_driver_problem(component: str, runnable: list[str]) -> RuntimeProblem:
    """OML516: a component whose spec validates but which osiris run cannot run."""
    return RuntimeProblem(
        "OML516", f"no runtime driver for the component {component}",
        f"its spec validates, but osiris run can run only: {listing(runnable)}", value=component)


def spark_transform_problem(processor: str, component: str) -> RuntimeProblem:
    """OML516: a transform of another component than the one the Spark engine runs."""
    return RuntimeProblem("OML516", f"the Spark engine runs transforms of {processor} only",
                          "run this pipeline on the DuckDB engine", value=component)


# --- OML519-OML521 -------------------------------------------------------------------------------

def inputs_problem(kind: str, count: int) -> RuntimeProblem:
    """OML519: a writer (`kind`: "writer", "CSV writer") takes exactly one input."""
    return RuntimeProblem("OML519", f"a {kind} writes one input, but this step has {count}",
                          "join or union the inputs in a duckdb.processor step first, and write its result")


def input_without_table_problem(step_id: str) -> RuntimeProblem:
    """OML519: a step takes its rows from a step that leaves none (a writer)."""
    return RuntimeProblem(
        "OML519", f"its input '{step_id}' leaves no table to read (a writer has no output)",
        "name the step whose rows this one takes: needs: [<that step's id>] (docs/run.md, step order)",
        value=step_id)


def cleartext_problem(family: str, host: object, port: object, fix: str) -> RuntimeProblem:
    """OML520: the server asked for the password in cleartext over an unencrypted link; it was not sent."""
    return RuntimeProblem(
        "OML520", f"{family} at {host}:{port} asked for the password in cleartext over an unencrypted "
                  "connection; Osiris did not send it", fix)


def setting_problem(message: str, hint: str, value: object = None) -> RuntimeProblem:
    """OML521: a connection field's value cannot be used (a malformed DSN, an unknown region)."""
    return RuntimeProblem("OML521", message, hint, value=value)


# --- OML524, OML535: paging -----------------------------------------------------------------------

def paging_unended_problem(where: str, limit: int) -> RuntimeProblem:
    """OML524: paging of `where` went on past the default max_pages."""
    return RuntimeProblem(
        "OML524",
        f"paging of {where} did not end after {limit:,} pages (the default max_pages)",
        "If the API really has more pages, set max_pages to a larger number (0 reads every page); "
        "if not, check the paging settings: the API may be sending the same pages under new cursors.",
        value=limit)


def paging_stalled_problem(where: str, what: str, check: str, pages: int) -> RuntimeProblem:
    """OML535: paging of `where` stopped after `pages` pages for `what`; `check` says which setting."""
    return RuntimeProblem("OML535", f"paging of {where} did not advance: {what}, so the rest of the data cannot "
                                    "be read", check, value=pages)


# --- OML526 --------------------------------------------------------------------------------------

def memory_problem(cap_mb: int) -> RuntimeProblem:
    """OML526: the step needed more memory than the engine's cap (run.memory_limit), even spilling to
    disk (ADR 0200)."""
    return RuntimeProblem(
        "OML526", f"the step needs more memory than the engine's {cap_mb} MB cap, even spilling "
                  "to disk",
        "rows this wide do not fit a sort or a write under the cap: leave out wide columns the step does not "
        "need, or sort and write them in a later step; or raise run.memory_limit, or lower run.threads "
        "(docs/run.md, memory); nothing was written")


# --- OML527-OML528: the Spark engine --------------------------------------------------------------

def spark_unavailable_problem(detail: str, hint: str) -> RuntimeProblem:
    """OML527: the Spark engine did not start, or lacks a JDBC driver (`detail` says which)."""
    return RuntimeProblem("OML527", f"the Spark engine {detail}", hint)


def spark_not_started_problem(detail: str) -> RuntimeProblem:
    """OML527: the Spark engine could not start (no Java, a master it cannot reach)."""
    return spark_unavailable_problem(f"did not start: {detail}",
                                     "check run.spark.master (osiris config show) and that Java 17 or newer is installed")


def spark_job_problem(detail: str) -> RuntimeProblem:
    """OML528: a Spark job failed in a way no other code names."""
    return RuntimeProblem("OML528", f"the Spark job failed: {detail}",
                          "run again with OSIRIS_DEBUG=1 set to see Spark's own log")


def spark_analysis_problem(detail: str) -> RuntimeProblem:
    """OML414: Spark's analyser refused a transform for a reason other than a name it does not know."""
    return RuntimeProblem("OML414", f"Spark's analyser refused the transform: {detail}",
                          "rewrite the query in SQL both engines share (docs/spark.md, what differs), "
                          "or run this pipeline on the DuckDB engine")


# --- OML532-OML533: every run ends ----------------------------------------------------------------

def deadline_problem(seconds: float | None, setting: str) -> RuntimeProblem:
    """OML532: the run passed its deadline (`setting` says which); its query was interrupted and its
    scratch removed (docs/security.md, "Every run ends")."""
    limit = f"{seconds:g} s" if seconds is not None else "its deadline"
    return RuntimeProblem(
        "OML532", f"the run passed its deadline ({limit}, {setting}); the query was interrupted and nothing was kept",
        "make the step's query cheaper: read fewer rows (a LIMIT or a WHERE on its inputs), drop generated "
        f"or repeated rows, avoid cross joins; or raise {setting} in .osiris.yaml")


def scratch_problem(cap_mb: int) -> RuntimeProblem:
    """OML533: the step's spill outgrew the run's scratch cap (docs/security.md, "Every run ends")."""
    return RuntimeProblem(
        "OML533", f"the step needs more scratch space than the run's cap ({cap_mb} MB of spill)",
        "the query makes more rows than it reads: filter or aggregate earlier, avoid cross joins and generated "
        "rows; nothing was kept")



# --- the trust boundary: OML510, OML517, OML518 ----------------------------------------------------

OUTSIDE_PROJECT_HINT = (
    "write a path relative to the project (e.g. data/customers.csv); to use files elsewhere, declare "
    "base_dir for a filesystem connection in .osiris.yaml and use connection: \"@filesystem.<alias>\"")


def outside_project_problem(field: str, shown: str, reason: str) -> RuntimeProblem:
    """OML517: a path that the real file system puts outside the boundary."""
    return RuntimeProblem("OML517", f"{field} '{shown}' {reason}: files stay inside the project",
                          OUTSIDE_PROJECT_HINT, value=shown)


def folder_gone_problem(shown: str) -> RuntimeProblem:
    """OML510: a folder of a step's file disappeared while the step ran."""
    return RuntimeProblem("OML510", f"{shown} or a folder of it disappeared while the step ran; nothing was "
                                    "read or written", "run the pipeline again once the folder is back", value=shown)


def outside_inputs_problem(refused_by: str, reason: str, hint: str) -> RuntimeProblem:
    """OML518: a transform's SQL reached past its inputs, and `refused_by` (the sandbox, an engine's
    list) refused it; `hint` is the trust rule's own."""
    return RuntimeProblem("OML518", f"the SQL reached outside its inputs, and {refused_by} refused it: {reason}", hint)


def reference_in_pipeline_problem(pointer: str) -> RuntimeProblem:
    """OML518: a step's config holds a `${...}` reference, which only connections may use."""
    return RuntimeProblem(
        "OML518", f"config{pointer.replace('/', '.')} holds a ${{...}} reference, which a pipeline may "
                  "not use: references are resolved in connections only, and this one was not",
        "move the value into a connection in .osiris.yaml and use connection: \"@family.alias\"", value=pointer)


def boundary_problem(message: str, hint: str, where: str) -> RuntimeProblem:
    """OML518: a step would move a connection's endpoint (the trust rule's own message and hint)."""
    return RuntimeProblem("OML518", message, hint, value=where)


# --- discovery and connections --------------------------------------------------------------------

def unreadable_csv_problem(shown: str, detail: str) -> RuntimeProblem:
    """`osiris discover FILE.csv` could not read the file (a command's failure, no OML code)."""
    return RuntimeProblem("", f"cannot read {shown} as CSV: {detail}", "check that the file is a CSV file with a header row")


def api_problem(code: str, message: str, hint: str, status: int | None = None) -> RuntimeProblem:
    """A problem an HTTP step met (its code chosen by the client: the server refused, answered an error,
    or sent what is not JSON); `message` and `hint` already masked, `status` the HTTP status."""
    return RuntimeProblem(code, message, hint, value=status)


def no_endpoint_problem() -> RuntimeProblem:
    """OML521: a GraphQL connection without its endpoint."""
    return RuntimeProblem("OML521", "the connection has no endpoint",
                          "set endpoint: https://.../graphql for the connection in .osiris.yaml")


# --- OML537-OML538: a step's checks ----------------------------------------------------------------

def checks_failed_problem(failed: list[str]) -> RuntimeProblem:
    """OML537: every error-level check that failed, in one line; nothing was written."""
    return RuntimeProblem(
        "OML537", f"check{'s' if len(failed) > 1 else ''} failed: {'; '.join(failed)}",
        "the rows did not pass the step's checks, so nothing was written; fix the source or the query, or make "
        "the check level: warning (docs/run-again.md)")


def check_warning(outcome: str) -> RuntimeProblem:
    """OML538: a warning-level check that failed; the run went on."""
    return RuntimeProblem("OML538", f"check {outcome}",
                          "the run went on (level: warning); look at the source or the query before trusting these rows")


# --- OML539: an empty answer's columns ------------------------------------------------------------

def unknown_columns_problem(data_path: str, why: str) -> RuntimeProblem:
    """OML539: an API answered no records, and the columns of its records at `data_path` cannot be
    told from the step (`why`); no table with made-up columns is written (docs/run-http.md)."""
    return RuntimeProblem(
        "OML539", f"the API returned no records at data_path '{data_path}', and which columns they have cannot "
                  f"be told from the query: {why}",
        "name each field the records hold in the query's selection at data_path (an alias or a field becomes a "
        "column), or set flatten_result: false to keep a nested field as one column; nothing was written",
        value=data_path)


# --- OML540: a query's columns --------------------------------------------------------------------

def repeated_name(names: Iterable[str]) -> str | None:
    """The first name that comes again (the engine's column names ignore case), or None."""
    seen: set[str] = set()
    for name in names:
        if name.lower() in seen:
            return name
        seen.add(name.lower())
    return None


def repeated_column_problem(column: str) -> RuntimeProblem:
    """OML540: a reader's query gives two columns one name, which the step's table cannot hold;
    refused before any row is read (docs/types.md)."""
    return RuntimeProblem(
        "OML540", f"the query's result has two columns named '{column}' (column names ignore case)",
        f"give each its own name with AS in the step's query (e.g. b.{column} AS b_{column}); nothing was read",
        value=column)
