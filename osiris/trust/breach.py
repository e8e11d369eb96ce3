"""One place where a pipeline would cross the trust boundary: where it is, what it does, and how to
stay inside. The rules return these; the validator and the runtime turn them into issues."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

Where = TypeVar("Where")  # a config field's name, or an offset into a query


@dataclass(frozen=True)
class Breach(Generic[Where]):
    where: Where
    message: str
    hint: str
