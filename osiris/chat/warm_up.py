"""Get ready for the first answer in the background while the person types the first message.

`import anthropic` takes 1.4 to 1.9 s of CPU; started when the prompt appears, it is done by the
time a first request is typed, so the first answer waits for the LLM only. The same thread then
builds the provider's HTTP client (about 40 ms) and imports what checking and showing a first
pipeline needs: sqlglot for SQL fields (about 120 ms) and the YAML highlighter (about 40 ms).
Python's import lock makes a call that comes sooner wait for an import rather than start a second
one; the provider builds its client under a lock of its own.
"""

from __future__ import annotations

import importlib
import threading

from osiris.llm.types import Provider

SDK_MODULES = {"anthropic": ("anthropic", "anthropic.lib.streaming"), "openai": ("openai", "openai.resources.chat")}
FIRST_ANSWER_MODULES = ("sqlglot", "sqlglot.optimizer.scope", "rich.syntax", "pygments.lexers.data")


def warm_up_in_background(provider: Provider) -> threading.Thread:
    """Start getting `provider` and the first validation ready in a daemon thread."""
    thread = threading.Thread(target=_warm_up, args=(provider,), name="osiris-warm-up", daemon=True)
    thread.start()
    return thread


def _warm_up(provider: Provider) -> None:
    if not _import_all(SDK_MODULES.get(provider.name, ())):
        return
    prepare = getattr(provider, "prepare", None)
    if prepare is not None:
        try:
            prepare()
        except Exception:  # noqa: BLE001 - the first real call reports whatever is wrong
            return
    _import_all(FIRST_ANSWER_MODULES)


def _import_all(modules: tuple[str, ...]) -> bool:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the first real call reports whatever is wrong
            return False
    return True
