"""supabase.writer through the project's PostgreSQL database, when its connection names one.

Public Osiris's supabase writer reaches the database with psycopg2 when the connection holds
`pg_dsn` (or `dsn`, `sql_dsn`), or host, database, user and password (also as `pg_host`,
`pg_port`, `pg_database`, `pg_user`, `pg_password`). With such a connection ours writes the whole
step through postgres.writer's path (psycopg 3): the table is created when missing
(`create_if_missing`) and the rows go in ONE transaction (replace = DELETE + COPY, upsert through
a staging table), so a failure leaves the table as it was, and `--sample` rolls the proven write
back. As over REST, `prefer: resolution=ignore-duplicates` keeps existing rows on an upsert, and
nested values (STRUCT, LIST, MAP) travel as JSON into `jsonb` columns.
"""

from __future__ import annotations

from dataclasses import replace

from osiris.oml.values import Config, MutableConfig
from osiris.registry.registry import spec_defaults
from osiris.run.driver import StepContext, StepOutcome
from osiris.run.drivers import postgres
from osiris.run.drivers.sql_types import is_nested
from osiris.run.problems import setting_problem
from osiris.run.spool import quote_ident

DSN_FIELDS = ("pg_dsn", "dsn", "sql_dsn")
LOOPBACK = ("localhost", "127.0.0.1", "::1")
DATABASE_FIELDS = ("host", "port", "database", "user", "password", "sslmode")
# Where `database_fields` connects: a DSN, or host, port and sslmode, each also with `pg_`.
ENDPOINT_FIELDS = (*DSN_FIELDS, *(prefix + name for prefix in ("", "pg_") for name in ("host", "port", "sslmode")))
PASSED_ON = ("table", "schema", "write_mode", "primary_key", "batch_size")
_DSN_NAMES = {"host": "host", "port": "port", "dbname": "database", "user": "user", "password": "password",
              "sslmode": "sslmode"}


def database_fields(config: Config) -> MutableConfig | None:
    """host/port/database/user/password/sslmode of the project's database; None when not given.

    A Supabase database is reached over the internet, so TLS is required (`sslmode=require`, as
    public Osiris has it) unless the connection says otherwise or the host is this machine."""
    dsn = next((str(config[name]) for name in DSN_FIELDS if config.get(name)), None)
    if dsn is not None:
        fields = _parsed_dsn(dsn)
    else:
        fields = {name: config.get("pg_" + name, config.get(name)) for name in DATABASE_FIELDS}
        fields = {name: value for name, value in fields.items() if value not in (None, "")}
    if not {"host", "database", "user"} <= fields.keys():
        return None
    if "sslmode" not in fields and str(fields["host"]) not in LOOPBACK:
        fields["sslmode"] = "require"
    return fields


def _parsed_dsn(dsn: str) -> MutableConfig:
    from psycopg import ProgrammingError
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(dsn)
    except ProgrammingError:  # its text may quote the DSN, password and all: never shown
        raise setting_problem("pg_dsn of the supabase connection is not a PostgreSQL connection string",
                              "write it as postgresql://USER:PASSWORD@HOST:5432/postgres (the project's "
                              "connection string in Supabase's database settings)") from None
    return {ours: parts[theirs] for theirs, ours in _DSN_NAMES.items() if parts.get(theirs) not in (None, "")}


def json_columns(ctx: StepContext, source: str, columns: list[tuple[str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """The input with nested columns as JSON (a view when any is nested), and its columns."""
    if not any(is_nested(kind) for _, kind in columns):
        return source, columns
    view = f"{source}_as_json"
    select = ", ".join(f"to_json({quote_ident(n)}) AS {quote_ident(n)}" if is_nested(k) else quote_ident(n)
                       for n, k in columns)
    ctx.con.execute(f"CREATE OR REPLACE TEMP VIEW {quote_ident(view)} AS SELECT {select} FROM {quote_ident(source)}")
    return view, [(n, "JSON" if is_nested(k) else k) for n, k in columns]


def write_through_database(ctx: StepContext, database: Config, source: str,
                           create: bool) -> StepOutcome:
    """The step as postgres.writer writes it, into the project's database; `create`: create a missing table.
    Its config is postgres.writer's effective one: that spec's defaults (sslmode, batch_size...) under
    the database's fields and what the step passes on."""
    config = {**spec_defaults("postgres.writer"), **database, **{name: ctx.config[name] for name in PASSED_ON if name in ctx.config},
              "create_if_missing": create, "keep_existing": ctx.config.get("prefer") == "resolution=ignore-duplicates"}
    given = [ctx.config.get(name) for name in DSN_FIELDS] + [database.get("password")]
    secrets = (*ctx.secrets, *(str(value) for value in given if value))
    step = replace(ctx, component="postgres.writer", config=config, secrets=secrets,
                   input_tables={"input": source})
    return postgres.DRIVER.run(step)
