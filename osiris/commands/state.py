"""`osiris state show|reset PIPELINE [--json]`: the incremental reads' state of a pipeline
(docs/run-again.md). PIPELINE is a pipeline file (its `name` is used) or a pipeline name."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from osiris.commands.options import add_action, add_actions
from osiris.errors import ExitCode, UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = add_actions(parser)
    for name, summary in (("show", "where each incremental read of the pipeline starts next"),
                          ("reset", "forget it: the next run reads from each step's initial value (every row without one)")):
        sub = add_action(actions, name, summary)
        sub.add_argument("pipeline", metavar="PIPELINE", help="a pipeline file, or a pipeline's name")
        if name == "show":
            sub.add_argument("--json", action="store_true", help="JSON on stdout")


def run(args: argparse.Namespace) -> int:
    from osiris.oml.incremental import load_state, state_path
    from osiris.settings import load_settings

    effective = load_settings(config_path=args.config)
    name = _pipeline_name(args.pipeline)
    path = state_path(effective.project_root, name)
    if args.action == "reset":
        from osiris.run.lock import pipeline_lock

        with pipeline_lock(effective.project_root, name, wait=False):  # never under a running run's feet
            existed = path.exists()
            path.unlink(missing_ok=True)
        print(f"state of '{name}' reset: the next run reads from each step's initial value (every row without one)"
              if existed else f"'{name}' has no state: its next run reads from each step's initial value")
        return ExitCode.OK
    try:
        steps = load_state(path)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.json:
        print(json.dumps({"pipeline": name, "state": str(path), "steps": steps}, indent=2, default=str))
        return ExitCode.OK
    if not steps:
        print(f"'{name}' has no state: its next run reads from each step's initial value (every row without one)",
              file=sys.stderr)
        return ExitCode.OK
    from osiris.text_table import format_table, printable

    rows = [[step, entry.get("cursor"), entry.get("value")] for step, entry in sorted(steps.items())]
    for line in format_table(["STEP", "CURSOR", "VALUE"], rows):
        print(printable(line))
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
