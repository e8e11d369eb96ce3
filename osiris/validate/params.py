"""The `params:` block and `${params.name}` (docs/run-again.md): its shape (OML216), every
reference given a value (OML318), and each step's config with the values written in, so that the
config, secrets and SQL checks see what a run will run. The rules live in `osiris.oml.params`.
"""

from __future__ import annotations

from collections.abc import Mapping

from osiris.oml.params import ENTRY_KEYS, NAME, REFERENCE, Resolved, env_name, resolve, substitute, used
from osiris.oml.values import Config, MutableConfig
from osiris.secrets.names import is_secret_key
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

SCALARS = (str, int, float, bool)


def apply_params(document: MutableConfig, given: Mapping[str, str], env: Mapping[str, str],
                 findings: Findings) -> tuple[Resolved, set[str]]:
    """Check `params:`, then write each parameter's value into the steps' configs (in place).
    Returns the values and the JSON pointers of the config values that held a reference
    (`step_params` says which parameters each step's config uses: call it first)."""
    _check_block(document.get("params"), "params" in document, findings)
    resolved = resolve(document, given, env)
    written: set[str] = set()
    steps = document.get("steps")
    for index, step in enumerate(steps if isinstance(steps, list) else []):
        if not isinstance(step, dict) or not isinstance(step.get("config"), dict):
            continue
        base = join("/steps", index, "config")
        step["config"], pointers = substitute(step["config"], resolved.values)
        written.update(base + p for p in pointers)
        _report_unresolved(step["config"], base, findings)
    return resolved, written


def step_params(document: Config) -> dict[str, list[str]]:
    """Step id -> the parameters its config refers to, before they are written in (an incremental
    read's state is kept by their values: osiris.run.incremental.state_keys)."""
    steps = document.get("steps")
    return {step["id"]: used(step.get("config")) for step in (steps if isinstance(steps, list) else [])
            if isinstance(step, dict) and isinstance(step.get("id"), str) and used(step.get("config"))}


def _report_unresolved(value: object, pointer: str, findings: Findings) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            _report_unresolved(item, join(pointer, key), findings)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _report_unresolved(item, join(pointer, index), findings)
    elif isinstance(value, str):
        for name in dict.fromkeys(m.group(1) for m in REFERENCE.finditer(value)):
            findings.add("OML318", pointer, f"parameter '{name}' has no value",
                         f"give it one: --param {name}=VALUE, the environment variable {env_name(name)}, or a "
                         f"default in the pipeline (params: {{{name}: {{default: VALUE}}}})", value=value)


def _check_block(block: object, present: bool, findings: Findings) -> None:
    if not present or block is None:
        return
    if not isinstance(block, dict):
        findings.add("OML216", "/params", "params must be a mapping of parameter names",
                     "write params: {table: {default: customers, description: the table to copy}}")
        return
    for name, entry in block.items():
        path = join("/params", name)
        if not isinstance(name, str) or not NAME.match(name):
            findings.add("OML216", path, f"parameter name '{name}' is not a plain name",
                         "use letters, digits and _, starting with a letter or _ (e.g. source_table)", value=str(name))
            continue
        if isinstance(entry, dict):
            unknown = [k for k in entry if k not in ENTRY_KEYS and not str(k).startswith("x-")]
            for key in unknown:
                findings.add("OML216", join(path, key), f"parameter '{name}' has an unknown key '{key}'",
                             "a parameter has default and description only")
            default = entry.get("default")
            if "description" in entry and not isinstance(entry["description"], str):
                findings.add("OML216", join(path, "description"), f"the description of parameter '{name}' "
                             "must be text", "write description: <what the parameter is for>")
        else:
            default = entry
        if default is not None and not isinstance(default, SCALARS):
            findings.add("OML216", path, f"the default of parameter '{name}' must be a single value, not a "
                         "list or mapping", "write default: VALUE (text, a number or true/false)")
        elif is_secret_key(name) and default not in (None, ""):
            findings.add("OML310", path, f"parameter '{name}' holds a secret inline",
                         "parameters are not secrets and are recorded in the run's trail: put the secret in a "
                         "connection in .osiris.yaml and use connection: \"@family.alias\"",
                         value=default, secret=True)
