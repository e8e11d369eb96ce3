"""`osiris state show|reset PIPELINE [--json]`: the incremental reads' state of a pipeline
(docs/run-again.md), one entry per step and parameter values. PIPELINE is a pipeline file (its
`name` is used) or a pipeline name. `reset --step ID --param NAME=VALUE` resets the entries that
match; without them, all."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.commands.options import add_action, add_actions, add_param_option, given_params
from osiris.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from osiris.oml.incremental import State


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = add_actions(parser)
    for name, summary in (("show", "where each incremental read of the pipeline starts next"),
                          ("reset", "forget it: the next run reads from each step's initial value (every row without one)")):
        sub = add_action(actions, name, summary)
        sub.add_argument("pipeline", metavar="PIPELINE", help="a pipeline file, or a pipeline's name")
        if name == "show":
            sub.add_argument("--json", action="store_true", help="JSON on stdout")
        else:
            sub.add_argument("--step", metavar="ID", help="reset only this step's entries")
            add_param_option(sub)


def run(args: argparse.Namespace) -> int:
    from osiris.oml.incremental import show_params, state_path
    from osiris.settings import load_settings

    effective = load_settings(config_path=args.config)
    name = _pipeline_name(args.pipeline)
    path = state_path(effective.project_root, name)
    if args.action == "reset":
        return _reset(effective.project_root, name, path, args.step, given_params(args))
    state = _load(path)
    if args.json:
        print(json.dumps({"pipeline": name, "state": str(path),
                          "steps": {step: entry for (step, params), entry in sorted(state.items()) if not params},
                          "by_params": [{"step": step, "params": dict(params), **entry}
                                        for (step, params), entry in sorted(state.items()) if params]},
                         indent=2, default=str))
        return ExitCode.OK
    if not state:
        print(f"'{name}' has no state: its next run reads from each step's initial value (every row without one)",
              file=sys.stderr)
        return ExitCode.OK
    from osiris.text_table import format_table, printable

    keyed = any(params for _, params in state)
    rows = [[step, *([show_params(params) or "-"] if keyed else []), entry.get("cursor"), entry.get("value")]
            for (step, params), entry in sorted(state.items())]
    for line in format_table(["STEP", *(["PARAMS"] if keyed else []), "CURSOR", "VALUE"], rows):
        print(printable(line))
    return ExitCode.OK


def _load(path: Path) -> State:
    from osiris.oml.incremental import load_state

    try:
        return load_state(path)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _reset(root: Path, name: str, path: Path, step: str | None, params: dict[str, str]) -> int:
    """Forget the whole state, or (`step`, `params`) the entries of that step and with those values."""
    from osiris.oml.incremental import save_state, show_params
    from osiris.run.lock import pipeline_lock

    with pipeline_lock(root, name, wait=False):  # never under a running run's feet
        if step is None and not params:
            existed = path.exists()
            path.unlink(missing_ok=True)
            print(f"state of '{name}' reset: the next run reads from each step's initial value (every row without one)"
                  if existed else f"'{name}' has no state: its next run reads from each step's initial value")
            return ExitCode.OK
        state = _load(path)
        chosen = [key for key in state if (step is None or key[0] == step)
                  and all((n, v) in key[1] for n, v in params.items())]
        if not chosen:
            known = ", ".join(f"{s} {show_params(p)}".strip() for s, p in sorted(state)) or "none"
            raise UsageError(f"no state of '{name}' matches; its entries: {known}")
        for key in chosen:
            del state[key]
        if state:
            save_state(path, state)
        else:
            path.unlink()
    for reset_step, reset_params in sorted(chosen):
        print(f"state of '{name}' step '{reset_step}'{' ' + show_params(reset_params) if reset_params else ''} reset: "
              "its next run with these values reads from the step's initial value")
    return ExitCode.OK


def _pipeline_name(given: str) -> str:
    """The name of the pipeline file `given`, or `given` itself when it is no file."""
    path = Path(given)
    if not path.is_file():
        return given
    import yaml

    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise UsageError(f"cannot read the pipeline {given}: {error}") from None
    name = document.get("name") if isinstance(document, dict) else None
    if not isinstance(name, str) or not name:
        raise UsageError(f"{given} has no name: its state is kept by the pipeline's name")
    return name
