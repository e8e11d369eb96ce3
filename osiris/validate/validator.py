"""The Validator: raw text in, a ValidationReport out, tiers 1-4 in order (docs/validate.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from osiris.oml.config import StepConfig
from osiris.oml.pipeline import typed_pipeline
from osiris.oml.values import MutableConfig
from osiris.registry import Registry, load_registry
from osiris.registry.cache import project_cache_dir
from osiris.validate.canonical import Edit, canonical_text
from osiris.validate.checks import check_step_checks
from osiris.validate.incremental import check_incremental
from osiris.errors import where_raised
from osiris.validate.codes import CODES
from osiris.validate.connections import Connections
from osiris.validate.findings import Findings
from osiris.validate.dependencies import check_graph
from osiris.validate.issue import Issue, ValidationReport
from osiris.validate.params import apply_params, step_params
from osiris.validate.rules import CompiledRule, check_rules, compile_rules
from osiris.validate.paging import check_paging
from osiris.validate.runnable import check_runnable
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
                 rules: list[CompiledRule] | None = None, catalogs: Catalogs | None = None,
                 env: Mapping[str, str] | None = None) -> None:
        self.registry = registry
        self.env: Mapping[str, str] = env or {}  # where OSIRIS_PARAM_<NAME> is read (docs/run-again.md)
        self.catalogs = catalogs  # schema catalogs for the SQL checks (OML406); None: none
        self.connections: Connections = connections or {}
        self.rules = rules or []

    def validate(self, text: str, *, truncated: bool = False, params: Mapping[str, str] | None = None) -> ValidationReport:
        """Validate raw LLM output or a file's contents. Never raises on any input: a check that
        fails unexpectedly ends the run with what was found so far plus one issue saying so.
        `params` are the `--param name=value` flags; they come before `OSIRIS_PARAM_<NAME>` and defaults."""
        findings = Findings()
        report = ValidationReport()
        try:
            self._validate(text if isinstance(text, str) else str(text), truncated, findings, report, params or {})
            if report.valid and report.pipeline is not None:
                report.typed_pipeline = typed_pipeline(report.pipeline, report.step_configs)
        except RecursionError:
            _stopped(report, findings, "OML105", "the pipeline is too deeply nested to check",
                     "flatten the document; an OML pipeline needs only a few levels")
        except Exception as error:  # a bug in a check, not in the pipeline (docs/errors.md, OML105)
            _stopped(report, findings, "OML105", f"the checks stopped at an internal error ({where_raised(error)})",
                     "this is a bug in Osiris, not in the pipeline: please report it with this line; "
                     "a pipeline that was not checked to the end is never accepted")
        return report

    def _validate(self, text: str, truncated: bool, findings: Findings, report: ValidationReport,
                  params: Mapping[str, str]) -> None:
        parsed = parse_answer(text, truncated, findings)
        report.oml_text = report.source_text = parsed.text
        if not parsed.ok:
            report.issues = _ordered(findings.issues)
            return
        text = parsed.text or ""  # a parsed answer always has its text
        document = parsed.document  # freshly built for this run: safe to coerce in place
        check_structure(document, findings)
        written: set[str] = set()  # config values a parameter gave: never coerced into the text
        if isinstance(document, dict):
            report.step_params = step_params(document)
            resolved, written = apply_params(document, params, self.env, findings)
            report.params = resolved.record()
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
                if config is not None and isinstance(step.get("id"), str):
                    report.step_configs.setdefault(step["id"], self._effective(step, config))
            check_graph(steps, findings, base)
            if key == "steps":  # SQL paths and inputs follow OML; a legacy `tasks:` list is OML203 first
                check_runnable(steps, findings, base)
                check_paging(steps, report.step_configs, findings, base)
                named = [i for i, s in enumerate(steps) if isinstance(s, dict) and isinstance(component_name(s), str)]
                check_sql(steps, named, self.registry, self.catalogs, findings, text)
                check_step_checks(steps, findings, base)
                check_incremental(steps, findings, base)
            if not any(i.is_error and i.tier == 2 for i in findings.issues):
                check_rules(self.rules, document, findings)
            report.pipeline = document
        findings.note_dropped()
        if written:  # the text keeps `${params.name}`: a coercion of the value is the run's, not the text's
            findings.issues = [i for i in findings.issues if not (i.code == COERCED and i.path in written)]
            edits = [e for e in edits if e.pointer not in written]
        report.issues = _ordered(findings.issues)
        report.oml_text = canonical_text(text, edits)
        report.coerced = [issue for issue in report.issues if issue.code == COERCED]


    def _effective(self, step: MutableConfig, config: MutableConfig) -> StepConfig:
        """The step's config as a run will use it: the spec's defaults for what it leaves out."""
        name = component_name(step)
        spec = self.registry.get(name) if isinstance(name, str) else None  # a checked step names its component
        defaults = {k: v for k, v in spec.defaults.items() if k not in config} if spec else {}
        return StepConfig(config, defaults)


def _ordered(issues: list[Issue]) -> list[Issue]:
    """Stable order: tier, then document order (line, column), then path."""
    far = 10**9
    return sorted(issues, key=lambda i: (i.tier, i.line or far, i.column or far, i.path, i.code))


def _stopped(report: ValidationReport, findings: Findings, code: str, message: str, hint: str) -> None:
    """End a run that could not finish: the issues found so far and `code` saying why; no pipeline,
    since one that was not fully checked is never accepted."""
    stop = Issue(code, CODES[code].tier, "error", "", message, hint)  # added even when findings are full
    report.issues = _ordered([*findings.issues, stop])
    report.pipeline = None
    report.typed_pipeline = None
    report.coerced = []
    report.step_configs = {}


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
    return Validator(registry, connections, compile_rules(list(settings.validation.rules)), catalogs,
                     env=effective.env)
