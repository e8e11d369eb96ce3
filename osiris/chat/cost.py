"""An estimate of what the tokens cost, from list prices per million tokens by model family.

Only an estimate: prices change, and the demo provider's counts are scripted. Cache writes are
billed at 1.25x the input price and cache reads at 0.1x, as Anthropic does for 5-minute caching.
"""

from __future__ import annotations

from osiris.llm.types import TokenUsage

# USD per million tokens: (input, output)
PRICES: dict[str, tuple[float, float]] = {
    "opus": (15.0, 75.0),
    "sonnet": (3.0, 15.0),
    "haiku": (1.0, 5.0),
}
CACHE_WRITE_FACTOR = 1.25
CACHE_READ_FACTOR = 0.1


def price_for(model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens, or None for an unknown model (or demo)."""
    lowered = model.lower()
    if "demo" in lowered:
        return None
    return next((price for family, price in PRICES.items() if family in lowered), None)


def estimate_usd(usage: TokenUsage, model: str) -> float | None:
    """The estimated cost of `usage` (a TokenUsage); None when the model has no known price."""
    price = price_for(model)
    if price is None:
        return None
    per_input, per_output = price
    total = (
        usage.input * per_input
        + usage.cache_write * per_input * CACHE_WRITE_FACTOR
        + usage.cache_read * per_input * CACHE_READ_FACTOR
        + usage.output * per_output
    )
    return total / 1_000_000


def describe_usage(usage: TokenUsage, model: str) -> str:
    """E.g. '1,204 in, 310 out, 2,048 cache read, 0 cache write; about $0.0089'."""
    tokens = usage.describe()
    cost = estimate_usd(usage, model)
    if cost is not None:
        return tokens + f"; about ${cost:.4f}"
    if "demo" in model.lower():
        return tokens + "; demo counts are scripted, nothing is billed"
    return tokens + "; no price known for this model"
