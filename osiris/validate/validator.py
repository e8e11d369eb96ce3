"""The Validator: raw text in, a ValidationReport out, tiers 1-4 in order (SPEC §4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from osiris.registry import Registry, load_registry
from osiris.registry.cache import project_cache_dir
from osiris.validate.canonical import Edit, canonical_text
from osiris.validate.connections import Connections
from osiris.validate.findings import Findings
from osiris.validate.graph import check_graph
from osiris.validate.issue import Issue, ValidationReport
from osiris.validate.rules import CompiledRule, check_rules, compile_rules
from osiris.validate.secrets_inline import check_free_form_secrets
from osiris.validate.sql import check_sql
from osiris.validate.step_config import check_step_config, component_name
from osiris.validate.structure import check_structure, steps_key
from osiris.validate.syntax import parse_answer

COERCED = "OML315"  # a safe coercion: the canonical text holds the coerced value

if TYPE_CHECKING:
    from osiris.catalog import Catalogs
    from osiris.settings import EffectiveSettings


class Validator:
    """Checks OML against a registry, the configured connections and the user's rules. Reusable."""

    def __init__(self, registry: Registry, connections: Connections | None = None,
                 rules: list[CompiledRule] | None = None, catalogs: Catalogs | None = None) -> None:
        self.registry = registry
        self.catalogs = catalogs  # schema catalogs for the SQL checks (OML406); None: none
        self.connections: Connections = connections or {}
        self.rules = rules or []

    def validate(self, text: str, *, truncated: bool = False) -> ValidationReport:
        """Validate raw LLM output or a file's contents. Never raises on any input."""
        try:
            return self._validate(text if isinstance(text, str) else str(text), truncated)
        except RecursionError:
            return _internal_failure("the pipeline is too deeply nested to check")

    def _validate(self, text: str, truncated: bool) -> ValidationReport:
        findings = Findings()
        parsed = parse_answer(text, truncated, findings)
        report = ValidationReport(oml_text=parsed.text, source_text=parsed.text)
        if not parsed.ok:
            report.issues = _ordered(findings.issues)
            return report
        text = parsed.text or ""  # a parsed answer always has its text
        document = parsed.document  # freshly built for this run: safe to coerce in place
        check_structure(document, findings)
        check_free_form_secrets(document, findings)
        edits: list[Edit] = []
        if isinstance(document, dict):
            key = steps_key(document)
            found = document.get(key)
            steps: list[Any] = found if isinstance(found, list) else []
            base = "/" + key
            for index, step in enumerate(steps):
                if findings.full:
                    break
                if not isinstance(step, dict) or not isinstance(component_name(step), str):
                    continue  # no component to check the step against (OML205/OML208 say why)
                config = check_step_config(index, step, self.registry, self.connections, findings, edits, base)
                if config is not None and isinstance(step.get("config"), dict):
                    step["config"] = config
            check_graph(steps, findings, base)
            if key == "steps":  # SQL paths and inputs follow OML; a legacy `tasks:` list is OML203 first
                named = [i for i, s in enumerate(steps) if isinstance(s, dict) and isinstance(component_name(s), str)]
                check_sql(steps, named, self.registry, self.catalogs, findings, text)
            if not any(i.is_error and i.tier == 2 for i in findings.issues):
                check_rules(self.rules, document, findings)
            report.pipeline = document
        findings.note_dropped()
        report.issues = _ordered(findings.issues)
        report.oml_text = canonical_text(text, edits)
        report.coerced = [issue for issue in report.issues if issue.code == COERCED]
        return report


def _ordered(issues: list[Issue]) -> list[Issue]:
    """Stable order: tier, then document order (line, column), then path."""
    far = 10**9
    return sorted(issues, key=lambda i: (i.tier, i.line or far, i.column or far, i.path, i.code))


def _internal_failure(message: str) -> ValidationReport:
    findings = Findings()
    findings.add("OML105", "", message, "flatten the document; an OML pipeline needs only a few levels")
    return ValidationReport(issues=findings.issues)


def load_validator(effective: EffectiveSettings) -> Validator:
    """The registry from built-ins plus `components.paths`, connections and rules from settings.

    Broken specs are skipped and listed in `validator.registry.problems`. A bad rule expression
    raises SettingsError.
    """
    settings = effective.settings
    registry = load_registry((effective.resolve_path(p) for p in settings.components.paths),
                             cache_dir=project_cache_dir(effective.project_root))
    connections: Mapping[str, Any] = settings.connections or {}
    from osiris.catalog import Catalogs

    catalogs = Catalogs(effective.project_root, settings.catalog.max_age_days)
    return Validator(registry, connections, compile_rules(list(settings.validation.rules)), catalogs)
