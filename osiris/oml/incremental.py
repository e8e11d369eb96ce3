"""Incremental reads (docs/run-again.md, "Incremental reads"): an extractor's
`incremental: {cursor: COLUMN, initial: VALUE}` reads only rows whose cursor is greater than the
highest value the last successful run read; the first run reads from `initial`, or everything.

The state is `.osiris/state/<pipeline name>.json`, one entry per step and per value of the
parameters the step's rows depend on (osiris.run.incremental.state_keys), written atomically (a
temporary file renamed over it), and only after a run that succeeded with every writer committed
(osiris.run.recorded): a failed, interrupted or `--sample` run leaves it as it was.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from osiris.oml.values import Config, Value


STATE_DIR = Path(".osiris") / "state"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class Incremental:
    """A step's `incremental` field: the cursor column, where the first run starts (None:
    everything) and, for an API, the request parameter that carries the value."""

    cursor: str
    initial: Value = None
    param: str | None = None


def incremental_of(config: Config) -> Incremental | None:
    """The step's incremental read, when its config asks for one."""
    field = config.get("incremental")
    cursor = field.get("cursor") if isinstance(field, Mapping) else None
    if not isinstance(field, Mapping) or not isinstance(cursor, str) or not cursor:
        return None
    param = field.get("param")
    return Incremental(cursor, field.get("initial"), param if isinstance(param, str) and param else None)


def with_request_value(config: Config, field: str, read_after: tuple[str, Value] | None) -> Config:
    """An API extractor's config with the value to read after sent as `incremental.param` among
    its request's `field` (`params` of a REST call, `variables` of a GraphQL query)."""
    incremental = incremental_of(config)
    if read_after is None or incremental is None or incremental.param is None:
        return config
    request = config.get(field) or {}
    if not isinstance(request, Mapping):  # the spec makes it a mapping; validation refuses anything else
        raise ValueError(f"the step's {field} must be a mapping to carry its incremental value")
    return {**config, field: {**request, incremental.param: read_after[1]}}


ParamsKey = tuple[tuple[str, str], ...]  # (parameter name, value as text), in name order
StateKey = tuple[str, ParamsKey]  # (step id, the parameters its state is kept by)
State = dict[StateKey, dict[str, Value]]  # -> {"cursor": COLUMN, "value": VALUE}


def state_path(project_root: Path, pipeline_name: str) -> Path:
    safe = _UNSAFE.sub("_", pipeline_name).lstrip(".") or "_"
    return project_root / STATE_DIR / f"{safe}.json"


def load_state(path: Path) -> State:
    """(step id, parameters) -> {cursor, value}; empty when there is no state yet. The file keeps
    the entries of reads that use no parameter under `steps` (its form before parameters counted)
    and the others under `by_params`. A file that is not the state's form raises ValueError naming
    it (it is never silently read as "start again")."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"the state file {path} cannot be read ({error}); `osiris state reset` starts again") from None
    steps = data.get("steps") if isinstance(data, dict) else None
    keyed = data.get("by_params", []) if isinstance(data, dict) else None
    if not isinstance(steps, dict) or not isinstance(keyed, list) or not all(_is_keyed(e) for e in keyed):
        raise ValueError(f"the state file {path} is not Osiris's state; `osiris state reset` starts again")
    state: State = {(str(k), ()): v for k, v in steps.items() if isinstance(v, dict)}
    for entry in keyed:
        params = tuple(sorted((str(n), str(v)) for n, v in entry["params"].items()))
        state[(entry["step"], params)] = {"cursor": entry.get("cursor"), "value": entry.get("value")}
    return state


def _is_keyed(entry: object) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("step"), str) and isinstance(entry.get("params"), dict)


def save_state(path: Path, state: State) -> None:
    """Write the state atomically: a reader sees the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    steps = {step: dict(entry) for (step, params), entry in sorted(state.items()) if not params}
    keyed = [{"step": step, "params": dict(params), **entry} for (step, params), entry in sorted(state.items()) if params]
    text = json.dumps({"steps": steps, **({"by_params": keyed} if keyed else {})}, indent=2, default=str) + "\n"
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


def show_params(params: ParamsKey) -> str:
    """A key's parameters as `osiris state show` prints them: `region=eu day=2026-11-27`."""
    return " ".join(f"{name}={value}" for name, value in params)


def read_after(step_id: str, params: ParamsKey, incremental: Incremental, state: State,
               full_refresh: bool, pipeline: str = "PIPELINE") -> Value:
    """The value a step reads after: the last successful run's with the same parameters (for the
    same cursor), else `initial`; with `full_refresh`, `initial`. None: read everything. Raises
    ValueError when a step kept by parameters has only an entry saved before state was kept by
    parameter values: whose values it holds is unknown, and guessing could skip rows."""
    if full_refresh:
        return incremental.initial
    saved = state.get((step_id, params))
    if saved is None and params and (step_id, ()) in state:
        raise ValueError(
            f"the state of step '{step_id}' was saved without parameter values (before Osiris kept state per "
            f"value, or before the step's rows depended on a parameter), so which values "
            f"({', '.join(n for n, _ in params)}) it belongs to is unknown; "
            f"`osiris state reset {pipeline} --step {step_id}` reads again from its initial value for every value, "
            "or `osiris run --full-refresh` does so for these values")
    if saved is None or saved.get("cursor") != incremental.cursor:
        return incremental.initial
    return saved.get("value")
