"""The part every SDK-backed provider shares: its client, built once, on first use or in advance."""

from __future__ import annotations

import threading
from typing import Any


class LazyClient:
    """Builds the SDK client on the first request, or when `prepare()` is called (the chat calls
    it while the person types); the chat's warm-up thread may get there first, hence the lock."""

    def __init__(self) -> None:
        self._client: Any = None
        self._client_lock = threading.Lock()

    def prepare(self) -> None:
        """Build the SDK client now."""
        self._get_client()

    def _get_client(self) -> Any:
        with self._client_lock:
            if self._client is None:
                self._client = self._new_client()
            return self._client

    def _new_client(self) -> Any:
        raise NotImplementedError
