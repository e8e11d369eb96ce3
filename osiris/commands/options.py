"""Command-line flags shared by several commands."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.errors import SettingsError, UsageError

if TYPE_CHECKING:
    from osiris.oml.values import MutableConfig
    from osiris.settings.loader import EffectiveSettings


def add_config_option(parser: argparse.ArgumentParser) -> None:
    """`--config PATH`: use this settings file instead of searching for .osiris.yaml."""
    parser.add_argument(
        "--config",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="settings file to use instead of the nearest .osiris.yaml",
    )


def add_actions(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """Sub-commands such as `config show`; create each with `add_action`."""
    return parser.add_subparsers(dest="action", metavar="ACTION", required=True)


def add_action(actions: argparse._SubParsersAction[argparse.ArgumentParser], name: str, summary: str) -> argparse.ArgumentParser:
    """One sub-command, accepting `--config` after its name too."""
    action = actions.add_parser(name, help=summary, description=summary)
    add_config_option(action)
    return action


def add_llm_options(parser: argparse.ArgumentParser) -> None:
    """`--retry-attempts N`, `--model`, `--provider`, `--sample-run`/`--no-sample-run`: the command-line
    settings layer."""
    from osiris.settings.allowed import MAX_ATTEMPTS, int_bounds

    lowest, highest = int_bounds(MAX_ATTEMPTS)
    parser.add_argument(
        "--retry-attempts",
        metavar="N",
        help=f"retries after the first generation, {lowest}..{highest} (0 is strict mode)",
    )
    parser.add_argument("--model", help="LLM model name")
    parser.add_argument("--provider", help="LLM provider: anthropic, openai (any OpenAI-compatible API) or demo")
    sample_run = parser.add_mutually_exclusive_group()  # --dry-run: the flags' older name, kept as an alias
    sample_run.add_argument("--sample-run", "--dry-run", dest="dry_run", action="store_const", const="sample",
                            help="give a valid pipeline a sample run before accepting it (validation.dry_run: sample)")
    sample_run.add_argument("--no-sample-run", "--no-dry-run", dest="dry_run", action="store_const", const="off",
                            help="no sample run (validation.dry_run: off)")


def cli_settings(args: argparse.Namespace) -> dict[str, MutableConfig]:
    """The settings given on the command line, nested as in .osiris.yaml.

    Values are passed through as typed (a whole number read as one) so that a bad one is reported
    with source `cli`.
    """
    from osiris.settings.allowed import MAX_ATTEMPTS
    from osiris.settings.env import whole_number_or_text

    layer: dict[str, MutableConfig] = {}
    if getattr(args, "retry_attempts", None) is not None:
        attempts = whole_number_or_text(".".join(MAX_ATTEMPTS), args.retry_attempts)
        layer["validation"] = {"retry": {"max_attempts": attempts}}
    if getattr(args, "dry_run", None) is not None:
        layer.setdefault("validation", {})["dry_run"] = args.dry_run
    llm = {
        key: value
        for key, value in (("model", getattr(args, "model", None)),
                           ("provider", getattr(args, "provider", None)))
        if value is not None
    }
    if llm:
        layer["llm"] = llm
    return layer


def require_output_path(flag: str, value: str) -> Path:
    """The file a flag such as `-o` names, checked before anything is spent on it."""
    from osiris.output_path import output_problem

    path = Path(value)
    problem = output_problem(path)
    if problem:
        raise UsageError(f"{flag} {value}: {problem}")
    return path


def require_sessions_dir(effective: EffectiveSettings) -> None:
    """`sessions.dir` must be a folder where a session can be created; the line names its source."""
    from osiris.output_path import directory_problem

    value = effective.settings.sessions.dir
    problem = directory_problem(effective.resolve_path(value))
    if problem:
        raise SettingsError(
            f"sessions.dir = {value} (from {effective.source('sessions.dir')}): {problem}"
        )


def add_param_option(parser: argparse.ArgumentParser) -> None:
    """`--param name=value` (repeatable): a pipeline parameter, before OSIRIS_PARAM_<NAME> and the
    pipeline's default (docs/run-again.md)."""
    parser.add_argument("--param", action="append", metavar="NAME=VALUE", dest="params",
                        help="set the pipeline parameter NAME (repeatable); before OSIRIS_PARAM_<NAME> and its default")


def given_params(args: argparse.Namespace) -> dict[str, str]:
    """The `--param` flags as a mapping; a flag without `name=` is a usage error."""
    from osiris.oml.params import parse_given

    try:
        return parse_given(getattr(args, "params", None))
    except ValueError as error:
        raise UsageError(str(error)) from None


def check_params_known(given: dict[str, str], known: set[str]) -> None:
    """A `--param` the pipeline neither declares nor uses is a usage error (most likely a typo)."""
    from osiris.suggest import did_you_mean

    for name in given:
        if name not in known:
            listed = ", ".join(sorted(known)) or "none"
            raise UsageError(f"--param {name}: the pipeline has no parameter '{name}' (its parameters: {listed})"
                             f"{did_you_mean(name, sorted(known))}")
