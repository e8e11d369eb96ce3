"""Placeholder for commands of SPEC §7 that are not built yet."""

from __future__ import annotations

import argparse

from osiris.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def not_built(command: str) -> UsageError:
    return UsageError(f"'osiris {command}' is not built yet in this version")
