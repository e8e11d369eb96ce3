"""Tier 2: the OML shape of docs/oml.md — required and legacy keys, types, unique ids, known modes."""

from __future__ import annotations

import re

from osiris.oml.step_graph import input_step, table_name
from osiris.oml.ids import RULE, is_step_id, safe_step_id, table_key
from osiris.oml.values import MutableConfig
from osiris.suggest import did_you_mean
from osiris.secrets.names import is_secret_key
from osiris.validate.findings import Findings
from osiris.validate.pointer import join
from osiris.validate.schedule import check_schedule

OML_VERSION = "0.1.0"
REQUIRED_KEYS = ("oml_version", "name", "steps")
OPTIONAL_KEYS = ("description", "metadata", "schedule", "params")
STEP_REQUIRED = ("id", "component", "mode")
STEP_OPTIONAL = ("config", "needs", "inputs", "description", "name", "checks")
OML_MODES = ("read", "write", "transform")
# Legacy top-level key -> (the OML key it stands for, or None, and how to fix it).
LEGACY_KEYS: dict[str, tuple[str | None, str]] = {
    "version": ("oml_version", "rename 'version' to 'oml_version' and set it to \"0.1.0\""),
    "tasks": ("steps", "rename 'tasks' to 'steps'; each step needs id, component and mode"),
    "connectors": (None, "remove 'connectors'; put connection: \"@family.alias\" in each step's config"),
    "outputs": (None, "remove 'outputs'; write data with a writer step (mode: write) in 'steps'"),
    "extract": (None, "move it into 'steps' as a step with mode: read"),
    "transform": (None, "move it into 'steps' as a step with mode: transform"),
    "load": (None, "move it into 'steps' as a step with mode: write"),
}
# Step keys from other pipeline formats (Airflow, dbt, Dagster, Prefect) -> the OML step key meant.
STEP_KEY_REPLACEMENTS = {"depends_on": "needs", "dependencies": "needs", "depends": "needs", "requires": "needs",
                         "upstream": "needs", "after": "needs", "params": "config", "parameters": "config",
                         "settings": "config", "options": "config", "properties": "config"}
# Component-level mode names people (and LLMs) write in OML, and the OML mode meant.
MODE_SYNONYMS = {"extract": "read", "load": "write", "writer": "write", "reader": "read", "process": "transform"}
_KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def check_structure(document: object, findings: Findings) -> list[int]:
    """Report tier-2 issues; return the indexes of steps sound enough for tiers 3 and 4."""
    if not isinstance(document, dict):
        findings.add("OML201", "", f"the document is a {_kind(document)}, not a mapping of keys",
                     "start the document with 'oml_version: \"0.1.0\"', then 'name:' and 'steps:'",
                     value=_short(document))
        return []
    _check_top_level_keys(document, findings)
    _check_header(document, findings)
    key = steps_key(document)
    return _check_steps(document.get(key), key in document, findings, join("", key))


def steps_key(document: MutableConfig) -> str:
    """Where the steps are: `steps`, or the legacy `tasks` when only that is there."""
    return "tasks" if "steps" not in document and "tasks" in document else "steps"


def is_extension(key: object) -> bool:
    """`x-*` keys are extensions (public Osiris): allowed at any level, ignored by the checks."""
    return isinstance(key, str) and key.startswith("x-")


def _check_top_level_keys(document: MutableConfig, findings: Findings) -> None:
    replaced = set()
    for key in document:
        if findings.full:
            break
        if key in REQUIRED_KEYS or key in OPTIONAL_KEYS or is_extension(key):
            continue
        if key in LEGACY_KEYS:
            target, fix = LEGACY_KEYS[key]
            replaced.add(target)
            if target in document:
                fix = f"remove '{key}'; '{target}' is already set"
            findings.add("OML203", join("", key), f"'{key}' is a legacy key, not part of OML 0.1.0", fix)
            continue
        known = REQUIRED_KEYS + OPTIONAL_KEYS
        if isinstance(key, str) and is_secret_key(key):
            findings.add("OML310", join("", key), f"secret '{key}' is written inline in the pipeline",
                         "remove it; secrets come from a connection: connection: \"@family.alias\" in a step",
                         value=document[key], secret=True)
            continue
        findings.add("OML204", join("", key), f"unknown top-level key '{key}' is ignored",
                     f"remove it; top-level keys are: {', '.join(known)}{did_you_mean(key, known)}")
    for key in REQUIRED_KEYS:
        if key not in document and key not in replaced:
            findings.add("OML202", join("", key), f"required top-level key '{key}' is missing", _add_hint(key))


def _add_hint(key: str) -> str:
    return {
        "oml_version": f"add oml_version: \"{OML_VERSION}\" (a quoted string)",
        "name": "add name: <kebab-case-name>, e.g. name: customers-to-csv",
        "steps": "add steps: a list of steps, each with id, component and mode",
    }[key]


def _check_header(document: MutableConfig, findings: Findings) -> None:
    version = document.get("oml_version")
    if "oml_version" in document:
        if not isinstance(version, str):
            findings.add("OML205", "/oml_version", f"oml_version must be a string, not {_kind(version)}",
                         f"write oml_version: \"{OML_VERSION}\" with the quotes", value=version)
        elif version != OML_VERSION:
            findings.add("OML206", "/oml_version", f"oml_version '{version}' is not supported",
                         f"use oml_version: \"{OML_VERSION}\"", value=version)
    name = document.get("name")
    if "name" in document:
        if not isinstance(name, str) or not name.strip():
            findings.add("OML205", "/name", f"name must be a non-empty string, not {_kind(name)}",
                         "write name: <kebab-case-name>, e.g. name: customers-to-csv", value=_short(name))
        elif not _KEBAB.match(name):
            findings.add("OML211", "/name", f"name '{name}' is not lower-case kebab-case",
                         f"use name: {to_kebab(name)}", value=name)
    if document.get("schedule") is not None:
        check_schedule(document["schedule"], findings)
    for key, kinds, label in (("description", (str,), "a string"), ("metadata", (dict,), "a mapping")):
        if key in document and document[key] is not None and not isinstance(document[key], kinds):
            findings.add("OML205", join("", key), f"{key} must be {label}, not {_kind(document[key])}",
                         f"make {key} {label}", value=_short(document[key]))


def _check_steps(steps: object, present: bool, findings: Findings, base: str) -> list[int]:
    if steps is None:
        if present:
            findings.add("OML207", base, "steps is empty", "add at least one step with id, component and mode")
        return []
    if not isinstance(steps, list):
        findings.add("OML205", base, f"steps must be a list, not {_kind(steps)}",
                     "write steps as a list: each item starts with '- id: ...'", value=_short(steps))
        return []
    if not steps:
        findings.add("OML207", base, "steps is an empty list", "add at least one step with id, component and mode")
        return []
    sound: list[int] = []
    seen_ids: dict[str, int] = {}
    for index, step in enumerate(steps):
        if findings.full:
            break
        if _check_step(join(base, index), step, findings, seen_ids):
            sound.append(index)
    return sound


def _check_step(path: str, step: object, findings: Findings, seen_ids: dict[str, int]) -> bool:
    index = int(path.rsplit("/", 1)[1])
    if not isinstance(step, dict):
        findings.add("OML205", path, f"step {index} must be a mapping, not {_kind(step)}",
                     "write each step as '- id: ...' followed by component, mode and config", value=_short(step))
        return False
    before = len([i for i in findings.issues if i.is_error])
    has_type = "type" in step
    for key in step:
        if findings.full:
            break
        if key in STEP_REQUIRED or key in STEP_OPTIONAL or is_extension(key):
            continue
        if key == "type":
            example = step["type"] if isinstance(step["type"], str) else "mysql.extractor"
            findings.add("OML203", join(path, key), "a step's 'type' is a legacy key",
                         f"rename 'type' to 'component' (component: {example})"
                         + ("" if "mode" in step else " and add mode: read, write or transform"))
            continue
        findings.add("OML209", join(path, key), f"unknown step key '{key}'", _unknown_step_key_hint(step, key))
    for key in STEP_REQUIRED:
        if key not in step and not (key == "component" and has_type):
            findings.add("OML208", join(path, key), f"step {index} has no '{key}'", _step_field_hint(key, index))
    _check_step_values(path, step, findings, seen_ids)
    return len([i for i in findings.issues if i.is_error]) == before


def _unknown_step_key_hint(step: MutableConfig, key: object) -> str:
    """Name the OML key a key from another format stands for; else list the step keys."""
    known = STEP_REQUIRED + STEP_OPTIONAL
    target = STEP_KEY_REPLACEMENTS.get(key.lower()) if isinstance(key, str) else None
    if target is not None and target not in step:
        return f"rename '{key}' to '{target}' ({_STEP_KEY_MEANING[target]})"
    if target is not None:
        return f"move what '{key}' holds into {target} and remove '{key}' ({_STEP_KEY_MEANING[target]})"
    return (f"step keys are: {', '.join(known)}{did_you_mean(key, known)}"
            + ("; component settings go under config" if key not in known else ""))


_STEP_KEY_MEANING = {"needs": "OML lists the ids of the earlier steps a step depends on under needs",
                     "config": "OML puts a component's settings under config"}


def _step_field_hint(key: str, index: int) -> str:
    return {
        "id": f"add id: <unique-step-name>, e.g. id: step-{index + 1}",
        "component": "add component: <family.kind>, e.g. component: mysql.extractor (see 'osiris components list')",
        "mode": "add mode: read, write or transform",
    }[key]


def _check_step_values(path: str, step: MutableConfig, findings: Findings, seen_ids: dict[str, int]) -> None:
    step_id = step.get("id")
    if "id" in step:
        if not isinstance(step_id, str) or not step_id.strip():
            findings.add("OML205", join(path, "id"), f"id must be a non-empty string, not {_kind(step_id)}",
                         "write id: <unique-step-name>, e.g. id: extract-customers", value=_short(step_id))
        elif step_id in seen_ids:
            findings.add("OML210", join(path, "id"), f"step id '{step_id}' is already used by step {seen_ids[step_id]}",
                         f"give this step another id, e.g. {step_id}-2, and update any needs that mean it",
                         value=step_id)
        else:
            _check_id_form(path, step_id, findings, seen_ids)
            seen_ids[step_id] = int(path.rsplit("/", 1)[1])
    component = step.get("component")
    if "component" in step and (not isinstance(component, str) or not component.strip()):
        findings.add("OML205", join(path, "component"), f"component must be a string, not {_kind(component)}",
                     "write component: <family.kind>, e.g. component: mysql.extractor", value=_short(component))
    mode = step.get("mode")
    if "mode" in step:
        if not isinstance(mode, str):
            findings.add("OML205", join(path, "mode"), f"mode must be a string, not {_kind(mode)}",
                         "write mode: read, write or transform", value=_short(mode))
        elif mode not in OML_MODES:
            meant = MODE_SYNONYMS.get(mode.lower()) or (mode.lower() if mode.lower() in OML_MODES else None)
            hint = f"use mode: {meant}" if meant else f"use mode: read, write or transform{did_you_mean(mode, OML_MODES)}"
            findings.add("OML212", join(path, "mode"), f"mode '{mode}' is not read, write or transform", hint, value=mode)
    config = step.get("config")
    if "config" in step and config is not None and not isinstance(config, dict):
        findings.add("OML205", join(path, "config"), f"config must be a mapping, not {_kind(config)}",
                     "write config as 'key: value' lines indented under config:", value=_short(config))
    needs = step.get("needs")
    if "needs" in step and needs is not None and not (
        isinstance(needs, list) and all(isinstance(n, str) for n in needs)
    ):
        what = _kind(needs) if not isinstance(needs, list) else next(
            f"a list holding {_kind(n)}" for n in needs if not isinstance(n, str))
        findings.add("OML205", join(path, "needs"), f"needs must be a list of step ids, not {what}",
                     "write needs: [<id of an earlier step>], e.g. needs: [extract-customers]", value=_short(needs))
    inputs = step.get("inputs")
    if "inputs" in step and not (isinstance(inputs, dict) and all(input_step(v) for v in inputs.values())):
        what = _kind(inputs) if not isinstance(inputs, dict) else "a mapping with a value that is not ${<step id>.df}"
        findings.add("OML205", join(path, "inputs"), f"inputs must map names to step outputs, not {what}",
                     'write inputs: {df: "${<id of an earlier step>.df}"}, or use needs: [<id>]', value=_short(inputs))


def _check_id_form(path: str, step_id: str, findings: Findings, seen_ids: dict[str, int]) -> None:
    """OML214 for an id outside the safe form; OML215 for one whose df_ table an earlier id already has."""
    if not is_step_id(step_id):
        findings.add("OML214", join(path, "id"), f"step id '{_short(step_id)}' is not a plain name ({RULE})",
                     f"use id: {safe_step_id(step_id, seen_ids)}, and the same id in every needs and inputs "
                     "that name this step", value=_short(step_id))
        return
    key = table_key(step_id)
    twin = next((other for other in seen_ids if is_step_id(other) and table_key(other) == key), None)
    if twin is not None:
        findings.add("OML215", join(path, "id"),
                     f"step ids '{twin}' and '{step_id}' both name the table {table_name(twin)} "
                     "(- and _ are the same there, and case does not count)",
                     f"use id: {safe_step_id(step_id + '-2', seen_ids)}, and the same id in every needs and "
                     "inputs that name this step", value=step_id)


def to_kebab(name: str) -> str:
    """A kebab-case version of `name`: "Active Customers_CSV" -> "active-customers-csv"."""
    words = re.findall(r"[A-Za-z0-9]+", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name))
    return "-".join(word.lower() for word in words) or "my-pipeline"


def _kind(value: object) -> str:
    if value is None:
        return "empty (null)"
    return {bool: "true/false", int: "a number", float: "a number", str: "a string",
            list: "a list", dict: "a mapping"}.get(type(value), type(value).__name__)


def _short(value: object) -> object:
    """Small values are kept for the issue; big lists and mappings are not copied into it."""
    if isinstance(value, (list, dict)):
        return f"<{_kind(value)} of {len(value)} items>"
    if isinstance(value, str) and len(value) > 200:
        return value[:200] + "..."
    return value
