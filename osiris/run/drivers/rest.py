"""rest.extractor: JSON records from an HTTP API, page by page, into the step's DuckDB table.

Pagination styles (the spec's `pagination`):
- `none`: one request.
- `page`: `page_param` = 1, 2, 3, ... (starting from `params[page_param]` when given).
- `offset`: `page_param` = 0, then advanced by the number of records each page returned.
- `cursor`: the next cursor is read at `cursor_path` in each body and sent as `cursor_param`.
- `link_header`: the `Link: <...>; rel="next"` URL is followed (same origin only).
Page and offset paging end on an empty page or on a page shorter than the first one; cursor paging
ends when the cursor is empty or repeats, and page or offset paging when two pages in a row are
the same (an API that ignores `page_param` would otherwise be read for ever). The page size is the API's own parameter: put it in
`params` (e.g. `params: {per_page: 100}`). `max_pages` and a sample end paging early; a sample of
N reads exactly N records and stops requesting pages as soon as it has them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from osiris.run.driver import Family, RuntimeProblem, StepContext, StepOutcome, TableInfo
from osiris.run.http import HttpClient, auth_headers, safe_url
from osiris.run.json_records import RecordSpool, dig, found, read_pages, records_at, spooled_outcome


def client_for(config: Mapping[str, Any], secrets: tuple[str, ...], retry_delay: float = 1.0) -> HttpClient:
    """The step's HTTP client: auth, timeout, retries and TLS checking from its config."""
    return HttpClient(
        headers=auth_headers(config),
        timeout=float(config.get("timeout") or 30),
        max_retries=int(config.get("max_retries", 3)),
        retry_delay=retry_delay,
        verify=bool(config.get("validate_ssl", True)),
        secrets=(*secrets, *(str(config[k]) for k in ("auth_token",) if config.get(k))),
    )


class RestDriver:
    def run(self, ctx: StepContext) -> StepOutcome:
        config = ctx.config
        with client_for(config, ctx.secrets) as client, RecordSpool(ctx.work_dir) as spool:
            read_pages(_pages(client, config), ctx, spool)
            return spooled_outcome(ctx, spool, client.notes)

    def discover(self, config: Mapping[str, Any], tables: list[str] | None) -> list[TableInfo]:
        raise RuntimeProblem(
            "OML302", "rest.extractor does not support the discover mode", "Its spec lists only extract."
        )


def _pages(client: HttpClient, config: Mapping[str, Any]) -> Iterator[list[dict[str, Any]]]:
    """Each page's records, requesting the next page only when the caller asks for it."""
    url = str(config["base_url"]).rstrip("/") + "/" + str(config["endpoint"]).lstrip("/")
    method = str(config.get("method") or "GET").upper()
    params: dict[str, Any] = dict(config.get("params") or {})
    body = config.get("body") if method == "POST" else None
    style = config.get("pagination") or "none"
    max_pages = int(config.get("max_pages") or 0)
    data_path = str(config.get("data_path") or "")
    page_param = str(config.get("page_param") or "page")
    start = str(params.get(page_param, 1 if style == "page" else 0))
    number = int(start) if start.isdigit() else (1 if style == "page" else 0)
    first_size: int | None = None
    fingerprint: str | None = None
    cursor: Any = None
    pages = 0
    while url:
        if style in ("page", "offset"):
            params[page_param] = number
        response = client.send(method, url, params=params or None, json=body)
        payload = client.json(response)
        records = records_at(payload, data_path, safe_url(response.url))
        pages += 1
        if not records and pages > 1:
            return
        if style in ("page", "offset"):
            fingerprint, previous = _fingerprint(records), fingerprint
            if fingerprint == previous:  # an API that ignores page_param would be read for ever
                client.notes.append(f"stopped paging: two pages in a row were the same; check that the API "
                                    f"reads '{page_param}'")
                return
        yield records
        if style == "none" or (max_pages and pages >= max_pages) or not records:
            return
        if style in ("page", "offset"):
            first_size = first_size or len(records)
            if len(records) < first_size:
                return
            number += 1 if style == "page" else len(records)
        elif style == "cursor":
            following = dig(payload, str(config.get("cursor_path") or ""))
            if not found(following) or following in (None, "") or following == cursor:
                return
            cursor = params[str(config.get("cursor_param") or "cursor")] = following
        elif style == "link_header":
            url = _next_link(response, url, client)
            params = {}


def _fingerprint(records: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(records, sort_keys=True, default=str).encode()).hexdigest()


def _next_link(response: Any, url: str, client: HttpClient) -> str:
    """The `rel="next"` URL, resolved against the page; "" at the end or when it leaves the origin."""
    link = response.links.get("next", {}).get("url")
    if not link:
        return ""
    target = str(response.url.join(link))
    here, there = urlsplit(url), urlsplit(target)
    if (here.scheme, here.netloc) != (there.scheme, there.netloc):
        client.notes.append(f"stopped paging: the next page is on another site ({safe_url(target)})")
        return ""
    return target


DRIVER = RestDriver()
FAMILY = Family("rest", "REST API", ("rest.extractor",), kind="api")
