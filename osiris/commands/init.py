"""`osiris init [--force]`: write .osiris.yaml and the components/ layout where missing."""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

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
    for relative, template in FILES.items():
        target = project / relative
        if target.exists() and not args.force:
            print(f"kept    {target} (exists; --force overwrites it)", file=sys.stderr)
            continue
        verb = "wrote  " if target.exists() else "created"
        target.parent.mkdir(parents=True, exist_ok=True)
        text = resources.files("osiris.templates").joinpath(template).read_text(encoding="utf-8")
        target.write_text(text, encoding="utf-8")
        print(f"{verb} {target}", file=sys.stderr)
    return 0
