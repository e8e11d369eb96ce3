"""Files stay inside the project, or inside a `base_dir` the person declares (docs/security.md, "Files").

A path a pipeline names (a CSV extractor's or writer's `path`, a step's `base_dir`) is relative to
the project directory, or to the `base_dir` of the step's filesystem connection in `.osiris.yaml`.
A path is allowed by list: every component is a plain visible name (not `..`, not starting with `.`
such as `.git`, `.env` or `.osiris`, no control character, at most 255 bytes), the path is relative
(no `~`, no `/`), and no component of it is a symbolic link. It may never name Osiris's own files
either: `.osiris.yaml`, `.osiris/` (sessions, catalogs, scratch), the pipeline being run, the
component folders.

- `static_breach` says what is wrong with a path's text: validation reports it as OML317;
- `Files.resolve` checks the real file system at run time (OML517): no link on the way;
- `Files.stage`, `Files.make_folders` and `Files.place` then touch the file only through directory
  handles that refuse links (osiris.trust.handles), so a folder swapped for a link after the check
  redirects nothing;
- `sample_name` turns a step id into one safe folder name for sample output.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING

from osiris.problems import OUTSIDE_PROJECT_HINT, RuntimeProblem, folder_gone_problem, outside_project_problem

if TYPE_CHECKING:
    from osiris.registry import ComponentSpec

SETTINGS_FILE = ".osiris.yaml"
OSIRIS_DIR = ".osiris"
FILESYSTEM_PATH_FIELDS = ("base_dir", "path")  # for filesystem specs without `x-path` markers
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_NAME_BYTES = 255  # the longest file name Linux and macOS file systems take
HINT = OUTSIDE_PROJECT_HINT


def path_fields(spec: ComponentSpec) -> tuple[str, ...]:
    """The config fields of `spec` that name files: properties marked `x-path: true`; for a
    filesystem spec without the marker, `base_dir` and `path`."""
    marked = tuple(name for name, prop in spec.properties.items() if isinstance(prop, dict) and prop.get("x-path"))
    if marked or spec.family != "filesystem":
        return marked
    return tuple(name for name in FILESYSTEM_PATH_FIELDS if name in spec.properties)


def static_breach(text: str) -> str | None:
    """Why the path `text`, as a pipeline writes it, leaves the boundary; None when it may not."""
    if "\0" in text:
        return "holds a NUL character"
    if text.startswith("~"):
        return "starts with ~ (a home folder, outside the project)"
    if PurePosixPath(text).is_absolute() or PureWindowsPath(text).drive or text.startswith("\\"):
        return "is an absolute path"
    parts = list(components(text))
    if ".." in parts:
        return "goes up with '..'"
    if parts and (parts[0] == OSIRIS_DIR or parts == [SETTINGS_FILE]):
        return f"names Osiris's own {'settings file' if parts == [SETTINGS_FILE] else 'folder'}"
    return name_breach(parts)


def name_breach(parts: Iterable[str]) -> str | None:
    """Why one of the path components `parts` is no plain visible name; None when each is one."""
    parts = tuple(parts)
    hidden = hidden_part(parts)
    if hidden is not None:
        return f"has a hidden component '{hidden}' (names starting with '.' are out of reach)"
    for part in parts:
        if _CONTROL.search(part):
            return "holds a control character"
        if len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
            return f"has a name longer than {MAX_NAME_BYTES} bytes"
    return None


def hidden_part(parts: Iterable[str]) -> str | None:
    """The first of `parts` that is hidden (starts with `.`: `.git`, `.env`), or None."""
    return next((part for part in parts if part.startswith(".")), None)


def components(path: str) -> tuple[str, ...]:
    """The names of a path as a pipeline writes it, `.` and empty parts dropped."""
    return tuple(part for part in re.split(r"[\\/]+", path) if part not in ("", "."))


def outside(field: str, shown: str, reason: str) -> RuntimeProblem:
    """OML517: a path that the real file system puts outside the boundary."""
    return outside_project_problem(field, shown, reason)


@dataclass(frozen=True)
class Files:
    """Where one step may read and write: under `root`, never in `protected`. Both are real paths."""

    root: Path
    protected: tuple[Path, ...] = ()

    @classmethod
    def at(cls, root: Path, protected: Iterable[Path] = ()) -> Files:
        return cls(_real(root), tuple(map(_real, protected)))

    def within(self, base_dir: str | None) -> Files:
        """The same boundary rooted at a step's own `base_dir` (inside this root), for a narrower one."""
        if not base_dir:
            return self
        return Files(self.resolve(base_dir, field="base_dir"), self.protected)

    def resolve(self, path: str, *, field: str = "path", write: bool = False) -> Path:
        """The real path of `path` (relative to the root), or OML517 when it leaves the boundary,
        names a protected file, or passes through a symbolic link (any component, to read or write)."""
        reason = static_breach(path)
        if reason:
            raise outside(field, path, reason)
        candidate = self.root / path
        try:
            real = _real(candidate)
        except OSError:  # a link or folder of the path replaced while it was being resolved
            raise outside(field, path, "changed while Osiris checked it (a folder or link of it was replaced)") from None
        if real != self.root and not _inside(real, self.root):
            raise outside(field, path, "leads out of the project through a symbolic link")
        if any(real == p or _inside(real, p) for p in self.protected):
            raise outside(field, path, "is one of Osiris's own files (settings, sessions, the pipeline)")
        if write and candidate.is_symlink():
            raise outside(field, path, "is a symbolic link; Osiris never writes through one")
        link = first_link(self.root, components(path))
        if link:
            raise outside(field, path, f"passes through a symbolic link ({link}); Osiris reads and writes "
                                       "no file through links")
        return self.root.joinpath(*components(path))

    def stage(self, source: Path, scratch: Path, shown: str, field: str = "path") -> Path:
        """The checked file `source` brought into `scratch`, opened through link-refusing handles."""
        from osiris.trust.handles import stage_from

        with self._handled(field, shown):
            return stage_from(self.root, self._parts(source), scratch)

    def make_folders(self, target: Path, shown: str, field: str = "path") -> None:
        """The folders of the checked file `target`, made one by one without following a link."""
        from osiris.trust.handles import make_folders

        with self._handled(field, shown):
            make_folders(self.root, self._parts(target)[:-1])

    def place(self, finished: Path, target: Path, shown: str, field: str = "path") -> None:
        """`finished` renamed onto the checked file `target`, inside its folder's handle."""
        from osiris.trust.handles import place_into

        with self._handled(field, shown):
            place_into(finished, self.root, self._parts(target))

    def _parts(self, checked: Path) -> tuple[str, ...]:
        return checked.relative_to(self.root).parts

    @contextmanager
    def _handled(self, field: str, shown: str) -> Iterator[None]:
        """OML517 for a link met on the way (it appeared after the check), OML510 for a folder gone."""
        from osiris.trust.handles import LinkInTheWay

        try:
            yield
        except LinkInTheWay as link:
            raise outside(field, shown, f"passes through a symbolic link ({link}) that appeared after the check; "
                                        "nothing was read or written") from None
        except FileNotFoundError:
            raise folder_gone_problem(shown) from None

    def shows(self, folder: Path) -> bool:
        """Whether a hint may list `folder`'s files: it is inside the root and not protected."""
        real = _real(folder)
        return (real == self.root or _inside(real, self.root)) and not any(
            real == p or _inside(real, p) for p in self.protected)


def sample_name(text: str, fallback: str = "step") -> str:
    """One safe file or folder name from a step id or a file name: `/x/.ssh` -> `x_ssh`, `../a` -> `a`."""
    return _UNSAFE.sub("_", text).strip("_-") or fallback


def sample_file(path: str) -> str:
    """The name a sample write takes in its step's folder: the target's last part, made safe."""
    last = re.split(r"[\\/]+", path.rstrip("\\/"))[-1] if path else ""
    stem, dot, suffix = last.rpartition(".")
    if not dot or not stem.strip("."):
        return sample_name(last, "output")
    return f"{sample_name(stem, 'output')}.{sample_name(suffix, 'csv')}"


def first_link(root: Path, parts: tuple[str, ...]) -> str | None:
    """The first of `parts` (below `root`) that is a symbolic link, as a relative path; None if none is."""
    here = root
    for index, part in enumerate(parts):
        here = here / part
        if here.is_symlink():
            return "/".join(parts[: index + 1])
    return None


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _inside(path: Path, folder: Path) -> bool:
    return path != folder and path.is_relative_to(folder)
