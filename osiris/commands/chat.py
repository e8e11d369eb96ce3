"""`osiris chat`: describe a pipeline in plain English, get valid OML, in a conversation.

prompt_toolkit, rich and the engine are imported inside `run`, so `osiris --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys

from osiris.commands.options import add_llm_options, cli_settings, require_sessions_dir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_llm_options(parser)
    parser.add_argument(
        "--resume",
        metavar="SESSION_ID",
        help="continue an earlier session's conversation (a unique id prefix, or 'last')",
    )


def run(args: argparse.Namespace) -> int:
    from osiris.chat.app import start_chat
    from osiris.chat.no_key import needs_key, offer_demo
    from osiris.settings import load_settings

    cli = cli_settings(args)
    effective = load_settings(cli=cli, config_path=args.config)
    require_sessions_dir(effective)
    if needs_key(effective):
        demo = {**cli, "llm": {**cli.get("llm", {}), "provider": "demo"}}
        effective = offer_demo(
            sys.stdin, sys.stdout, lambda: load_settings(cli=demo, config_path=args.config)
        )
    return start_chat(effective, resume=args.resume)
