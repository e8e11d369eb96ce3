"""Tier 3's share of the trust boundary (docs/security.md): the rules live in `osiris.trust`, the
runtime checks them again; this module turns them into issues.

- OML316: a `${...}` reference in a step's config (references are resolved in connections only;
  `${params.name}` is a parameter, written in before these checks: docs/run-again.md);
- OML317: a file path that leaves the project or names Osiris's own files.

Where a connection goes (OML314) is checked with the other overrides (osiris.validate.connections);
what a transform's SQL reads (OML408) with the other SQL checks (osiris.validate.sql).
"""

from __future__ import annotations

from osiris.oml.params import REFERENCE as PARAM_REFERENCE
from osiris.oml.values import Config
from osiris.registry import ComponentSpec
from osiris.trust.paths import HINT, path_fields, static_breach
from osiris.trust.references import ANY_REFERENCE, step_references
from osiris.validate.findings import Findings


def check_boundary(path: str, config: Config, spec: ComponentSpec, findings: Findings) -> None:
    """OML316 and OML317 for one step's config, `path` being the config's JSON pointer."""
    for pointer, text in step_references(config):
        if not ANY_REFERENCE.search(PARAM_REFERENCE.sub("", text)):
            continue  # only `${params.name}` left: a parameter without a value, OML318
        findings.add("OML316", path + pointer, f"{pointer.lstrip('/').replace('/', '.')} holds a ${{...}} "
                     "reference; a pipeline may not name environment variables or keyring entries",
                     "put the value in a connection in .osiris.yaml (which may use ${NAME}) and use "
                     "connection: \"@family.alias\"; or write the value itself if it is no secret",
                     value=text)
    for field in path_fields(spec):
        value = config.get(field)
        reason = static_breach(value) if isinstance(value, str) else None
        if reason:
            findings.add("OML317", f"{path}/{field}", f"{field} '{value}' {reason}: files stay inside the project",
                         HINT, value=value)
