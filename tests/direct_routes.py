"""The `routes` fixture of the direct-route tests: a spy on `osiris.run.direct.copy` (it calls the real
route) that records what each plain copy's route gave, a Copied (the direct route did it) or None
(it declined and the engine's route ran)."""

from __future__ import annotations

from typing import Any

import pytest

from osiris.run import direct


@pytest.fixture
def routes(monkeypatch) -> list[Any]:
    taken: list[Any] = []
    real = direct.copy

    def spy(reader, writer):
        taken.append(result := real(reader, writer))
        return result

    monkeypatch.setattr(direct, "copy", spy)
    return taken
