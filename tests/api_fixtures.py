"""Fixtures for tests that run pipelines against the local API of tests/servers/http_apis.py:
one server a module, reset before each test. Import them into a test module by name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers.http_apis import ApiServer, start_api


def serving() -> Iterator[ApiServer]:
    """A fresh API server for as long as the fixture that yields from this lives."""
    server = start_api()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def api_server() -> Iterator[ApiServer]:
    yield from serving()


@pytest.fixture
def api(api_server: ApiServer) -> ApiServer:
    """The module's API server with no requests recorded and its default behaviour."""
    api_server.reset()
    return api_server
