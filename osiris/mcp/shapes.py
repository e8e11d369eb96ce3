"""The tools' results as JSON (docs/mcp.md): a validation report, a component, a connection, a run.

Results carry codes, names, types and counts. Secrets are masked once more by the server before
anything leaves (`server.OsirisMCP.call_tool`); a connection's secrets appear as their `${VAR}`
reference and never resolved; row values only with `sessions.save_samples: true`.

A tool's result is typed `dict[str, object]`, not `dict[str, Value]`: the SDK builds the tool's
published output schema from its return annotation with pydantic, which cannot build the recursive
`Value`, and a tool without one returns no structured content, which the server would pass on
unredacted (tests/test_mcp_tools.py pins the schema of every tool).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value
    from osiris.registry.spec import ComponentSpec
    from osiris.run.duckdb_run import StepResult
    from osiris.validate.issue import ValidationReport

SECRET_SHOWN = "***"


def report_json(report: ValidationReport) -> dict[str, object]:
    """Valid or not, the counts, every issue (code, severity, tier, path, message, hint, line,
    column, value) in the validator's order, and the canonical pipeline when it parsed."""
    return {
        "valid": report.valid,
        "error_count": len(report.errors),
        "warning_count": len(report.warnings),
        "error_codes": report.error_codes,
        "issues": [issue.to_dict() for issue in report.issues],
        "pipeline": report.oml_text if report.pipeline is not None else None,
    }


def component_summary(spec: ComponentSpec) -> dict[str, object]:
    return {"name": spec.name, "family": spec.family, "modes": list(spec.oml_modes), "title": spec.title}


def component_detail(spec: ComponentSpec) -> dict[str, object]:
    """Everything a model needs to write a step: each field's type, default, marks (required, secret,
    from_connection: the connection supplies it; no_effect: accepted and changes nothing, OML321) and
    JSON Schema; constraints, aliases and examples.
    The marks are words, not `secret: true`: a key named secret is masked by the redactor."""
    fields = [{
        "name": name,
        "type": schema.get("type", "any"),
        "marks": [mark for mark, on in (("required", name in spec.required), ("secret", spec.is_secret("/" + name)),
                                        ("from_connection", name in spec.connection_fields),
                                        ("no_effect", name in spec.no_effect)) if on],
        "default": schema.get("default"),
        "description": schema.get("description", ""),
        "schema": schema,
    } for name, schema in spec.properties.items()]
    return {
        **component_summary(spec),
        "version": spec.version,
        "description": spec.description,
        "connection": f"@{spec.family}.<alias>" if spec.connection_fields else None,
        "fields": fields,
        "constraints": spec.constraints,
        "aliases": [{"field": name, "aliases": aliases} for name, aliases in spec.llm_hints.input_aliases.items()],
        "guidance": spec.llm_hints.prompt_guidance,
        "examples": [{"title": e.get("title", ""), "config": e.get("config", {})} for e in spec.examples],
    }


def connection_json(family: str, alias: str, fields: Config, secret_names: set[str]) -> dict[str, object]:
    """A configured connection: `${VAR}` references as written, a secret written inline as ***."""
    from osiris.secrets.names import is_secret_key
    from osiris.trust.references import REFERENCE

    def shown(name: str, value: Value) -> Value:
        if isinstance(value, str) and REFERENCE.fullmatch(value.strip()):
            return value
        return SECRET_SHOWN if name.lower() in secret_names or is_secret_key(name) else value

    return {"reference": f"@{family}.{alias}", "family": family, "alias": alias,
            "fields": {name: shown(name, value) for name, value in (fields or {}).items()}}


def sample_rows(step: StepResult) -> list[dict[str, object]]:
    """A step's preview rows as records: only for a project with `sessions.save_samples: true`."""
    if step.preview is None:
        return []
    headers, rows = step.preview
    return [dict(zip(headers, row)) for row in rows]
