"""Hostile pipelines through `osiris run --sample` (issue 22): a bounded campaign of
tests/fuzz_hostile.py in every test run; bench/fuzz.py --hostile runs it thousands deep
(docs/reliability.md). Each input is run by the real CLI in process and on the engine with
validation skipped; none may write outside the session, reach the arena's servers, or show a
planted secret or file anywhere."""

from __future__ import annotations

from tests.fuzz_hostile import campaign

SEED = 22
INPUTS = 25  # about 5 s on the development machine


def test_hostile_pipelines_never_escape_nor_leak(tmp_path):
    findings: list[str] = []

    def report(number: int, escapes: list[str], leaks: list[str], crashes: list[str]) -> None:
        findings.extend(f"input {number} of seed {SEED}: {what}" for what in [*escapes, *leaks, *crashes])

    campaign(SEED, INPUTS, tmp_path, report)
    assert findings == []
