"""posthog.extractor: PostHog events, persons, sessions or person distinct ids, through the HogQL
query API, into the step's DuckDB table.

Every page is one `POST {base}/api/projects/{project_id}/query/` carrying a HogQL query, with the
personal API key as `Authorization: Bearer`. The base is https://us.posthog.com or
https://eu.posthog.com by `region`, or `custom_base_url` for `self_hosted`.

Pages are read by seek, never by offset: rows come ordered by two columns (the data type's `KEY`)
and each next page asks for the rows after the last one read, so a deep page costs what the first
did and rows sharing a timestamp are neither lost nor read twice. A page shorter than its LIMIT
(`page_size`, or what a sample still needs) is the last. A full page whose last row cannot lead on
(a key column empty, or the row the page before ended on) fails the step with OML535: the rest
could not be read, and a partial copy never succeeds.

Events and sessions are read from `initial_since` (30 days before the run when not set) up to the
moment the run started; `event_types` keeps only those events. With `incremental: {cursor:
timestamp}` (the data type's time column) a run reads the rows after the highest value the last
successful run read (docs/run-again.md), the value a HogQL placeholder (`{osiris_after}`, sent in
the query's `values`) that PostHog binds. `lookback_window_minutes` (public Osiris's re-read of the
last minutes) is accepted and unused: re-read events would be written twice by an append.
An event whose uuid was among the last 10,000 read is dropped (`deduplication_enabled`): ClickHouse
can hold an event twice until it merges, and rows come in key order, so a twin comes next to it.

HogQL returns `properties` as JSON text; it becomes one column per property, named as in public
Osiris: `properties_<name>` for events, `person_properties_<name>` for persons.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

from osiris.oml.values import Config, Value
from osiris.problems import (
    invalid_response_problem,
    not_a_datetime_problem,
    paging_stalled_problem,
    unknown_data_type_problem,
)
from osiris.run.driver import ColumnInfo, Family, RuntimeProblem, StepContext, StepOutcome, TableInfo
from osiris.run.http import ENDPOINT_FIELDS as HTTP_ENDPOINT_FIELDS
from osiris.run.http import HttpClient, safe_url
from osiris.run.http import client_for as http_client
from osiris.run.fields import flag, integer, text, texts
from osiris.run.json_records import Record, RecordSpool, describe_keys, read_pages, spooled_outcome
from osiris.run.problems import setting_problem
from osiris.suggest import did_you_mean

BASE_URLS = {"us": "https://us.posthog.com", "eu": "https://eu.posthog.com"}
DEFAULT_DAYS = 30  # how far back events and sessions are read without initial_since
RECENT_UUIDS = 10_000  # event uuids remembered for deduplication
AFTER = "osiris_after"  # the HogQL placeholder of an incremental read's start


@dataclass(frozen=True)
class DataType:
    """One `data_type`: the HogQL table, what is selected, and how pages follow each other."""

    table: str
    columns: str
    key: tuple[str, str]  # the seek key: the sort column, then the row's identity (the tie-breaker)
    key_is_time: bool  # the sort column is a datetime, compared through toDateTime
    windowed: bool  # bounded by [since, until) on the sort column
    prefix: str | None = None  # the JSON `properties` become `<prefix><name>` columns


Key = tuple[Value, Value]  # a row's seek key: its sort column's value, then its identity's

DATA_TYPES = {
    "events": DataType("events", "uuid, event, timestamp, distinct_id, person_id, properties",
                       ("timestamp", "uuid"), key_is_time=True, windowed=True, prefix="properties_"),
    "persons": DataType("persons", "id, created_at, properties, is_identified", ("created_at", "id"),
                        key_is_time=True, windowed=False, prefix="person_properties_"),
    "sessions": DataType("sessions", "*", ("$start_timestamp", "session_id"), key_is_time=True, windowed=True),
    "person_distinct_ids": DataType("person_distinct_ids", "distinct_id, person_id", ("person_id", "distinct_id"),
                                    key_is_time=False, windowed=False),
}


class PostHogDriver:
    def run(self, ctx: StepContext) -> StepOutcome:
        config = ctx.config
        kind = DATA_TYPES[str(config["data_type"])]
        read, url = Read(kind, time_window(config), config, ctx.sample, read_after(ctx, kind)), query_url(config)
        with client_for(config, ctx.secrets) as client, RecordSpool(ctx.work_dir) as spool:
            read_pages(read.pages(client, url), ctx, spool)
            return spooled_outcome(ctx, spool, client.notes + read.notes, None if spool.count else read.columns)

    def discover(self, config: Config, tables: list[str] | None) -> list[TableInfo]:
        """Each data type's columns and PostHog types, from a `LIMIT 0` query (which proves the key)."""
        for name in tables or []:
            if name not in DATA_TYPES:
                raise unknown_data_type_problem(name, "posthog.extractor", list(DATA_TYPES))
        with client_for(config, ()) as client:
            url = query_url(config)
            return [_describe(client, url, config, name) for name in tables or list(DATA_TYPES)]


def _describe(client: HttpClient, url: str, config: Config, name: str) -> TableInfo:
    kind = DATA_TYPES[name]
    payload = ask(client, url, config, f"SELECT {kind.columns} FROM {kind.table} LIMIT 0")
    rows(payload, url)  # OML515 unless it is a query answer: an object with `results` and `columns` lists
    answer = payload if isinstance(payload, Mapping) else {}
    pairs, names = answer.get("types"), answer.get("columns")
    types = {str(pair[0]): str(pair[1]) for pair in (pairs if isinstance(pairs, list) else [])
             if isinstance(pair, list) and len(pair) == 2}
    columns = [ColumnInfo(str(c), types.get(str(c), "unknown")) for c in (names if isinstance(names, list) else [])]
    return TableInfo(name, columns, [kind.key[1]])


# the client settings posthog.extractor's spec does not offer: each request's deadline, PostHog's 429s retried 5 times
CLIENT_SETTINGS: Config = {"timeout": 30, "max_retries": 5, "retry_delay": 1.0, "validate_ssl": True,
                           "max_response_mb": 64}


def client_for(config: Config, secrets: tuple[str, ...]) -> HttpClient:
    return http_client(config, secrets, {"Authorization": f"Bearer {config.get('api_key') or ''}"}, CLIENT_SETTINGS)


def query_url(config: Config) -> str:
    """`{base}/api/projects/{project_id}/query/` for the region, or the self-hosted base."""
    region = text(config, "region")
    if region == "self_hosted":
        base = str(config.get("custom_base_url") or "").strip()
        if not base:
            raise setting_problem("a self-hosted PostHog needs custom_base_url, and the step has none",
                                  "set custom_base_url (e.g. https://posthog.example.com) in the step's posthog "
                                  "connection in .osiris.yaml")
    elif region in BASE_URLS:
        base = BASE_URLS[region]
    else:
        raise setting_problem(f"unknown PostHog region '{region}'",
                              f"region is one of: us, eu, self_hosted{did_you_mean(region, [*BASE_URLS, 'self_hosted'])}",
                              value=region)
    return f"{base.rstrip('/')}/api/projects/{quote(str(config.get('project_id') or ''), safe='')}/query/"


def time_window(config: Config) -> tuple[datetime, datetime]:
    """[initial_since, now) in UTC; 30 days back when initial_since is not set."""
    until = datetime.now(UTC)
    given = config.get("initial_since")
    if not given:
        return until - timedelta(days=DEFAULT_DAYS), until
    try:
        since = datetime.fromisoformat(str(given).strip())
    except ValueError:
        raise not_a_datetime_problem("initial_since", given) from None
    return (since.replace(tzinfo=UTC) if since.tzinfo is None else since.astimezone(UTC)), until


def read_after(ctx: StepContext, kind: DataType) -> str | None:
    """An incremental read's start (docs/run-again.md): the value its rows' time column must pass.
    The cursor must be that column, the one pages are sorted and sought by."""
    if ctx.read_after is None:
        return None
    cursor, value = ctx.read_after
    if cursor != kind.key[0] or not kind.key_is_time:
        right = (f"its cursor is {kind.key[0]}" if kind.key_is_time
                 else "it has no time column to read on from: remove incremental")
        raise setting_problem(f"posthog.extractor reads {kind.table} incrementally only by {kind.key[0]}, not by "
                              f"'{cursor}'", f"for data_type {kind.table}, {right}", value=cursor)
    return str(value)


class Read:
    """The pages of one data type: each page's query follows from the last row of the one before.
    An incremental read (`after`) starts after that instant instead of at the window's start."""

    def __init__(self, kind: DataType, window: tuple[datetime, datetime], config: Config,
                 sample: int | None, after: str | None = None) -> None:
        self.kind, self.window, self.sample, self.after = kind, window, sample, after
        self.page_size = integer(config, "page_size")
        self.event_types = texts(config, "event_types") if kind.table == "events" else []
        dedupe = flag(config, "deduplication_enabled") and kind.table == "events"
        self.seen = RecentIds(RECENT_UUIDS) if dedupe else None
        self.config = config
        self.notes: list[str] = []
        self.columns: list[tuple[str, str]] | None = None  # the answer's columns: an empty read's table has them

    def pages(self, client: HttpClient, url: str) -> Iterator[list[Record]]:
        after: Key | None = None
        kept = dropped = pages = 0
        while True:
            limit = self.page_size if self.sample is None else max(1, min(self.page_size, self.sample - kept))
            payload = ask(client, url, self.config, self.query(after, limit), self.values())
            found = rows(payload, url)
            if after is None:
                self.columns = duckdb_columns(payload)
            pages += 1
            fresh = [row for row in found if self.seen is None or self.seen.first(row.get("uuid"))]
            dropped += len(found) - len(fresh)
            kept += len(fresh)
            yield [self.record(row) for row in fresh]
            if len(found) < limit:
                break
            after = self.next_key(found[-1], after, url, pages)
        if dropped:
            self.notes.append(f"dropped {dropped} {'event' if dropped == 1 else 'events'} read twice (same uuid)")

    def next_key(self, last: Record, after: Key | None, url: str, pages: int) -> Key:
        """The seek key of the page after a full one: its last row's two key columns. OML535 when
        that row cannot lead on (a key column empty, or the key the page was asked to start after):
        the rows after it would be missing, and a partial copy must not succeed."""
        following = (last.get(self.kind.key[0]), last.get(self.kind.key[1]))
        missing = [name for name, value in zip(self.kind.key, following, strict=True) if value is None]
        if missing:
            why = f"the last row of page {pages} has no {' and no '.join(missing)} to read on from"
        elif following == after:
            why = f"page {pages} ended on the row page {pages - 1} ended on"
        else:
            return following
        first, second = self.kind.key
        raise paging_stalled_problem(safe_url(url), why, f"rows are paged by {first}, then {second}: every row needs both, and "
                         f"each page must start after the last row read (rows with a greater {first}, or the "
                         f"same {first} and a greater {second}); check that region and custom_base_url name a "
                         "PostHog whose query API applies the query's WHERE and ORDER BY", pages)

    def query(self, after: Key | None, limit: int) -> str:
        first, second = self.kind.key
        conditions = []
        if self.kind.windowed:
            since, until = (f"toDateTime({hogql_string(t.strftime('%Y-%m-%d %H:%M:%S.%f'))}, 'UTC')"
                            for t in self.window)
            conditions += [f"{first} >= {since}"] if self.after is None else []
            conditions += [f"{first} < {until}"]
        if self.after is not None:  # a HogQL placeholder: PostHog binds the value, never pasted in the text
            conditions.append(f"{first} > toDateTime({{{AFTER}}})")
        if self.event_types:
            conditions.append(f"event IN ({', '.join(map(hogql_string, self.event_types))})")
        if after is not None:
            at = hogql_string(str(after[0]))
            at = f"toDateTime({at})" if self.kind.key_is_time else at
            conditions.append(f"({first} > {at} OR ({first} = {at} AND {second} > {hogql_string(str(after[1]))}))")
        where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
        return f"SELECT {self.kind.columns} FROM {self.kind.table}{where} ORDER BY {first} ASC, {second} ASC LIMIT {limit}"

    def values(self) -> dict[str, Value]:
        """The query's placeholder values (HogQLQuery `values`)."""
        return {AFTER: self.after} if self.after is not None else {}

    def record(self, row: Record) -> Record:
        """The row with its JSON `properties` spread into prefixed columns (events and persons)."""
        if self.kind.prefix is None or "properties" not in row:
            return row
        properties = row["properties"]
        if isinstance(properties, str):
            try:
                properties = json.loads(properties)
            except ValueError:
                return row
        if not isinstance(properties, Mapping):
            return row
        record = {name: value for name, value in row.items() if name != "properties"}
        record.update({f"{self.kind.prefix}{name}": value for name, value in properties.items()})
        return record


class RecentIds:
    """The last `size` ids seen: `first(id)` is True the first time an id comes within that window."""

    def __init__(self, size: int) -> None:
        self._order: deque[Hashable] = deque()
        self._ids: set[Hashable] = set()
        self._size = size

    def first(self, value: Value) -> bool:
        if value is None:
            return True
        value = value if isinstance(value, Hashable) else repr(value)  # an id is text; a list is told by its text
        if value in self._ids:
            return False
        self._order.append(value)
        self._ids.add(value)
        if len(self._order) > self._size:
            self._ids.discard(self._order.popleft())
        return True


_DUCKDB_TYPES = (("DateTime", "TIMESTAMPTZ"), ("Int", "BIGINT"), ("UInt", "BIGINT"), ("Float", "DOUBLE"),
                 ("Bool", "BOOLEAN"))  # ClickHouse type prefixes; the rest (String, UUID...) is VARCHAR


def duckdb_columns(payload: Value) -> list[tuple[str, str]] | None:
    """The columns of a query answer as DuckDB types, `properties` left out (spread only from rows):
    the table of a read that got no row (an incremental run with nothing new)."""
    pairs = payload.get("types") if isinstance(payload, Mapping) else None
    if not isinstance(pairs, list):
        return None
    found = []
    for pair in pairs:
        if isinstance(pair, list) and len(pair) == 2 and str(pair[0]) != "properties":
            kind = str(pair[1]).removeprefix("Nullable(")
            found.append((str(pair[0]), next((t for prefix, t in _DUCKDB_TYPES if kind.startswith(prefix)), "VARCHAR")))
    return found or None


def hogql_string(value: str) -> str:
    """A HogQL string literal: backslashes and single quotes escaped, so no value can end it early."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def ask(client: HttpClient, url: str, config: Config, query: str,
        values: Mapping[str, Value] | None = None) -> Value:
    """One HogQL query's JSON answer (`values`: its `{placeholder}` values, bound by PostHog); 401,
    403 and 404 get hints in PostHog's terms."""
    body: dict[str, Value] = {"kind": "HogQLQuery", "query": query, **({"values": dict(values)} if values else {})}
    try:
        response = client.send("POST", url, json={"query": body})
    except RuntimeProblem as problem:
        status = problem.value if isinstance(problem.value, int) else None
        hint = _status_hint(status, config)
        if hint is None:
            raise
        raise client.problem(problem.code, problem.message, hint, status) from None
    answer: Value = client.json(response)  # parsed by osiris.run.json_text.parse_json: JSON's values
    return answer


def _status_hint(status: int | None, config: Config) -> str | None:
    project = config.get("project_id")
    if status == 401:
        return ("Check the api_key of the step's posthog connection: the query API wants a personal API key "
                "(phx_...), not the project API key (phc_...).")
    if status == 403:
        return (f"The key was accepted but may not run queries in project {project}: give it the query:read "
                "scope and access to that project.")
    if status == 404:
        return f"Check project_id ({project}) and region ({text(config, 'region')}): no such project there."
    return None


def rows(payload: Value, url: str) -> list[Record]:
    """The answer's rows as {column: value}; OML515 when it is not a HogQL query answer."""
    results = payload.get("results") if isinstance(payload, Mapping) else None
    columns = payload.get("columns") if isinstance(payload, Mapping) else None
    if not isinstance(results, list) or not isinstance(columns, list):
        raise invalid_response_problem(safe_url(url), "no 'results' and 'columns' lists",
                                       f"{describe_keys(payload)} Check region and custom_base_url: they must name a "
                                       "PostHog, whose query API answers with both.")
    names = [str(name) for name in columns]
    if any(not isinstance(row, list) or len(row) != len(names) for row in results):
        raise invalid_response_problem(safe_url(url), f"a row does not match the {len(names)} columns",
                                       "Check region and custom_base_url.")
    return [dict(zip(names, row, strict=True)) for row in results]


DRIVER = PostHogDriver()
FAMILY = Family("posthog", "PostHog", ("posthog.extractor",), kind="api", discoverable=True,
                endpoints=("region", "custom_base_url", *HTTP_ENDPOINT_FIELDS))
