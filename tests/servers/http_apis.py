"""A local REST and GraphQL API for the rest and graphql drivers' tests (127.0.0.1, a free port).

It serves the same 23 records through every pagination style the rest.extractor spec lists, checks
bearer, basic and API-key auth, answers 401/403/404/500/429 on purpose, and records every request
it receives (method, path, query, headers, JSON body) so tests assert what the driver sent.

Routes (GET unless noted; `per` = page size, default 5):
    /all                          {"data": {"items": [...23]}}
    /page?page=N&per=K            {"items": [...]}               page numbers from 1
    /offset?offset=N&per=K        {"items": [...]}
    /cursor?cursor=C&per=K        {"results": [...], "meta": {"next_cursor": C2 | null}}
    /link?page=N&per=K            [...]  + Link: </link?page=N+1&per=K>; rel="next"
    /same                         {"items": [first 5]} whatever the paging parameters
    /moved  /away                 301 to /all; 302 to another site
    /link-away                    5 records + a Link to another site
    /bearer /basic /apikey        {"items": [...23]} when the credential matches, else 401
    /forbidden                    403       /broken  500 with retry-after: 0 (always)
    /busy                         429 with `busy_retry_after` for the first `busy_failures` calls
    /slow                         429 with retry-after: 300 (always)
    /echo-token                   400 whose body repeats the Authorization header
    /echo-header?name=H           400 whose body repeats the header H
    /quote-cell                   400 whose body quotes a record (CELL_CANARY) and holds ESC sequences
    /html                         200 text/html
    /tickets?cursor=C             bearer only: {"tickets": [...12 nested], "meta": {"next_cursor": C2 | null}}
                                  in pages of 5 (a helpdesk: requester {email, name}, tags, an optional due)
    POST /graphql                 {"data": {"items": {"nodes": [...], "pageInfo": {...}}}} or errors

Hostile routes (a run must end on each within its deadline, with one clear line):
    /trickle-body /trickle-headers   one byte every `trickle_every` seconds, for at most TRICKLE_FOR s
    /bomb                         a gzip body inflating to `bomb_mb` MiB of zeros
    /cursor-loop?cursor=C         cursors A, B, A, B, ...     /link-loop?page=N  links 1 -> 2 -> 1
    /flip?page=N                  two pages of records, alternating whatever N is
    /stuck?cursor=C               a first page with next_cursor S, then the next page, whose next_cursor is S again
    /endless?cursor=C             a new cursor and a new record on every page, for ever
    /big?mb=M                     one record of M MiB of text, then one small record
    /many?mb=M&cursor=C           M MiB of 1 KiB records under "items", then {"meta": {"next": C2}}: 2 pages
    /surrogate  /deep  /long-int  a lone escaped surrogate; 5,000 levels of nesting; a 5,000-digit integer
    /numbers                      {"items": [...]}: NUMBERS_BODY, JSON numbers of every size (docs/types.md)
    /token-at?at=N                400 whose body carries the bearer token at character N
    /bad-redirect  /bad-link      a redirect, and a Link rel=next, to "http://[::1" (not a URL)
    POST /graphql with variables {"loop": true}: endCursor X, Y, X, Y, ...
    POST /graphql whose query does not pass `after: $after`: the first page, whatever the variables
"""

from __future__ import annotations

import base64
import json
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

TOKEN = "tok-Planted-7c1e5b9a3d"  # planted: tests scan every message for it
API_KEY = "key-Planted-2f8d6a4c0e"
CELL_CANARY = "Ann-CANARY-7731"  # a value a server quotes in its error (/quote-cell)
USER, PASSWORD = "ada", "pw-Planted-9b3e7f1a"
RECORDS = [{"id": i, "name": f"item-{i}", "meta": {"rank": i % 3, "tags": [f"t{i}"]}} for i in range(1, 24)]
TICKETS = [{"id": i, "subject": f"subject {i}", "requester": {"email": f"user{i}@example.org", "name": f"User {i}"},
            "tags": [f"tag{i % 3}"], "due": None if i % 2 else f"2026-12-{i:02d}"} for i in range(1, 13)]
NUMBERS_BODY = (  # as an API writes them: BIGINT limits, beyond BIGINT and HUGEINT, decimals a double cannot hold
    b'{"items": [{"id": 1, "big": 9223372036854775807, "neg": -9223372036854775808, "huge": 12345678901234567890123, '
    b'"dec": 1234567890.123456789, "wide": 99999999999999999999.99, "small": 0.1, "sci": 1e300, '
    b'"long": 123456789012345678901234567890123456789012.5, "owner": {"rank": 1234567890.123456789}},\n'
    b' {"id": 2, "big": 1, "neg": 0, "huge": -5, "dec": 1.5, "wide": 0, "small": 2.5, "sci": 1.5, "long": 1, '
    b'"owner": {"rank": 1}},\n'
    b' {"id": 3, "big": null, "neg": null, "huge": null, "dec": null, "wide": null, "small": null, "sci": null, '
    b'"long": null, "owner": null}]}')
TRICKLE_FOR = 30.0  # seconds a trickling answer goes on at most, so that no server thread outlives a test run


def gzip_of_zeros(mb: int) -> bytes:
    """A gzip body that inflates to `mb` MiB of zero bytes (about 1 KiB of it per MiB)."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    parts = [squeeze.compress(block) for _ in range(mb)]
    return b"".join(parts) + squeeze.flush()


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any = None


@dataclass
class ApiServer:
    url: str = ""
    requests: list[Seen] = field(default_factory=list)
    busy_failures: int = 2
    busy_retry_after: str = "0"
    trickle_every: float = 0.2
    bomb_mb: int = 64
    _bombs: dict[int, bytes] = field(default_factory=dict)
    _server: ThreadingHTTPServer | None = None

    def bomb(self) -> bytes:
        if self.bomb_mb not in self._bombs:
            self._bombs[self.bomb_mb] = gzip_of_zeros(self.bomb_mb)
        return self._bombs[self.bomb_mb]

    def hits(self, path: str) -> list[Seen]:
        return [r for r in self.requests if r.path == path]

    def reset(self) -> None:
        self.requests.clear()
        self.busy_failures, self.busy_retry_after = 2, "0"
        self.trickle_every, self.bomb_mb = 0.2, 64

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()


def start_api() -> ApiServer:
    api = ApiServer()

    class Handler(_Handler):
        state = api

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    api._server = server
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return api


class _Handler(BaseHTTPRequestHandler):
    state: ApiServer

    def log_message(self, *args: object) -> None:  # keep pytest output clean
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        seen = Seen(self.command, parts.path, query, {k.lower(): v for k, v in self.headers.items()}, body)
        self.state.requests.append(seen)
        route = getattr(self, "route_" + parts.path.strip("/").replace("-", "_"), None)
        if route is None:
            return self.reply(404, {"error": "not found"})
        route(query, seen)

    def reply(self, status: int, payload: Any, headers: dict[str, str] | None = None, raw: bytes | None = None,
              content_type: str = "text/html") -> None:
        data = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", content_type if raw is not None else "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    # pagination styles
    def route_all(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(200, {"data": {"items": RECORDS}})

    def route_page(self, query: dict[str, str], seen: Seen) -> None:
        per = int(query.get("per", 5))
        start = (int(query.get("page", 1)) - 1) * per
        self.reply(200, {"items": RECORDS[start:start + per]})

    def route_offset(self, query: dict[str, str], seen: Seen) -> None:
        start, per = int(query.get("offset", 0)), int(query.get("per", 5))
        self.reply(200, {"items": RECORDS[start:start + per]})

    def route_cursor(self, query: dict[str, str], seen: Seen) -> None:
        start, per = int(query.get("cursor", "c0")[1:]), int(query.get("per", 5))
        following = f"c{start + per}" if start + per < len(RECORDS) else None
        self.reply(200, {"results": RECORDS[start:start + per], "meta": {"next_cursor": following}})

    def route_link(self, query: dict[str, str], seen: Seen) -> None:
        page, per = int(query.get("page", 1)), int(query.get("per", 5))
        rows = RECORDS[(page - 1) * per:page * per]
        more = page * per < len(RECORDS)
        link = {"link": f'</link?page={page + 1}&per={per}>; rel="next"'} if more else {}
        self.reply(200, rows, link)

    def route_same(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(200, {"items": RECORDS[:5]})  # ignores every paging parameter

    def route_moved(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(301, {}, {"location": "/all"})

    def route_away(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(302, {}, {"location": "http://elsewhere.invalid/steal"})

    def route_link_away(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(200, RECORDS[:5], {"link": '<http://elsewhere.invalid/link?page=2>; rel="next"'})

    # auth
    def route_bearer(self, query: dict[str, str], seen: Seen) -> None:
        self._guarded(seen.headers.get("authorization") == f"Bearer {TOKEN}")

    def route_basic(self, query: dict[str, str], seen: Seen) -> None:
        expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        self._guarded(seen.headers.get("authorization") == expected)

    def route_apikey(self, query: dict[str, str], seen: Seen) -> None:
        self._guarded(seen.headers.get("x-api-key") == API_KEY)

    def route_tickets(self, query: dict[str, str], seen: Seen) -> None:
        if seen.headers.get("authorization") != f"Bearer {TOKEN}":
            return self.reply(401, {"error": "invalid credentials"})
        start = int(query.get("cursor", "0"))
        following = str(start + 5) if start + 5 < len(TICKETS) else None
        self.reply(200, {"tickets": TICKETS[start:start + 5], "meta": {"next_cursor": following, "per_page": 5}})

    def _guarded(self, allowed: bool) -> None:
        if allowed:
            self.reply(200, {"items": RECORDS})
        else:
            self.reply(401, {"error": "invalid credentials"})

    # faults
    def route_forbidden(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(403, {"error": "forbidden"})

    def route_broken(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(500, {"error": "boom"}, {"retry-after": "0"})

    def route_busy(self, query: dict[str, str], seen: Seen) -> None:
        if len(self.state.hits("/busy")) <= self.state.busy_failures:
            return self.reply(429, {"error": "slow down"}, {"retry-after": self.state.busy_retry_after})
        self.reply(200, {"items": RECORDS[:3]})

    def route_slow(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(429, {"error": "slow down"}, {"retry-after": "300"})

    def route_echo_token(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(400, {"error": f"bad request with {seen.headers.get('authorization')} and {query}"})

    def route_echo_header(self, query: dict[str, str], seen: Seen) -> None:
        name = query.get("name", "")
        self.reply(400, {"error": f"bad request with {name}: {seen.headers.get(name.lower())}"})

    def route_quote_cell(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(400, {"error": f"customer {CELL_CANARY} is locked \x1b]52;c;aGk=\x07\x1b]0;owned\x07\x1b[2J"})

    def route_html(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(200, None, raw=b"<html><body>Welcome</body></html>")

    # hostile
    def _trickle(self, data: bytes) -> None:
        """Write `data` one byte at a time, `trickle_every` seconds apart, until the client leaves."""
        ends = time.monotonic() + TRICKLE_FOR
        try:
            for byte in data:
                if time.monotonic() > ends:
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(self.state.trickle_every)
        except OSError:  # the client gave up: what the test wants
            return

    def route_trickle_body(self, query: dict[str, str], seen: Seen) -> None:
        data = json.dumps({"items": RECORDS}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.flush()
        self._trickle(data)

    def route_trickle_headers(self, query: dict[str, str], seen: Seen) -> None:
        head = b"HTTP/1.1 200 OK\r\n" + b"".join(b"x-slow-%d: %s\r\n" % (n, b"y" * 20) for n in range(200))
        self._trickle(head + b"content-length: 2\r\n\r\n[]")

    def route_bomb(self, query: dict[str, str], seen: Seen) -> None:
        data = self.state.bomb()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-encoding", "gzip")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            return

    def route_cursor_loop(self, query: dict[str, str], seen: Seen) -> None:
        cursor = query.get("cursor", "")
        following = "B" if cursor == "A" else "A"
        start = {"": 0, "A": 5, "B": 10}[cursor]
        self.reply(200, {"results": RECORDS[start:start + 5], "meta": {"next_cursor": following}})

    def route_link_loop(self, query: dict[str, str], seen: Seen) -> None:
        page = int(query.get("page", 1))
        self.reply(200, RECORDS[(page - 1) * 5:page * 5], {"link": f'</link-loop?page={3 - page}>; rel="next"'})

    def route_stuck(self, query: dict[str, str], seen: Seen) -> None:
        """A first page, then pages whose next cursor is the cursor that asked for them."""
        cursor = query.get("cursor")
        start = 0 if cursor is None else 5
        self.reply(200, {"results": RECORDS[start:start + 5], "meta": {"next_cursor": "S"}})

    def route_flip(self, query: dict[str, str], seen: Seen) -> None:
        page = int(query.get("page", 1))
        self.reply(200, {"items": RECORDS[:5] if page % 2 else RECORDS[5:10]})

    def route_endless(self, query: dict[str, str], seen: Seen) -> None:
        number = int(query.get("cursor", "0"))
        self.reply(200, {"results": [{"id": number}], "meta": {"next_cursor": str(number + 1)}})

    def route_big(self, query: dict[str, str], seen: Seen) -> None:
        text = "x" * int(float(query.get("mb", "7")) * (1 << 20))
        self.reply(200, {"items": [{"id": 1, "text": text}, {"id": 2, "text": "small"}]})

    def route_many(self, query: dict[str, str], seen: Seen) -> None:
        count, page = int(query.get("mb", "20")) * 1024, int(query.get("cursor", "0"))
        items = ",".join(json.dumps({"id": page * count + i, "note": "x" * 1000}) for i in range(count))
        following = json.dumps(str(page + 1) if page == 0 else None)
        raw = f'{{"items": [{items}], "meta": {{"next": {following}}}}}'.encode()
        self.reply(200, None, raw=raw, content_type="application/json")

    def route_surrogate(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(200, None, raw=b'{"items": [{"id": 1, "name": "a\\ud800b"}, {"id": 2, "name": "ok"}]}',
                   content_type="application/json")

    def route_deep(self, query: dict[str, str], seen: Seen) -> None:
        depth = int(query.get("depth", 5000))
        raw = b'{"items": [{"id": 1, "tree": ' + b"[" * depth + b"]" * depth + b"}]}"
        self.reply(200, None, raw=raw, content_type="application/json")

    def route_long_int(self, query: dict[str, str], seen: Seen) -> None:
        raw = b'{"items": [{"id": 1, "big": ' + b"7" * 5000 + b'}, {"id": 2, "big": 5}]}'
        self.reply(200, None, raw=raw, content_type="application/json")

    def route_numbers(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(200, None, raw=NUMBERS_BODY, content_type="application/json")

    def route_bad_redirect(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(302, {}, {"location": "http://[::1"})

    def route_bad_link(self, query: dict[str, str], seen: Seen) -> None:
        self.reply(200, RECORDS[:5], {"link": '<http://[::1>; rel="next"'})

    def route_token_at(self, query: dict[str, str], seen: Seen) -> None:
        token = str(seen.headers.get("authorization", "")).removeprefix("Bearer ")
        at = int(query.get("at", 190))
        self.reply(400, None, raw=("e" * at + token + " tail").encode(), content_type="text/plain")

    # GraphQL
    def route_graphql(self, query: dict[str, str], seen: Seen) -> None:
        request = seen.body or {}
        if "invalid" in request.get("query", ""):
            return self.reply(400, {"errors": [{"message": "Syntax Error: Unexpected Name 'invalid'"}]})
        if "bare400" in request.get("query", ""):
            return self.reply(400, {"message": "bad request"})
        if "nope" in request.get("query", ""):
            errors = [{"message": "Cannot query field 'nope' on type 'Query'"}]
            return self.reply(200, {"errors": errors, "data": None})
        variables = request.get("variables") or {}
        if variables.get("loop"):
            after = variables.get("after")
            nodes = RECORDS[:5] if after in (None, "Y") else RECORDS[5:10]
            page = {"hasNextPage": True, "endCursor": "Y" if after == "X" else "X"}
            return self.reply(200, {"data": {"items": {"nodes": nodes, "pageInfo": page}}})
        first = int(variables.get("first", 5))
        start = int(variables.get("after") or 0) if "after: $after" in request.get("query", "") else 0  # as a server would
        end = min(start + first, len(RECORDS))
        page_info = {"hasNextPage": end < len(RECORDS), "endCursor": str(end)}
        self.reply(200, {"data": {"items": {"nodes": RECORDS[start:end], "pageInfo": page_info}}})
