"""What a sample run showed, as short lines for the retry prompt: each step's row count and
columns, the real columns of the tables a failed SQL step names, and the shape of an API response
whose records were not where the pipeline looked. Names and types only: never a value. An API's
keys can be data too (an object keyed by customer ids): a key not known from the pipeline's text,
the connections or the catalog is shown as `column_<n>` (docs/security.md, "What an engine says").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from osiris.run.driver import RuntimeProblem
from osiris.run.duckdb_run import StepResult
from osiris.sample.sample_run import SampleOptions
from osiris.text_table import count_rows
from osiris.trust.boundary import Boundary
from osiris.catalog.store import catalog_names
from osiris.trust.engine_words import Known, filtered, shown_columns
from osiris.oml.narrow import config_of, steps_of

if TYPE_CHECKING:
    from osiris.oml.values import Config, Value
    from osiris.validate.issue import Issue

SQL_CODES = frozenset({"OML501", "OML502", "OML503", "OML504", "OML512"})
MAX_COLUMNS = 60
TEXT_NUMBER = (" (numbers as exact text: some need more than 38 digits, or are NaN; cast to DOUBLE, or compare as "
               "text, before arithmetic)")
NAMING_CODES = frozenset({"OML501", "OML502", "OML509", "OML510", "OML512"})  # their value is a name worth showing


def sample_facts(pipeline: Config, steps: list[StepResult], options: SampleOptions) -> list[str]:
    """One line per step, then what the sources really hold where a step failed."""
    by_id = {str(step["id"]): step for step in steps_of(pipeline)}
    lines = [step_fact(step) for step in steps]
    for result in steps:
        if result.status == "failed" and result.problem is not None:
            lines += _source_facts(by_id.get(result.step_id) or {}, result.problem, options)
    return lines


def step_fact(step: StepResult) -> str:
    """`extract-customers (postgres.extractor): 10 rows; columns: id INTEGER, email VARCHAR`."""
    head = f"step '{step.step_id}' ({step.component})"
    if step.status == "failed" and step.problem is not None:
        return f"{head}: failed with {step.problem.code}"
    if step.status == "skipped" and step.halted:
        return f"{head}: not run, the run stopped at step '{step.skipped_because}'"
    if step.status == "skipped":
        return f"{head}: not run, its input '{step.skipped_because}' failed"
    if step.status != "ok":
        return f"{head}: {step.status}"
    if step.mode == "write":
        return f"{head}: wrote {count_rows(step.rows_in)}, then rolled them back"
    columns = ", ".join(f"{name} {kind}" + (TEXT_NUMBER if name in step.text_numbers else "")
                        for name, kind in step.columns[:MAX_COLUMNS])
    return f"{head}: {count_rows(step.rows_out)}" + (f"; columns: {columns}" if columns else "")


def _source_facts(step: Config, problem: RuntimeProblem, options: SampleOptions) -> list[str]:
    component = str(step.get("component", ""))
    try:
        config, secrets = _resolved(step, options)
        if _database_dialect(component) is not None and problem.code in SQL_CODES:
            return table_facts(component, config)
        if component == "rest.extractor" and problem.code in ("OML509", "OML515"):
            return api_facts(config, secrets, _known(step, options))
    except Exception:  # a fact is a bonus: when the source cannot be read again, the problem still goes back
        return []
    return []


def _known(step: Config, options: SampleOptions) -> Known:
    """The names a fact may repeat: the step's words, the connections' and the catalog's names."""
    return Known.of(step, options.connections, catalog_names(options.base_dir))


def _resolved(step: Config, options: SampleOptions) -> tuple[Config, tuple[str, ...]]:
    """The step's config with its connection and `${ENV}` values, and its secret values."""
    from osiris.registry.registry import spec_defaults
    from osiris.run.connections import resolve_step_config

    component = str(step.get("component", ""))
    config = config_of(step)
    resolved = resolve_step_config(config, options.connections, options.env, options.secret_fields(component))
    (options.boundary or Boundary(options.base_dir)).check_step(component, config, resolved.connection)
    return {**spec_defaults(component), **resolved.config}, resolved.secrets  # as the step's effective config


def _database_dialect(component: str) -> str | None:
    """The SQL dialect of a component whose family is a database with tables ("" when it has
    none), or None for any other family."""
    from osiris.run.drivers import family

    facts = family(component.split(".", 1)[0])
    return (facts.dialect or "") if facts is not None and facts.kind == "database" else None


def table_facts(component: str, config: Config) -> list[str]:
    """`table customers has columns: id integer, email text, status text` for each table the step names."""
    from osiris.run.drivers import driver_for
    from osiris.run.drivers.sql_common import tables_in

    query = str(config.get("query") or "")
    named = [str(config["table"])] if config.get("table") else tables_in(query, _database_dialect(component))
    if not named:
        return []
    found = driver_for(component).discover(config, [name.split(".")[-1] for name in named])
    lines = []
    for table in found:
        columns = ", ".join(f"{c.name} {c.type}" for c in table.columns[:MAX_COLUMNS])
        lines.append(f"table {table.name} has columns: {columns}")
    known = {table.name for table in found}
    lines += [f"table {name} does not exist" for name in named if name.split(".")[-1] not in known]
    return lines


def api_facts(config: Config, secrets: tuple[str, ...], known: Known | None = None) -> list[str]:
    """The shape of the endpoint's first response: where lists of records are and their keys
    (unknown keys as `column_<n>`)."""
    from osiris.run.drivers.rest import endpoint_url, rest_client

    url = endpoint_url(config)
    method = str(config.get("method") or "GET").upper()
    params = config.get("params")
    with rest_client(config, secrets) as client:
        response = client.send(method, url, params=dict(params) if isinstance(params, Mapping) and params else None,
                               json=config.get("body") if method == "POST" else None)
        body = client.json(response)
    return describe_shape(body, known)


def describe_shape(body: Value, known: Known | None = None) -> list[str]:
    """Where a JSON body keeps its records, and their keys with JSON types (values withheld); with
    `known`, a key made from data is `column_<n>` and a path's unknown words `(…)`."""
    from osiris.catalog.api_shape import record_lists

    lists = list(record_lists(body))
    if not lists:
        return [f"the response body is {_shape(body, known)} (values withheld)"]
    lines = [f"the response body's top level is {_shape(body, known)}"]
    for path, items in lists[:3]:
        shown = f"'{filtered(path, known) if known is not None else path}'" if path else "'' (the whole body)"
        lines.append(f"records at data_path {shown}: {len(items)} objects; keys of the first record "
                     f"(values withheld): {_keys(items[0], known)}")
    return lines


def _keys(record: Config, known: Known | None) -> str:
    """`id (number), meta (object: rank, tags)`: a nested object also names its keys (a dotted
    `data_path` or a transform can reach them)."""
    def one(key: str, value: Value) -> str:
        inner = f": {', '.join(_names(value, known))}" if isinstance(value, Mapping) and value else ""
        return f"{key} ({_json_type(value)}{inner})"

    items = list(record.items())[:MAX_COLUMNS]
    return ", ".join(one(key, value) for key, (_, value) in zip(_names(dict(items), known), items, strict=True))


def _names(value: Config, known: Known | None) -> list[str]:
    """An object's keys as they may be shown: made from data, `column_<n>` (osiris.trust.engine_words)."""
    return shown_columns([str(key) for key in value], known)


def _shape(value: Value, known: Known | None = None) -> str:
    if isinstance(value, Mapping):
        pairs = zip(_names(value, known), value.values(), strict=True)
        return "an object with keys: " + (", ".join(f"{k} ({_json_type(v)})" for k, v in pairs) or "none")
    if isinstance(value, list):
        return f"a list of {len(value)} {', '.join(sorted({_json_type(v) for v in value})) or 'items'}"
    return f"a single {_json_type(value)}"


def _json_type(value: Value) -> str:
    """JSON's own type names (osiris.catalog.api_shape), an integer being a number here."""
    from osiris.catalog.api_shape import json_type

    kind = json_type(value)
    return "number" if kind == "integer" else kind


def problem_headline(issue: Issue, pipeline: Config) -> str:
    """A few words for a progress line: `unknown column 'active' in customers`."""
    from osiris.validate.codes import CODES
    from osiris.validate.pointer import split

    title = CODES[issue.code].title if issue.code in CODES else issue.code
    parts = split(issue.path)
    steps = steps_of(pipeline)
    step = steps[int(parts[1])] if len(parts) > 1 and parts[1].isdigit() and int(parts[1]) < len(steps) else {}
    named = issue.value if isinstance(issue.value, str) else config_of(step).get("data_path")
    value = f" '{named}'" if named and issue.code in NAMING_CODES else ""
    return f"{title}{value} in {_where(step)}"


def _where(step: Config) -> str:
    from osiris.run.drivers.sql_common import tables_in

    config = config_of(step)
    if config.get("table"):
        return str(config["table"])
    dialect = _database_dialect(str(step.get("component", "")))
    if config.get("query") and dialect is not None:
        named = tables_in(str(config["query"]), dialect)
        if named:
            return ", ".join(named)
    return f"step '{step.get('id', '?')}'"
