"""The public table of issue codes (docs/errors.md). Never renumber; add new codes at the end of a block.

docs/errors.md documents every code here; a test keeps the two in step.
"""

from __future__ import annotations

from typing import NamedTuple


class Code(NamedTuple):
    tier: int
    severity: str  # the usual severity; OML314 and OML404 can also be warnings
    title: str


CODES: dict[str, Code] = {
    "OML101": Code(1, "error", "YAML syntax error"),
    "OML102": Code(1, "error", "no pipeline in the answer"),
    "OML103": Code(1, "error", "several YAML documents"),
    "OML104": Code(1, "error", "duplicate key"),
    "OML105": Code(1, "error", "resource limit exceeded"),
    "OML106": Code(1, "error", "answer cut off (token limit)"),
    "OML201": Code(2, "error", "document is not a mapping"),
    "OML202": Code(2, "error", "required top-level key missing"),
    "OML203": Code(2, "error", "legacy key"),
    "OML204": Code(2, "warning", "unknown top-level key"),
    "OML205": Code(2, "error", "wrong type of a structural field"),
    "OML206": Code(2, "error", "unsupported oml_version"),
    "OML207": Code(2, "error", "no steps"),
    "OML208": Code(2, "error", "required step field missing"),
    "OML209": Code(2, "error", "unknown step key"),
    "OML210": Code(2, "error", "duplicate step id"),
    "OML211": Code(2, "warning", "name not kebab-case"),
    "OML212": Code(2, "error", "mode not read, write or transform"),
    "OML213": Code(2, "error", "schedule not a 5-field cron expression"),
    "OML214": Code(2, "error", "step id not a plain name"),
    "OML215": Code(2, "error", "two step ids name the same table"),
    "OML216": Code(2, "error", "malformed params"),
    "OML217": Code(2, "error", "malformed checks"),
    "OML301": Code(3, "error", "unknown component"),
    "OML302": Code(3, "error", "mode not supported by component"),
    "OML303": Code(3, "error", "required config field missing"),
    "OML304": Code(3, "error", "unknown config field"),
    "OML305": Code(3, "error", "wrong type"),
    "OML306": Code(3, "error", "out of range (min/max/length/items)"),
    "OML307": Code(3, "error", "value not in enum"),
    "OML308": Code(3, "error", "pattern or format mismatch"),
    "OML309": Code(3, "error", "component constraint violated"),
    "OML310": Code(3, "error", "inline secret"),
    "OML311": Code(3, "error", "malformed connection reference"),
    "OML312": Code(3, "error", "connection alias not configured"),
    "OML313": Code(3, "error", "connection family mismatch"),
    "OML314": Code(3, "error", "forbidden override of a connection field"),
    "OML315": Code(3, "warning", "value coerced"),
    "OML316": Code(3, "error", "reference in a step"),
    "OML317": Code(3, "error", "path outside the project"),
    "OML318": Code(3, "error", "parameter has no value"),
    "OML319": Code(3, "error", "incremental read with a limit"),
    "OML320": Code(3, "error", "incremental cursor not among columns"),
    "OML321": Code(3, "warning", "config field has no effect"),  # marked x-no-effect in its spec (docs/components.md)
    "OML401": Code(4, "error", "unknown dependency"),
    "OML402": Code(4, "error", "dependency cycle"),
    "OML403": Code(4, "error", "step depends on itself"),
    "OML404": Code(4, "error", "user rule failed"),
    "OML405": Code(4, "error", "SQL syntax error"),
    "OML406": Code(4, "error", "unknown table or column"),  # a warning when the catalog is stale
    "OML407": Code(4, "error", "query reads a table that is not an input"),
    "OML408": Code(4, "error", "transform SQL off the list"),
    "OML409": Code(4, "error", "a run cannot hand the step its input"),
    "OML412": Code(4, "error", "transform has no Spark form"),  # OML412-414: run.engine spark (docs/spark.md)
    "OML413": Code(4, "error", "transform gives another result on Spark"),
    "OML414": Code(4, "error", "not available on the Spark engine"),
    "OML416": Code(4, "error", "paging cannot advance"),  # a paginated GraphQL query without its cursor variable
    "OML501": Code(5, "error", "unknown table"),
    "OML502": Code(5, "error", "unknown column"),
    "OML503": Code(5, "error", "SQL error"),
    "OML504": Code(5, "error", "type mismatch"),
    "OML505": Code(5, "error", "cannot connect"),
    "OML506": Code(5, "error", "authentication failed"),
    "OML507": Code(5, "error", "permission denied"),
    "OML508": Code(5, "error", "HTTP error status"),
    "OML509": Code(5, "error", "no records at data_path"),
    "OML510": Code(5, "error", "file not found"),
    "OML511": Code(5, "error", "connection secret missing"),
    "OML512": Code(5, "error", "key column missing in target"),
    "OML513": Code(5, "warning", "runtime warning"),  # a join or filter with no rows on sample, rows dropped
    "OML514": Code(5, "error", "write rejected by target"),
    "OML515": Code(5, "error", "invalid API response"),
    "OML516": Code(5, "error", "no runtime driver"),
    "OML517": Code(5, "error", "file outside the project"),
    "OML518": Code(5, "error", "refused by the trust boundary"),
    "OML519": Code(5, "error", "step inputs do not fit"),
    "OML520": Code(5, "error", "cleartext password refused"),
    "OML521": Code(5, "error", "connection setting invalid"),
    "OML523": Code(5, "error", "API response too large"),
    "OML524": Code(5, "error", "paging did not end"),
    "OML526": Code(5, "error", "out of the engine's memory"),
    "OML527": Code(5, "error", "Spark engine unavailable"),
    "OML528": Code(5, "error", "Spark job failed"),
    "OML531": Code(5, "error", "GraphQL introspection refused"),  # osiris discover @graphql.NAME (docs/discover.md)
    "OML532": Code(5, "error", "run passed its deadline"),
    "OML533": Code(5, "error", "scratch space exhausted"),
    "OML535": Code(5, "error", "paging did not advance"),
    "OML537": Code(5, "error", "check on data failed"),
    "OML538": Code(5, "warning", "check on data failed (level: warning)"),
    "OML539": Code(5, "error", "columns of an empty answer unknown"),  # graphql.extractor (docs/run-http.md)
    "OML540": Code(5, "error", "result columns share a name"),  # a database reader's query (docs/types.md)
}
