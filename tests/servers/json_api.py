"""The smallest local API: every GET on 127.0.0.1 is answered with one JSON document, and each
request's path is recorded. With `hold`, each answer waits until the test sets that event, so a
test can see that a request arrived (`arrived`) and act while the client waits on it.

    with json_api({"items": [...]}) as api:
        step = {"component": "rest.extractor", "config": {"base_url": api.url, ...}}
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class JsonApi:
    url: str
    arrived: list[str] = field(default_factory=list)


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
    """Answer the request `handler` holds with `payload` as JSON."""
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """`handler` serving on 127.0.0.1 at a free port, in a thread, while the block runs: its URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def json_api(payload: Any, hold: threading.Event | None = None) -> Iterator[JsonApi]:
    api = JsonApi("")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            api.arrived.append(self.path)
            if hold is not None:
                hold.wait(60)
            send_json(self, 200, payload)

    with serving(Handler) as api.url:
        try:
            yield api
        finally:
            if hold is not None:
                hold.set()
