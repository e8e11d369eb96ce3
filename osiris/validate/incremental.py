"""An extractor's `incremental` read (docs/run-again.md): OML319 when its step also has a `limit`.
The next run starts after the highest cursor read, so rows a limit left out would never be read."""

from __future__ import annotations

from osiris.oml.incremental import incremental_of
from osiris.oml.values import Value
from osiris.validate.findings import Findings
from osiris.validate.pointer import join


PAGE_SIZE_LIMIT = frozenset({"supabase.extractor"})  # `limit` is the rows of one request, not of the read


def check_incremental(steps: list[Value], findings: Findings, base: str = "/steps") -> None:
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        config = step.get("config")
        if not isinstance(config, dict) or incremental_of(config) is None or config.get("limit") is None:
            continue
        if step.get("component") in PAGE_SIZE_LIMIT:
            continue
        findings.add("OML319", join(base, index, "config", "limit"),
                     "an incremental read cannot have a limit: the next run starts after the highest value "
                     "read, so the rows the limit left out would never be read",
                     "remove limit (to try the pipeline on a few rows, use osiris run --sample N: it keeps no "
                     "state)", value=config["limit"])
