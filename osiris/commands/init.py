"""`osiris init [--force]`: write .osiris.yaml and the components/ layout where missing."""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

from osiris.errors import UsageError
from osiris.output_path import directory_problem, output_problem, write_output
from osiris.settings.loader import CONFIG_FILE_NAME

# target path (relative to the project directory) -> packaged template
FILES = {
    CONFIG_FILE_NAME: "osiris.yaml",
    "components/README.md": "components-README.md",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", nargs="?", default=".", help="project directory (default: .)")
    parser.add_argument("--force", action="store_true", help="overwrite files that exist")


def run(args: argparse.Namespace) -> int:
    project = Path(args.directory)
    problem = directory_problem(project)
    if problem:
        raise UsageError(f"init DIRECTORY {args.directory}: {problem}")
    targets = [(project / relative, template) for relative, template in FILES.items()]
    for target, _ in targets:  # every target checked before the first is written
        if _replaced(target, args.force):
            problem = output_problem(target)
            if problem:
                raise UsageError(f"init: {target} {problem}")
    for target, template in targets:
        if not _replaced(target, args.force):
            why = "a symbolic link, not followed" if target.is_symlink() else "exists; --force overwrites it"
            print(f"kept    {target} ({why})", file=sys.stderr)
            continue
        verb = "wrote  " if target.exists() else "created"
        text = resources.files("osiris.templates").joinpath(template).read_text(encoding="utf-8")
        write_output(target, text)
        print(f"{verb} {target}", file=sys.stderr)
    return 0


def _replaced(target: Path, force: bool) -> bool:
    """Whether init writes `target`: when it is missing (a dangling link is not missing), or --force."""
    return force or not (target.exists() or target.is_symlink())
