"""An extractor's `incremental` read (docs/run-again.md): OML319 when its step also has a `limit`.
The next run starts after the highest cursor read, so rows a limit left out would never be read;
and OML320 when its `columns` leave the cursor out, since that highest value is taken from the
rows the step keeps."""

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
        following = incremental_of(config) if isinstance(config, dict) else None
        if not isinstance(config, dict) or following is None:
            continue
        columns = config.get("columns")
        if isinstance(columns, list) and columns and following.cursor not in columns:
            findings.add("OML320", join(base, index, "config", "columns"),
                         f"columns leave out the incremental cursor '{following.cursor}': the next run starts "
                         "after the highest value of it this run keeps",
                         f"add '{following.cursor}' to columns", value=following.cursor)
        if config.get("limit") is None or step.get("component") in PAGE_SIZE_LIMIT:
            continue
        findings.add("OML319", join(base, index, "config", "limit"),
                     "an incremental read cannot have a limit: the next run starts after the highest value "
                     "read, so the rows the limit left out would never be read",
                     "remove limit (to try the pipeline on a few rows, use osiris run --sample N: it keeps no "
                     "state)", value=config["limit"])
