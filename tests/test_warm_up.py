"""The chat's warm-up: while the person types, the provider's client is built once, whichever
thread gets there first (the bench/startup_chat_answer.py figure is what it saves)."""

from __future__ import annotations

import threading

from osiris.chat.warm_up import warm_up_in_background
from osiris.llm.anthropic_provider import AnthropicProvider


class Recording:
    name = "demo"

    def __init__(self) -> None:
        self.prepared = 0

    def prepare(self) -> None:
        self.prepared += 1

    def complete(self, request):  # pragma: no cover - never called here
        raise AssertionError("the warm-up must not call the LLM")


def test_the_warm_up_prepares_the_provider_without_calling_it() -> None:
    provider = Recording()
    warm_up_in_background(provider).join(timeout=60)
    assert provider.prepared == 1


def test_the_client_is_built_once_whoever_asks_first() -> None:
    provider = AnthropicProvider(api_key="sk-ant-test-0000", model="m", base_url="http://127.0.0.1:1",
                                 max_tokens=10, timeout_seconds=5, deadline_seconds=10)
    clients: list[object] = []
    threads = [threading.Thread(target=lambda: clients.append(provider._get_client())) for _ in range(4)]
    warm_up_in_background(provider).join(timeout=60)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(clients) == 4 and all(client is clients[0] for client in clients)
    assert provider._client is clients[0]
