"""The HTTP library the anthropic SDK is built on: httpx2 in newer 2.x releases, httpx before.

Imported only with the SDK (when the first LLM request is made).
"""

from __future__ import annotations

try:
    import httpx2 as http
except ImportError:  # pragma: no cover - depends on the installed SDK
    import httpx as http  # type: ignore[no-redef]

__all__ = ["http"]
