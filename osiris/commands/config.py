"""`osiris config show [--json]`: every effective setting with the source it came from."""

from __future__ import annotations

import argparse
import json
import sys

from osiris.commands.options import (
    add_action,
    add_actions,
    add_llm_options,
    cli_settings,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = add_actions(parser)
    show = add_action(actions, "show", "print effective settings with their sources")
    show.add_argument("--json", action="store_true", help="JSON on stdout")
    add_llm_options(show)


def run(args: argparse.Namespace) -> int:
    from osiris.settings import load_settings

    effective = load_settings(cli=cli_settings(args), config_path=args.config)
    shown = effective.to_dict()
    if args.json:
        json.dump(shown, sys.stdout, indent=2)
        print()
        return 0
    print(f"# settings file: {effective.config_path or 'none found (defaults apply)'}")
    from osiris.text_table import format_table

    rows = [[key, json.dumps(entry["value"], ensure_ascii=False), entry["source"]] for key, entry in shown.items()]
    print("\n".join(format_table(["KEY", "VALUE", "SOURCE"], rows)))
    return 0
