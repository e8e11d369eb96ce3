"""Incremental reads (docs/run-again.md, "Incremental reads"): an extractor's
`incremental: {cursor: COLUMN, initial: VALUE}` reads only rows whose cursor is greater than the
highest value the last successful run read; the first run reads from `initial`, or everything.

The state is `.osiris/state/<pipeline name>.json`, `{"steps": {step id: {"cursor": COLUMN,
"value": VALUE}}}`, written atomically (a temporary file renamed over it), and only after a run
that succeeded with every writer committed (osiris.run.recorded): a failed, interrupted or
`--sample` run leaves it as it was.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STATE_DIR = Path(".osiris") / "state"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class Incremental:
    """A step's `incremental` field: the cursor column, where the first run starts (None:
    everything) and, for an API, the request parameter that carries the value."""

    cursor: str
    initial: Any = None
    param: str | None = None


def incremental_of(config: Mapping[str, Any]) -> Incremental | None:
    """The step's incremental read, when its config asks for one."""
    field = config.get("incremental")
    if not isinstance(field, Mapping) or not isinstance(field.get("cursor"), str) or not field["cursor"]:
        return None
    param = field.get("param")
    return Incremental(field["cursor"], field.get("initial"), param if isinstance(param, str) and param else None)


def with_request_value(config: Mapping[str, Any], field: str, read_after: tuple[str, Any] | None) -> Mapping[str, Any]:
    """An API extractor's config with the value to read after sent as `incremental.param` among
    its request's `field` (`params` of a REST call, `variables` of a GraphQL query)."""
    incremental = incremental_of(config)
    if read_after is None or incremental is None or incremental.param is None:
        return config
    return {**config, field: {**dict(config.get(field) or {}), incremental.param: read_after[1]}}


def state_path(project_root: Path, pipeline_name: str) -> Path:
    safe = _UNSAFE.sub("_", pipeline_name).lstrip(".") or "_"
    return project_root / STATE_DIR / f"{safe}.json"


def load_state(path: Path) -> dict[str, dict[str, Any]]:
    """step id -> {cursor, value}; empty when there is no state yet. A file that is not the state's
    form raises ValueError naming it (it is never silently read as "start again")."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"the state file {path} cannot be read ({error}); `osiris state reset` starts again") from None
    steps = data.get("steps") if isinstance(data, dict) else None
    if not isinstance(steps, dict):
        raise ValueError(f"the state file {path} is not Osiris's state; `osiris state reset` starts again")
    return {str(k): v for k, v in steps.items() if isinstance(v, dict)}


def save_state(path: Path, steps: Mapping[str, Mapping[str, Any]]) -> None:
    """Write the state atomically: a reader sees the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"steps": dict(sorted(steps.items()))}, indent=2, default=str) + "\n"
    fd, temporary = tempfile.mkstemp(prefix=".state-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_after(step_id: str, incremental: Incremental, state: Mapping[str, Mapping[str, Any]],
               full_refresh: bool) -> Any:
    """The value a step reads after: the last successful run's (for the same cursor), else
    `initial`; with `full_refresh`, `initial`. None: read everything."""
    saved = state.get(step_id)
    if full_refresh or saved is None or saved.get("cursor") != incremental.cursor:
        return incremental.initial
    return saved.get("value")
