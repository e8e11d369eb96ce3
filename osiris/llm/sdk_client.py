"""What every SDK-backed provider shares: its settings, and its client, built once, on first use or
in advance."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Generic, TypedDict, TypeVar

from osiris.llm.errors import LLMServiceError, stream_fault

if TYPE_CHECKING:
    from osiris.llm.http_library import http


Client = TypeVar("Client")


class TransportOptions(TypedDict):
    """The options both SDKs' clients take alike."""

    timeout: float
    max_retries: int
    http_client: http.Client


class SDKProvider(Generic[Client]):
    """Holds a provider's settings and builds the SDK client on the first request, or when
    `prepare()` is called (the chat calls it while the person types); the chat's warm-up thread may
    get there first, hence the lock. Subclasses say how to build the client and make a request."""

    def __init__(
        self,
        *,
        api_key: str | None,
        model: str,
        base_url: str | None = None,
        max_tokens: int = 4096,
        timeout_seconds: float = 60.0,
        deadline_seconds: float = 300.0,
    ) -> None:
        self.model = model
        self.max_tokens = max_tokens
        self._api_key = api_key
        self._base_url = base_url
        self._timeout = timeout_seconds
        self._deadline = deadline_seconds
        self._client: Client | None = None
        self._client_lock = threading.Lock()

    def prepare(self) -> None:
        """Build the SDK client now."""
        self._get_client()

    def _get_client(self) -> Client:
        with self._client_lock:
            if self._client is None:
                self._client = self._new_client()
            return self._client

    def _new_client(self) -> Client:
        raise NotImplementedError

    def _transport_options(self, sdk: ModuleType) -> TransportOptions:
        """The client options every SDK takes alike: the read timeout, no retries of its own (our
        backoff is the only retry layer, ADR 0020), and the whole answer's deadline."""
        from osiris.llm.deadline import client_with_deadline

        return {"timeout": self._timeout, "max_retries": 0,
                "http_client": client_with_deadline(sdk, timeout_seconds=self._timeout,
                                                    deadline_seconds=self._deadline)}

    @contextmanager
    def _service_errors(self, sdk_error: type[Exception], translate: Callable[[Exception], LLMServiceError],
                        ended_early: str) -> Iterator[None]:
        """Every failure of a request as an `LLMServiceError`: the SDK's errors translated, a passed
        deadline, and anything raised while reading the body (the SDK passes these on as they are)."""
        from osiris.llm.deadline import DeadlineExceeded, deadline_error

        try:
            yield
        except LLMServiceError:
            raise
        except sdk_error as error:
            raise translate(error) from None
        except DeadlineExceeded:
            raise deadline_error(self._deadline) from None
        except Exception as error:
            raise stream_fault(error, ended_early) from None
