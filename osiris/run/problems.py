"""The runtime's door to the problems of `osiris.problems` (each OML5xx built there, once), with
what only a run has: the helpers that turn a library's error text into a detail without a secret or
a value, and the problems that name the engine's memory and scratch caps.
"""

from __future__ import annotations

from collections.abc import Iterable

from osiris.problems import (
    RuntimeProblem,
    auth_problem,
    cleartext_problem,
    connect_problem,
    deadline_problem,
    file_problem,
    inexact_float_problem,
    input_without_table_problem,
    inputs_problem,
    key_problem,
    missing_target_problem,
    names_hint,
    no_driver_problem,
    permission_problem,
    quoted_name,
    rejected_problem,
    repeated_column_problem,
    repeated_name,
    setting_problem,
    sql_problem,
    type_problem,
    unconfigured_problem,
    unique_key_problem,
    unknown_column_problem,
    unknown_columns_problem,
    unknown_table_problem,
    unreadable_value_problem,
    unset_secret_problem,
    value_problem,
)
from osiris.problems import memory_problem as _memory_problem
from osiris.problems import scratch_problem as _scratch_problem
from osiris.secrets.redact import Redactor
from osiris.trust.disclosure import withhold_values
from osiris.trust.engine_words import filtered

__all__ = [
    "RuntimeProblem",
    "auth_problem",
    "cleartext_problem",
    "connect_problem",
    "deadline_problem",
    "file_problem",
    "inexact_float_problem",
    "input_without_table_problem",
    "inputs_problem",
    "key_problem",
    "masked",
    "memory_problem",
    "missing_target_problem",
    "names_hint",
    "no_driver_problem",
    "out_of_memory",
    "permission_problem",
    "quoted_name",
    "redacted",
    "rejected_problem",
    "repeated_column_problem",
    "repeated_name",
    "scratch_problem",
    "setting_problem",
    "sql_problem",
    "type_problem",
    "unconfigured_problem",
    "unique_key_problem",
    "unknown_column_problem",
    "unknown_columns_problem",
    "unknown_table_problem",
    "unreadable_value_problem",
    "unset_secret_problem",
    "value_problem",
]


def redacted(error: BaseException | str, secrets: Iterable[str] = ()) -> str:
    """The first line of a library's (an engine's, a database's, a server's) error text, with the
    step's secrets and any DSN or key masked, the values it quotes withheld, and, inside a run, every
    word neither the pipeline, the schema nor the engines' vocabulary knows replaced by `(…)`
    (docs/security.md, "What an engine says"): the one door such a text comes in by."""
    raw = str(error).strip()
    text = raw.splitlines()[0] if raw else ""
    return filtered(withhold_values(masked(text, secrets))) if text else "no details"


def masked(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with the step's secrets and any DSN or key masked."""
    return Redactor(known_values=secrets).text(text)


def memory_problem() -> RuntimeProblem:
    """OML526 with the memory cap of the engine last started (run.memory_limit, read now)."""
    from osiris.run.duckdb_engine import started_cap_mb

    return _memory_problem(started_cap_mb())


def scratch_problem() -> RuntimeProblem:
    """OML533 with the run's scratch cap (`osiris.run.duckdb_engine.SCRATCH_CAP_MB`, read now)."""
    from osiris.run import duckdb_engine

    return _scratch_problem(duckdb_engine.SCRATCH_CAP_MB)


def out_of_memory(error: Exception) -> RuntimeProblem:
    """DuckDB's out-of-memory error as its problem: the scratch cap reached (OML533) or the engine's
    memory (OML526); every driver that meets one tells it this way."""
    return scratch_problem() if "max_temp_directory_size" in str(error) else memory_problem()
