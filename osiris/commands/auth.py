"""`osiris auth login | status | logout [--provider openai]`: an LLM provider's API key in the
system keyring (Anthropic's by default)."""

from __future__ import annotations

import argparse
import getpass
import os
import sys

from osiris.commands.options import add_action, add_actions
from osiris.errors import ExitCode, UsageError
from osiris.secrets import keyring_store

PROVIDER_NAMES = {"anthropic": "Anthropic", "openai": "OpenAI"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = add_actions(parser)
    for name, summary in (("login", "save the API key in the system keyring (typed without echo)"),
                          ("status", "show where the API key comes from, and its last 4 characters"),
                          ("logout", "remove the API key from the system keyring")):
        action = add_action(actions, name, summary)
        action.add_argument("--provider", choices=sorted(PROVIDER_NAMES), default="anthropic",
                            help="whose key: anthropic (default) or openai (any OpenAI-compatible API)")


def run(args: argparse.Namespace) -> int:
    provider: str = getattr(args, "provider", "anthropic")
    return {"login": login, "status": status, "logout": logout}[args.action](provider)


def login(provider: str = "anthropic") -> int:
    keyring_store.require_keyring(provider)  # before the key is typed, not after
    key = _read_key(provider).strip()
    if not key:
        raise UsageError("no key given; nothing saved")
    keyring_store.store_api_key(key, provider)
    print(f"Saved the {PROVIDER_NAMES[provider]} API key ({keyring_store.mask(key)}) in the system keyring.",
          file=sys.stderr)
    variable = keyring_store.env_var(provider)
    if os.environ.get(variable):
        print(f"Note: {variable} is set and takes precedence.", file=sys.stderr)
    return ExitCode.OK


def status(provider: str = "anthropic") -> int:
    key, source = keyring_store.get_api_key(provider=provider)
    if key is None:
        if provider == "anthropic":
            from osiris.llm.credentials import no_key_message

            message = no_key_message()
            print(message[:1].upper() + message[1:] + ".", file=sys.stderr)
        else:
            print(f"No {PROVIDER_NAMES[provider]} API key: set {keyring_store.env_var(provider)} or run "
                  f"`osiris auth login --provider {provider}` (a server on this machine needs none).", file=sys.stderr)
        return ExitCode.LLM_AUTH
    print(f"API key {keyring_store.mask(key)} from {source}")
    return ExitCode.OK


def logout(provider: str = "anthropic") -> int:
    removed = keyring_store.delete_api_key(provider)
    message = "Removed the API key from the system keyring." if removed else "No API key was in the keyring."
    print(message, file=sys.stderr)
    return ExitCode.OK


def _read_key(provider: str) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(f"{PROVIDER_NAMES[provider]} API key (input hidden): ")
    return sys.stdin.readline()
