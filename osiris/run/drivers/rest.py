"""rest.extractor: JSON records from an HTTP API, page by page, into the step's DuckDB table.

Pagination styles (the spec's `pagination`):
- `none`: one request.
- `page`: `page_param` = 1, 2, 3, ... (starting from `params[page_param]` when given).
- `offset`: `page_param` = 0, then advanced by the number of records each page returned.
- `cursor`: the next cursor is read at `cursor_path` in each body and sent as `cursor_param`.
- `link_header`: the `Link: <...>; rel="next"` URL is followed (same origin only).
Page and offset paging end on an empty page or on a page shorter than the first one; cursor paging
ends when the cursor is empty. Paging that comes back to a cursor, a URL or page contents already
read stops there with a warning, and `max_pages` bounds the rest (osiris.run.paging). `page_size`,
when set, is sent as `page_size_param` (`per_page` for page and link_header paging, `limit`
otherwise, as public Osiris's REST recipe sends it). A sample of N reads exactly N records and stops
requesting pages as soon as it has them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlsplit

from osiris.oml.incremental import with_request_value
from osiris.oml.values import Config, Value
from osiris.run.driver import ColumnInfo, Family, StepContext, StepOutcome, TableInfo
from osiris.run.http import ENDPOINT_FIELDS, HttpClient, auth_headers, client_for, join_url, safe_url
from osiris.run.fields import optional_integer, spec_mapping, text
from osiris.run.json_records import Page, Record, RecordSpool, read_pages, records_at, spooled_outcome
from osiris.run.json_stream import missing
from osiris.problems import paging_stalled_problem
from osiris.run.paging import PageGuard
from osiris.secrets.names import is_secret_key

if TYPE_CHECKING:
    import httpx


PAGE_SIZE_PARAMS = {"page": "per_page", "link_header": "per_page"}  # else limit


# the client setting rest.extractor's spec does not offer (graphql.extractor's does, and its value wins)
CLIENT_SETTINGS: Config = {"retry_delay": 1.0}


def rest_client(config: Config, secrets: tuple[str, ...]) -> HttpClient:
    """A rest or graphql step's client: its auth headers, its settings from the spec (osiris.run.http)."""
    return client_for(config, secrets, auth_headers(config), CLIENT_SETTINGS)


class RestDriver:
    def run(self, ctx: StepContext) -> StepOutcome:
        config = with_request_value(ctx.config, "params", ctx.read_after)  # an incremental read (docs/run-again.md)
        with rest_client(config, ctx.secrets) as client, RecordSpool(ctx.work_dir) as spool:
            read_pages(_pages(client, config), ctx, spool)
            known = None if spool.count else catalog_columns(config, ctx.project_dir)
            return spooled_outcome(ctx, spool, client.notes, known)

    def discover(self, config: Config, tables: list[str] | None) -> list[TableInfo]:
        """Each endpoint path's first answer as a catalog entry (osiris.catalog.api_shape): one
        authenticated GET a path; names and JSON types, never a value."""
        secrets = tuple(str(v) for k, v in config.items() if is_secret_key(k) and v)
        with rest_client(config, secrets) as client:
            return [_endpoint(client, config, path) for path in tables or []]


def _endpoint(client: HttpClient, config: Config, path: str) -> TableInfo:
    from osiris.catalog.api_shape import endpoint_entry

    endpoint, _, query = path.partition("?")
    params = {**spec_mapping(config, "params"), **dict(parse_qsl(query))}
    response = client.send("GET", endpoint_url({**config, "endpoint": endpoint}), params=params or None)
    body = client.json(response)
    entry = endpoint_entry(body, has_next_link=bool(response.links.get("next")))
    kinds = _duckdb_types(records_at(body, entry["data_path"], safe_url(response.url)))
    columns = [ColumnInfo(c["name"], c["type"], c["nullable"]) for c in entry.pop("columns")]
    entry["duckdb_types"] = {c.name: kinds[c.name] for c in columns if c.name in kinds}
    entry["base_url"] = safe_url(str(config["base_url"]).rstrip("/"))
    return TableInfo(path, columns, entry.pop("primary_key"), details=entry)


def catalog_columns(config: Config, project_dir: Path | None = None) -> list[tuple[str, str]] | None:
    """The DuckDB columns the project's catalog knows for this step's endpoint, base_url and
    data_path (`osiris discover @rest.NAME /path`), or None. The catalog is the project's
    (`project_dir`), wherever the run started; without one, the step's base_dir or the current folder."""
    from osiris.catalog.store import list_catalogs

    base, endpoint = safe_url(str(config["base_url"]).rstrip("/")), "/" + str(config["endpoint"]).lstrip("/")
    root = project_dir or Path(str(config.get("base_dir") or "."))
    for catalog in list_catalogs(root):
        for path, entry in catalog.tables.items():
            if (catalog.family == "rest" and path.partition("?")[0] == endpoint and entry.get("base_url") == base
                    and entry.get("data_path") == text(config, "data_path") and entry.get("duckdb_types")):
                return [(str(name), str(kind)) for name, kind in entry["duckdb_types"].items()]
    return None


def _duckdb_types(records: list[Record]) -> dict[str, str]:
    """The DuckDB type of each column, as a run makes them from these records (STRUCT, LIST, DATE...)."""
    from osiris.duckdb_core import duckdb

    con = duckdb.connect()
    try:
        with RecordSpool() as spool:
            spool.add(records)
            return dict(spool.load(con, "t")) if spool.count else {}
    finally:
        con.close()


def endpoint_url(config: Config) -> str:
    return str(config["base_url"]).rstrip("/") + "/" + str(config["endpoint"]).lstrip("/")


def _pages(client: HttpClient, config: Config) -> Iterator[list[Record]]:
    """Each page's records, requesting the next page only when the caller asks for it."""
    url = endpoint_url(config)
    method = text(config, "method").upper()
    style = text(config, "pagination")
    params = _first_params(config, style)
    body = config.get("body") if method == "POST" else None
    data_path = text(config, "data_path")
    page_param = text(config, "page_param")
    start = str(params.get(page_param, 1 if style == "page" else 0))
    number = int(start) if start.isdigit() else (1 if style == "page" else 0)
    guard = PageGuard(config, safe_url(url), client.notes, _paging_check(config, style, page_param))
    first_size: int | None = None
    while url:
        if style in ("page", "offset"):
            params[page_param] = number
        response = client.send(method, url, params=params or None, json=body)
        page = Page(client, response, data_path)
        if not page.first and guard.pages:
            return
        guard.read(page.fingerprint if page.first else [])
        yield from page.batches()
        if style == "none" or not page.count:
            return
        if style in ("page", "offset"):
            first_size = first_size or page.count
            if page.count < first_size or not guard.may_continue():
                return
            number += 1 if style == "page" else page.count
        elif style == "cursor":
            following = page.value_at(str(config.get("cursor_path") or ""))
            if following is missing or following in (None, "") or not guard.may_follow("cursor", following):
                return
            params[text(config, "cursor_param")] = following
        elif style == "link_header":
            guard.visited("link", str(response.url))
            url = _next_link(response, url, guard)
            if url and not guard.may_follow("link", url):
                return
            params = {}


def _paging_check(config: Config, style: str, page_param: str) -> str:
    """What to check when paging does not advance (OML535's hint), in the step's own settings."""
    if style in ("page", "offset"):
        return (f"check that the API pages by the parameter '{page_param}' (page_param; pagination: {style}); "
                "set page_param to the one its documentation names")
    if style == "cursor":
        return (f"check cursor_path ('{config.get('cursor_path') or ''}': the next cursor in a response) and "
                f"cursor_param ('{text(config, 'cursor_param')}': the parameter it is sent back in)")
    return ("check pagination: link_header: the API's Link rel=\"next\" must lead to a new page of the same site; "
            "an API whose pages are elsewhere needs its base_url, and paging by another style")


def _first_params(config: Config, style: str) -> dict[str, Value]:
    """The step's `params`, with `page_size` as `page_size_param` when set."""
    params: dict[str, Value] = dict(spec_mapping(config, "params"))
    page_size = optional_integer(config, "page_size")
    if page_size:
        params[str(config.get("page_size_param") or PAGE_SIZE_PARAMS.get(style, "limit"))] = page_size
    return params


def _next_link(response: httpx.Response, url: str, guard: PageGuard) -> str:
    """The `rel="next"` URL, resolved against the page; "" at the end. OML535 when it cannot be
    followed (not a URL, or on another site, where the step's credentials must not go): the pages
    after it would be missing."""
    link = response.links.get("next", {}).get("url")
    if not link:
        return ""
    joined = join_url(response, link)
    if joined is None:
        raise paging_stalled_problem(guard.where, f"the next link after page {guard.pages} is not a URL", guard.check,
                         guard.pages)
    target = str(joined)
    here, there = urlsplit(url), urlsplit(target)
    if (here.scheme, here.netloc) != (there.scheme, there.netloc):
        raise paging_stalled_problem(guard.where, f"the next page after page {guard.pages} is on another site "
                                      f"({safe_url(target)}), which is not followed", guard.check, guard.pages)
    return target


DRIVER = RestDriver()
FAMILY = Family("rest", "REST API", ("rest.extractor",), kind="api", discoverable=True, discovers="endpoints",
                endpoints=("base_url", *ENDPOINT_FIELDS))
