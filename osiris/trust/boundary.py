"""The boundary of one project, as the runtime checks it before a step runs (docs/security.md).

    boundary = Boundary.of(effective, registry, pipeline=Path("pipeline.yaml"))
    boundary.check_step("rest.extractor", config, connection)   # OML518, before anything is sent
    files = boundary.files(connection)                         # where its files may be

Validation refuses the same pipelines first (OML314, OML316, OML317, OML408); these checks are the
second lock, for a pipeline that reached the runtime without it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from osiris.problems import boundary_problem, reference_in_pipeline_problem
from osiris.trust.endpoints import endpoint_fields, endpoint_overrides
from osiris.trust.paths import OSIRIS_DIR, SETTINGS_FILE, Files
from osiris.trust.references import step_references

if TYPE_CHECKING:
    from osiris.oml.values import Config
    from osiris.registry import Registry
    from osiris.settings.loader import EffectiveSettings

EndpointFields = Callable[[str], frozenset[str]]  # component -> the fields that say where it connects


@lru_cache(maxsize=64)
def builtin_endpoint_fields(component: str) -> frozenset[str]:
    """The endpoint fields of a built-in component (none for an unknown one)."""
    from osiris.registry import load_registry

    spec = load_registry().get(component)
    return endpoint_fields(spec) if spec is not None else frozenset()


@dataclass(frozen=True)
class Boundary:
    """The project directory, the files a pipeline may never touch, and each component's endpoint fields."""

    project: Path
    protected: tuple[Path, ...] = ()  # besides the project's .osiris.yaml and .osiris/
    endpoint_fields: EndpointFields = field(default=builtin_endpoint_fields)

    @classmethod
    def of(cls, effective: EffectiveSettings, registry: Registry, pipeline: Path | None = None) -> Boundary:
        """The boundary of the settings' project: the pipeline file, the settings file, the sessions
        folder and the component folders are protected too, wherever they are (unless one of them
        holds the whole project, as `components.paths: [.]` would)."""
        settings = effective.settings
        protected = [pipeline, effective.config_path, effective.resolve_path(settings.sessions.dir),
                     *(effective.resolve_path(p) for p in settings.components.paths)]

        def fields(component: str) -> frozenset[str]:
            spec = registry.get(component)
            return endpoint_fields(spec) if spec is not None else frozenset()

        project = effective.project_root.resolve()
        kept = [p for p in protected if p is not None and not project.is_relative_to(p.resolve())]
        return cls(effective.project_root, tuple(kept), fields)  # a folder holding the whole project protects nothing

    def files(self, connection: Config) -> Files:
        """Where a filesystem step may read and write: the `base_dir` its connection declares, else
        the project; never the protected files."""
        declared = connection.get("base_dir")
        root = self.project
        if isinstance(declared, str) and declared:
            given = Path(os.path.expanduser(declared))
            root = given if given.is_absolute() else self.project / given
        return Files.at(root, (self.project / SETTINGS_FILE, self.project / OSIRIS_DIR, *self.protected))

    def step_files(self, config: Config, connection: Config) -> Files:
        """Where one step may read and write: `files(connection)`, narrowed to the step's own
        `base_dir` when it sets one (a base_dir equal to the connection's is the connection's)."""
        files = self.files(connection)
        own = config.get("base_dir")
        return files.within(own) if isinstance(own, str) and own and own != connection.get("base_dir") else files

    def check_step(self, component: str, config: Config, connection: Config) -> None:
        """OML518 when a step's config names `${...}` or moves its connection's endpoint."""
        found = step_references(config)
        if found:
            pointer, _ = found[0]
            raise reference_in_pipeline_problem(pointer)
        reference = config.get("connection")
        if isinstance(reference, str) and reference.startswith("@"):
            moved = endpoint_overrides(config, self.endpoint_fields(component), reference, connection)
            if moved:
                raise boundary_problem(moved[0].message, moved[0].hint, moved[0].where)
