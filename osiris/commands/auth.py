"""`osiris auth login | status | logout`: the Anthropic API key in the system keyring."""

from __future__ import annotations

import argparse
import getpass
import os
import sys

from osiris.commands.options import add_action, add_actions
from osiris.errors import ExitCode, UsageError
from osiris.secrets import keyring_store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = add_actions(parser)
    add_action(actions, "login", "save the API key in the system keyring (typed without echo)")
    add_action(actions, "status", "show where the API key comes from, and its last 4 characters")
    add_action(actions, "logout", "remove the API key from the system keyring")


def run(args: argparse.Namespace) -> int:
    return {"login": login, "status": status, "logout": logout}[args.action]()


def login() -> int:
    keyring_store.require_keyring()  # before the key is typed, not after
    key = _read_key().strip()
    if not key:
        raise UsageError("no key given; nothing saved")
    keyring_store.store_api_key(key)
    print(f"Saved the API key ({keyring_store.mask(key)}) in the system keyring.", file=sys.stderr)
    if os.environ.get(keyring_store.ENV_VAR):
        print(f"Note: {keyring_store.ENV_VAR} is set and takes precedence.", file=sys.stderr)
    return ExitCode.OK


def status() -> int:
    key, source = keyring_store.get_api_key()
    if key is None:
        from osiris.llm.credentials import no_key_message

        message = no_key_message()
        print(message[:1].upper() + message[1:] + ".", file=sys.stderr)
        return ExitCode.LLM_AUTH
    print(f"API key {keyring_store.mask(key)} from {source}")
    return ExitCode.OK


def logout() -> int:
    removed = keyring_store.delete_api_key()
    message = "Removed the API key from the system keyring." if removed else "No API key was in the keyring."
    print(message, file=sys.stderr)
    return ExitCode.OK


def _read_key() -> str:
    if sys.stdin.isatty():
        return getpass.getpass("Anthropic API key (input hidden): ")
    return sys.stdin.readline()
