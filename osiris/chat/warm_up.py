"""Import the LLM provider's SDK in the background while the person types the first message.

`import anthropic` takes 1.4 to 1.9 s of CPU; started when the prompt appears, it is done by the
time a first request is typed, so the first answer waits for the LLM only. Python's import lock
makes a call that comes sooner wait for this import rather than start a second one.
"""

from __future__ import annotations

import importlib
import threading

SDK_MODULES = {"anthropic": ("anthropic", "anthropic.lib.streaming")}


def warm_up_in_background(provider_name: str) -> threading.Thread | None:
    """Start importing the SDK of `provider_name` in a daemon thread; None when it has none."""
    modules = SDK_MODULES.get(provider_name)
    if not modules:
        return None
    thread = threading.Thread(target=_import_all, args=(modules,), name="osiris-sdk-import", daemon=True)
    thread.start()
    return thread


def _import_all(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the first real call reports whatever is wrong
            return
