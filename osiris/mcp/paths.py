"""Which files of the project the MCP tools may read and write (docs/mcp.md, "What the tools may
touch"). A path comes from the assistant, so it is not trusted: it must be relative, stay inside
the project, name a `.yaml` or `.yml` file, pass through no symbolic link and no hidden folder or
file (so never `.osiris.yaml` nor anything under `.osiris/`, `.git/`), and never be the settings
file. `oml_save` replaces a file only when it is an OML pipeline itself. A CSV file that
`discovery_request` reads is checked by the trust boundary of every run (osiris.trust.paths), and
must be a visible `.csv` file: a sniffed file's first line comes back as column names.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from osiris.errors import UsageError

if TYPE_CHECKING:
    from osiris.trust.paths import Files

PIPELINE_SUFFIXES = (".yaml", ".yml")
MAX_PIPELINE_BYTES = 4 * 1024 * 1024  # a larger file is no pipeline worth reading here


class PathRefused(UsageError):
    """A path a tool may not use; the message says why and what to give instead."""


def project_pipeline(root: Path, given: str, settings_file: Path | None = None) -> Path:
    """The file `given` (e.g. "pipelines/orders.yaml") names under `root`, or PathRefused."""
    from osiris.trust.paths import first_link, name_breach

    relative = PurePosixPath(given.replace("\\", "/"))
    if not given.strip() or relative.is_absolute() or given.startswith("~"):
        raise PathRefused(f"'{given}' is not a path inside the project; give one relative to the project "
                          "folder, e.g. pipelines/orders.yaml")
    if ".." in relative.parts:
        raise PathRefused(f"'{given}' leaves the project ('..'); give a path inside it, e.g. pipelines/orders.yaml")
    if relative.suffix.lower() not in PIPELINE_SUFFIXES:
        raise PathRefused(f"'{given}' is not a .yaml or .yml file; pipelines are YAML files, e.g. pipelines/orders.yaml")
    if any(part.startswith(".") for part in relative.parts):
        raise PathRefused(f"'{given}' is hidden or inside a hidden folder (.osiris/, .git/, ...), where Osiris keeps "
                          "its settings and sessions; save pipelines in a visible folder such as pipelines/")
    reason = name_breach(relative.parts)
    if reason:
        raise PathRefused(f"'{shown(given)}' {reason}; give a plain relative path, e.g. pipelines/orders.yaml")
    try:
        link = first_link(root, relative.parts)
    except OSError as error:
        raise PathRefused(f"'{shown(given)}' cannot be used: {describe(error)}") from None
    if link:
        raise PathRefused(f"'{given}' passes through a symbolic link ({link}); "
                          "Osiris does not read or write through links")
    target = root.joinpath(*relative.parts)
    if settings_file is not None and target.resolve() == settings_file.resolve():
        raise PathRefused(f"'{given}' is the settings file; Osiris never reads or writes it as a pipeline")
    return target


def describe(error: OSError) -> str:
    """'file name too long', without Python's '[Errno 36]'."""
    from osiris.output_path import describe_os_error

    return describe_os_error(error)


def shown(given: str, limit: int = 80) -> str:
    """`given` cut to `limit` characters for a message (a 300-character name is not repeated whole)."""
    return given if len(given) <= limit else given[: limit - 3] + "..."


def read_pipeline(path: Path, given: str) -> str:
    """The text of a pipeline file the tools may read (`project_pipeline` first)."""
    if not path.is_file():
        raise PathRefused(f"'{given}' is not a file in the project" + ("" if path.exists() else " (no such file)"))
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_PIPELINE_BYTES + 1)
    except OSError as error:
        raise PathRefused(f"'{shown(given)}' cannot be read: {describe(error)}") from None
    if len(data) > MAX_PIPELINE_BYTES:
        raise PathRefused(f"'{given}' is larger than {MAX_PIPELINE_BYTES // (1024 * 1024)} MiB; no pipeline is that large")
    return data.decode("utf-8-sig", errors="replace")


def replace_problem(path: Path) -> str | None:
    """Why `oml_save` may not replace the file at `path`, or None (no file there, or an OML pipeline)."""
    import yaml

    if not path.exists():
        return None
    try:
        document = yaml.safe_load(read_pipeline(path, path.name))
    except (yaml.YAMLError, UsageError):
        document = None
    if isinstance(document, dict) and "oml_version" in document:
        return None
    return "exists and is not an OML pipeline; Osiris replaces only pipelines (choose another path)"


def project_csv(root: Path, given: str, settings_file: Path | None = None) -> Path:
    """The real path of the CSV file `given` names in the project, or PathRefused: outside the trust
    boundary (OML517's rule: absolute, `..`, a link out, Osiris's own files), hidden, or not `.csv`."""
    from osiris.run.driver import RuntimeProblem
    from osiris.trust.paths import components, hidden_part, name_breach, static_breach

    relative = PurePosixPath(given.replace("\\", "/"))
    parts = components(given)
    if hidden_part(parts) is not None and static_breach(given) == name_breach(parts):  # hidden, nothing graver
        raise PathRefused(f"'{given}' is hidden or inside a hidden folder; Osiris reads no hidden files for an assistant")
    try:
        real = _files(root, settings_file).resolve(given, field="file")
    except RuntimeProblem as problem:
        raise PathRefused(f"{problem.message}; give a CSV file's path relative to the project folder, "
                          "e.g. data/customers.csv") from None
    if relative.suffix.lower() != ".csv" or real.suffix.lower() != ".csv":
        raise PathRefused(f"'{given}' is not a .csv file; discovery_request reads CSV files, e.g. data/customers.csv")
    if not real.is_file():
        raise PathRefused(f"'{given}' is not a file in the project" + ("" if real.exists() else " (no such file)"))
    return real


@contextmanager
def staged_csv(root: Path, real: Path, given: str, settings_file: Path | None = None) -> Iterator[Path]:
    """The checked CSV file `real` (`project_csv`) copied into a scratch folder through handles that
    refuse links (osiris.trust.handles), for as long as the block runs: a folder swapped for a link
    after the check is not followed. PathRefused when it was."""
    import shutil

    from osiris.run.driver import RuntimeProblem
    from osiris.trust.sandbox import scratch_dir

    scratch = scratch_dir(root)
    try:
        try:
            staged = _files(root, settings_file).stage(real, scratch, given, field="file")
        except RuntimeProblem as problem:
            raise PathRefused(f"{problem.message}; nothing was read") from None
        yield staged
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _files(root: Path, settings_file: Path | None) -> Files:
    """The trust boundary of the project for a tool: never `.osiris/` nor the settings file."""
    from osiris.trust.paths import Files

    return Files.at(root, [root / ".osiris", *([settings_file] if settings_file else [])])
