"""One deadline for a whole HTTP request: connecting, the headers and the body (docs/run-http.md).

httpx's `timeout` bounds each network read, so a server that sends one byte a second never times
out. `deadline_transport` gives httpx a network layer whose every connect, read and write waits at
most until the request's deadline: the socket's own timeout is what is left of it, so a trickling
server is cut at `timeout` seconds after the request began, whether it trickles the headers or the
body. The deadline is started by `Deadline.start` before each request (HttpClient does it).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

    import httpx
    from httpcore import SOCKET_OPTION


class Deadline:
    """The moment the current request must be over; None between requests."""

    def __init__(self) -> None:
        self.at: float | None = None

    def start(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def left(self, timeout: float | None, expired: type[Exception]) -> float | None:
        """The socket timeout to use now: the smaller of `timeout` and what is left; `expired` once none is."""
        if self.at is None:
            return timeout
        remaining = self.at - time.monotonic()
        if remaining <= 0:
            raise expired("the request's deadline passed")
        return remaining if timeout is None else min(timeout, remaining)


def deadline_transport(deadline: Deadline, *, verify: bool) -> httpx.HTTPTransport:
    """An httpx transport whose connections give up when `deadline` passes."""
    import httpcore
    import httpx

    class Stream(httpcore.NetworkStream):
        def __init__(self, inner: httpcore.NetworkStream) -> None:
            self._inner = inner

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self._inner.read(max_bytes, deadline.left(timeout, httpcore.ReadTimeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self._inner.write(buffer, deadline.left(timeout, httpcore.WriteTimeout))

        def close(self) -> None:
            self._inner.close()

        def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                      timeout: float | None = None) -> httpcore.NetworkStream:
            return Stream(self._inner.start_tls(ssl_context, server_hostname,
                                                deadline.left(timeout, httpcore.ConnectTimeout)))

        def get_extra_info(self, info: str) -> object:
            return self._inner.get_extra_info(info)

    class Backend(httpcore.NetworkBackend):
        def __init__(self) -> None:
            self._inner = httpcore.SyncBackend()

        def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                        socket_options: Iterable[SOCKET_OPTION] | None = None) -> httpcore.NetworkStream:
            left = deadline.left(timeout, httpcore.ConnectTimeout)
            return Stream(self._inner.connect_tcp(host, port, left, local_address, socket_options))

        def connect_unix_socket(self, path: str, timeout: float | None = None,
                                socket_options: Iterable[SOCKET_OPTION] | None = None,
                                ) -> httpcore.NetworkStream:  # pragma: no cover
            return Stream(self._inner.connect_unix_socket(path, deadline.left(timeout, httpcore.ConnectTimeout),
                                                          socket_options))

        def sleep(self, seconds: float) -> None:  # pragma: no cover
            self._inner.sleep(seconds)

    transport = httpx.HTTPTransport(verify=verify)
    # httpx builds its connection pool without a way to pass a network layer; this pool is the one
    # it would build, with ours. tests/test_run_http_limits.py pins that a trickling server is cut.
    transport._pool = httpcore.ConnectionPool(ssl_context=httpx.create_ssl_context(verify=verify),
                                              network_backend=Backend())
    return transport
