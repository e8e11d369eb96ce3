"""OML321: a step sets a field its spec marks `x-no-effect` (docs/components.md).

Public Osiris pipelines set such fields (a MySQL pool size, a CSV chunk size), so they validate;
but a value that changes nothing is said, never ignored in silence.
"""

from __future__ import annotations

from osiris.oml.values import Config, Value
from osiris.registry import ComponentSpec
from osiris.validate.connections import CONNECTION_KEY, Reference
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

NO_EFFECT = "OML321"


def check_no_effect(path: str, step_id: Value, config: Config, spec: ComponentSpec, findings: Findings,
                    connection: Reference | None = None) -> None:
    """One warning for each field of `config` (the step's, at `path`) that has no effect in Osiris,
    and for each such field its `connection` gives it, which a run merges under the step's config
    (osiris.run.connections): said at the step's `connection` field."""
    step = f"step '{step_id}'" if isinstance(step_id, str) else "this step"
    for field, why in spec.no_effect.items():
        if field in config:
            findings.add(NO_EFFECT, join(path, field), f"{step}: {field} has no effect in Osiris ({why})",
                         f"remove {field} from the step", value=field)
        elif connection is not None and field in connection.fields:
            name = f"{connection.family}.{connection.alias}"
            findings.add(NO_EFFECT, join(path, CONNECTION_KEY),
                         f"{step}: {field}, from the connection @{name}, has no effect in Osiris ({why})",
                         f"remove {field} from connections.{name} in .osiris.yaml", value=field)
