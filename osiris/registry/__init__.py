"""The component registry (docs/components.md): built-in specs plus those in `components.paths`.

    registry = load_registry([Path("components")])
    registry.get("mysql.extractor").required      # ("host", "database", "user", "password")
    registry.secret_fields("mysql.extractor")     # {"/password"}
    registry.problems                             # broken specs: file and reason; they are skipped
"""

from osiris.registry.loader import SpecProblem, builtin_components_dir
from osiris.registry.registry import Registry, load_registry
from osiris.registry.schemas import compile_schema
from osiris.registry.spec import OML_TO_COMPONENT_MODES, ComponentSpec, LLMHints

__all__ = ["OML_TO_COMPONENT_MODES", "ComponentSpec", "LLMHints", "Registry", "SpecProblem",
           "builtin_components_dir", "compile_schema", "load_registry"]
