"""`osiris config show [--json]`: every effective setting with the source it came from."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from osiris.commands.options import (
    add_action,
    add_actions,
    add_llm_options,
    cli_settings,
)
from osiris.secrets.names import MASK, is_secret_key

_ENV_REFERENCE = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = add_actions(parser)
    show = add_action(actions, "show", "print effective settings with their sources")
    show.add_argument("--json", action="store_true", help="JSON on stdout")
    add_llm_options(show)


def run(args: argparse.Namespace) -> int:
    from osiris.secrets.redact import Redactor
    from osiris.settings import load_settings

    effective = load_settings(cli=cli_settings(args), config_path=args.config)
    redactor = Redactor()  # secret keys masked, DSN passwords too; ${ENV} references kept
    rows = [
        (key, redactor.data(value, key=key.rsplit(".", 1)[-1]), source)
        for key, value, source in effective.items()
    ]
    if args.json:
        json.dump({key: {"value": value, "source": source} for key, value, source in rows},
                  sys.stdout, indent=2)
        print()
        return 0
    where = effective.config_path or "none found (defaults apply)"
    print(f"# settings file: {where}")
    width = max(len(key) for key, _, _ in rows)
    for key, value, source in rows:
        print(f"{key:<{width}}  {json.dumps(value):<28}  {source}")
    return 0

