"""Helpers drivers share to turn library exceptions into RuntimeProblems without leaking secrets."""

from __future__ import annotations

import re
from collections.abc import Iterable

from osiris.run.driver import RuntimeProblem
from osiris.secrets.redact import Redactor
from osiris.suggest import did_you_mean, listing
from osiris.trust.disclosure import withhold_values

_QUOTED = re.compile(r"""["'`]([^"'`]+)["'`]""")


def redacted(error: BaseException | str, secrets: Iterable[str] = ()) -> str:
    """The first line of a library's error text, with the step's secrets and any DSN or key masked,
    and the values it quotes withheld (docs/security.md, "What a run tells")."""
    raw = str(error).strip()
    text = raw.splitlines()[0] if raw else ""
    return withhold_values(masked(text, secrets)) if text else "no details"


def masked(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with the step's secrets and any DSN or key masked."""
    return Redactor(known_values=secrets).text(text)


def quoted_name(text: str) -> str | None:
    """The first quoted name in an error text: `column "emial" does not exist` -> `emial`."""
    match = _QUOTED.search(text)
    return match.group(1) if match else None


def names_hint(kind: str, wrong: str | None, known: Iterable[str]) -> str:
    """`tables in the database: a, b (did you mean 'a'?)`."""
    names = sorted(set(known))
    if not names:
        return f"the database lists no {kind}s this connection can see"
    bare = wrong.split(".")[-1] if wrong else None
    return f"{kind}s the database knows: {listing(names)}{did_you_mean(bare, names)}"


def connect_problem(family: str, host: object, port: object, detail: str) -> RuntimeProblem:
    return RuntimeProblem(
        "OML505", f"cannot connect to {family} at {host}:{port}: {detail}",
        f"check host and port of the step's {family} connection in .osiris.yaml, and that the server is running")


def auth_problem(family: str, user: object, detail: str) -> RuntimeProblem:
    return RuntimeProblem(
        "OML506", f"{family} rejected the user '{user}': {detail}",
        f"check the user of the step's {family} connection and the value of its password reference")


def permission_problem(detail: str) -> RuntimeProblem:
    return RuntimeProblem(
        "OML507", f"permission denied: {detail}",
        "grant the connection's user the rights this step needs (SELECT to read; INSERT, UPDATE, DELETE to write)")


def sql_problem(detail: str) -> RuntimeProblem:
    return RuntimeProblem("OML503", f"the database rejected the SQL: {detail}",
                          "correct the SQL in this step's query and run again")


def type_problem(detail: str) -> RuntimeProblem:
    return RuntimeProblem(
        "OML504", f"a value does not fit its column's type: {detail}",
        "cast the column in a duckdb.processor step before this one, or change the target column's type")


def rejected_problem(detail: str) -> RuntimeProblem:
    return RuntimeProblem(
        "OML514", f"the target rejected the rows: {detail}",
        "use an upsert on the key columns, or remove the offending rows in a transform step; nothing was kept")


def key_problem(keys: list[str], columns: list[str]) -> RuntimeProblem:
    return RuntimeProblem(
        "OML512",
        f"the upsert key {', '.join(repr(k) for k in keys)} is not a column of the rows written "
        f"(columns: {listing(columns)})",
        "set the key to columns the rows have, with a primary key or unique index on them in the target")
