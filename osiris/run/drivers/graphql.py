"""graphql.extractor: the rows of a GraphQL query into the step's DuckDB table.

The query is POSTed with its `variables`. With `pagination_enabled`, the pageInfo object at
`pagination_path` is read from the same response (one request per page): while its
`pagination_has_next_field` is true, its `pagination_cursor_field` is sent as the variable
`pagination_variable_name`. A response with `errors` is OML515, even when it carries some data or comes with a 400 status.
`flatten_result` turns nested objects into columns (`owner: {login}` -> `owner_login`); otherwise
they stay STRUCT columns. Retries and auth are those of rest.extractor; `retry_delay` is the first
backoff wait, doubled each retry. A cursor that comes back (X, Y, X), pages that repeat, and
`max_pages` end paging as in rest.extractor (osiris.run.paging). An answer without records gives an
empty table with the columns the query selects at data_path (osiris.run.graphql_selection), or
OML539 when the query cannot tell them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from osiris.oml.incremental import with_request_value
from osiris.oml.values import Config, Value
from osiris.problems import no_page_info_problem
from osiris.run.driver import Family, StepContext, StepOutcome, TableInfo
from osiris.run.drivers.rest import rest_client
from osiris.run.http import ENDPOINT_FIELDS, HttpClient, safe_url
from osiris.run.fields import flag, spec_mapping, text
from osiris.run.json_records import Record, RecordSpool, describe_keys, dig, read_pages, records_at, spooled_outcome
from osiris.run.graphql_selection import Unknowable, columns_at
from osiris.run.paging import PageGuard
from osiris.run.problems import unknown_columns_problem

MAX_ERRORS_SHOWN = 3


class GraphQLDriver:
    def run(self, ctx: StepContext) -> StepOutcome:
        config = with_request_value(ctx.config, "variables", ctx.read_after)  # an incremental read (docs/run-again.md)
        flat = flag(config, "flatten_result")
        with rest_client(config, ctx.secrets) as client, RecordSpool(ctx.work_dir, flat=flat) as spool:
            read_pages(_pages(client, config), ctx, spool)
            if spool.count:
                return spooled_outcome(ctx, spool, client.notes)
            known = [(name, "JSON") for name in selected_columns(config, flat)]
            return spooled_outcome(ctx, spool, client.notes, known, "the query's selection at data_path")

    def discover(self, config: Config, tables: list[str] | None) -> list[TableInfo]:
        """The query fields `tables` (all when None) by introspection (osiris.run.graphql_schema)."""
        from osiris.catalog.connection import secret_values
        from osiris.run.graphql_schema import query_fields

        with rest_client(config, secret_values(config)) as client:
            return query_fields(client, str(config.get("endpoint") or ""), tables)


def _pages(client: HttpClient, config: Config) -> Iterator[list[Record]]:
    endpoint = str(config["endpoint"])
    where = safe_url(endpoint)
    variables = dict(spec_mapping(config, "variables"))
    paginate = flag(config, "pagination_enabled")
    variable = _variable(config)
    guard = PageGuard(config, where, client.notes,
                      f"check that the query passes ${variable} (pagination_variable_name) to the paged field, e.g. "
                      f"items(first: 50, {variable}: ${variable}), and that pagination_cursor_field names the "
                      "cursor of the page's end")
    while True:
        response = client.send("POST", endpoint, json={"query": config["query"], "variables": variables},
                               passthrough=(400, 422))
        payload = client.json(response)
        _raise_errors(client, payload, where)
        if response.status_code >= 400:
            raise client.status_problem(response, "POST", retries=0)
        records = records_at(payload, _data_path(config), where)
        guard.read(records)
        yield records
        if not paginate or not records:
            return
        cursor = _next_cursor(payload, config, where)
        if cursor is None or not guard.may_follow("cursor", cursor):
            return
        variables[variable] = cursor


def selected_columns(config: Config, flat: bool) -> list[str]:
    """The columns the query selects at data_path, for an answer without records (its table has
    them, each JSON: no value shows what they hold); OML539 when the query cannot tell them."""
    data_path = _data_path(config)
    try:
        return columns_at(str(config["query"]), data_path, flat=flat)
    except Unknowable as why:
        raise unknown_columns_problem(data_path, str(why)) from None


def _data_path(config: Config) -> str:
    return text(config, "data_path")


def _variable(config: Config) -> str:
    return text(config, "pagination_variable_name")


def _next_cursor(payload: Value, config: Config, where: str) -> Value:
    """The cursor of the next page, or None on the last page."""
    path = text(config, "pagination_path")
    info = dig(payload, path)
    if not isinstance(info, Mapping):
        raise no_page_info_problem(path, where, describe_keys(payload))
    has_next = info.get(text(config, "pagination_has_next_field"))
    cursor = info.get(text(config, "pagination_cursor_field"))
    return cursor if has_next and cursor not in (None, "") else None


def _raise_errors(client: HttpClient, payload: Value, where: str) -> None:
    errors = payload.get("errors") if isinstance(payload, Mapping) else None
    if not errors:
        return
    items = errors if isinstance(errors, list) else [errors]
    texts = [str(e.get("message", e)) if isinstance(e, Mapping) else str(e) for e in items]
    shown = client.server_text("; ".join(texts[:MAX_ERRORS_SHOWN]), limit=400)
    more = f" (and {len(texts) - MAX_ERRORS_SHOWN} more)" if len(texts) > MAX_ERRORS_SHOWN else ""
    raise client.problem(
        "OML515",
        f"the GraphQL endpoint {where} answered with errors: {shown}{more}",
        "Fix the query or its variables; the endpoint's schema names the fields it accepts.",
    )


DRIVER = GraphQLDriver()
FAMILY = Family("graphql", "GraphQL API", ("graphql.extractor",), kind="api", discoverable=True, discovers="fields",
                endpoints=("endpoint", *ENDPOINT_FIELDS))
