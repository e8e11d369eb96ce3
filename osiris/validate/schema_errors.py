"""Turn jsonschema errors on a step's config into issues whose hints name the field and what is allowed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from osiris.oml.values import Config
from osiris.registry import ComponentSpec
from osiris.suggest import did_you_mean, listing
from osiris.validate.coerce import describe
from osiris.validate.findings import Findings
from osiris.validate.pointer import join

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

_RANGE = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
          "minItems", "maxItems", "minProperties", "maxProperties", "uniqueItems", "multipleOf"}
_CODE_BY_KEYWORD = {"type": "OML305", "oneOf": "OML305", "anyOf": "OML305", "enum": "OML307", "const": "OML307",
                    "pattern": "OML308", "format": "OML308", "required": "OML303",
                    "additionalProperties": "OML304", "propertyNames": "OML304"}
_TYPE_WORDS = {"integer": "a whole number", "number": "a number", "string": "text", "boolean": "true or false",
               "array": "a list", "object": "a mapping", "null": "null"}


def report_schema_error(error: ValidationError, config_path: str, spec: ComponentSpec, findings: Findings) -> None:
    """Add one issue for a jsonschema ValidationError found in the config at `config_path`."""
    parts = list(error.absolute_path)
    path = join(config_path, *parts)
    field = ".".join(str(p) for p in parts) or "config"
    schema = error.schema if isinstance(error.schema, dict) else {}
    keyword = error.validator if isinstance(error.validator, str) else ""  # iter_errors always names it
    code = "OML306" if keyword in _RANGE else _CODE_BY_KEYWORD.get(keyword, "OML305")
    secret = spec.is_secret("/" + "/".join(str(p) for p in parts))
    shown = "the value" if secret else describe_value(error.instance)
    message, hint = _explain(keyword, error, field, schema, shown)
    findings.add(code, path, message, hint, value=_plain(error.instance), secret=secret)


def _explain(keyword: str, error: ValidationError, field: str, schema: Config, shown: str) -> tuple[str, str]:
    expected = error.validator_value
    example = _example(schema)
    if keyword == "type":
        kinds = expected if isinstance(expected, list) else [expected]
        words = " or ".join(_TYPE_WORDS.get(str(k), str(k)) for k in kinds)
        return f"{field} must be {words}, not {shown}", f"set {field} to {words}{example}"
    if keyword in ("oneOf", "anyOf"):
        forms = [_form(s) for s in (expected if isinstance(expected, list) else []) if isinstance(s, dict)]
        return (f"{field} has none of the allowed forms: {shown}",
                f"set {field} to {' or '.join(forms)}{example}")
    if keyword in ("enum", "const"):
        allowed = (expected if isinstance(expected, list) else []) if keyword == "enum" else [expected]
        values = listing(describe(v) for v in allowed)
        return (f"{field} is {shown}, which is not one of the allowed values",
                f"set {field} to one of: {values}{_meant(error.instance, allowed, schema)}")
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return (f"{field} is {shown}, out of range ({_bounds(schema)})",
                f"set {field}: {describe(_nearest(error.instance, schema))}, the nearest allowed value "
                f"(allowed: {_bounds(schema)})")
    if keyword in ("minLength", "maxLength"):
        return (f"{field} is {shown}, whose length is out of range ({_lengths(schema, 'Length', 'characters')})",
                f"give {field} {_lengths(schema, 'Length', 'characters')}")
    if keyword in ("minItems", "maxItems"):
        count = len(error.instance) if isinstance(error.instance, list) else 0  # minItems fails only on a list
        return (f"{field} has {count} items, out of range ({_lengths(schema, 'Items', 'items')})",
                f"give {field} {_lengths(schema, 'Items', 'items')}")
    if keyword == "uniqueItems":
        return f"{field} repeats an item", f"remove the repeated items from {field}"
    if keyword == "pattern":
        return (f"{field} is {shown}, which does not match the pattern {expected}",
                f"set {field} to a value matching {expected}{_described(schema)}")
    if keyword == "format":
        return (f"{field} is {shown}, which is not a valid {expected}",
                f"set {field} to a valid {expected}" + (", e.g. https://api.example.com" if expected in ("uri", "url") else ""))
    if keyword == "required":
        names = expected if isinstance(expected, list) else []
        missing = [name for name in names if isinstance(error.instance, dict) and name not in error.instance]
        return (f"{field} is missing {listing(missing)}", f"add {listing(missing)} under {field}")
    if keyword == "additionalProperties":
        properties = schema.get("properties", {})
        allowed = list(properties) if isinstance(properties, Mapping) else []
        return (f"{field} has keys that are not allowed: {error.message}",
                f"allowed keys under {field}: {listing(allowed)}" if allowed else f"remove the extra keys from {field}")
    return f"{field}: {error.message}", f"check {field} against the component spec ('osiris components show')"


def _meant(value: object, allowed: Sequence[object], schema: Config) -> str:
    """What the author probably meant: a synonym the spec declares (x-enum-synonyms), else a close spelling."""
    synonyms = schema.get("x-enum-synonyms") or {}
    if isinstance(value, str) and isinstance(synonyms, Mapping):
        meant = {str(k).lower(): v for k, v in synonyms.items()}.get(value.lower())
        if meant in allowed:
            return f" ('{value}' is called {describe(meant)} here: use {describe(meant)})"
    return did_you_mean(value, [str(a) for a in allowed])


def _nearest(value: object, schema: Config) -> object:
    """The allowed bound closest to `value` (an integer field stays whole). A bound fails only on a
    number, against a number (the spec's configSchema passed the JSON Schema meta-schema)."""
    bounds = {k: v for k in _RANGE if isinstance(v := schema.get(k), (int, float))}
    if not isinstance(value, (int, float)):
        return value
    whole = schema.get("type") == "integer"
    step = 1 if whole else 0
    if "minimum" in bounds and value < bounds["minimum"]:
        return bounds["minimum"]
    if "exclusiveMinimum" in bounds and value <= bounds["exclusiveMinimum"]:
        return bounds["exclusiveMinimum"] + step if whole else bounds["exclusiveMinimum"]
    if "maximum" in bounds and value > bounds["maximum"]:
        return bounds["maximum"]
    if "exclusiveMaximum" in bounds and value >= bounds["exclusiveMaximum"]:
        return bounds["exclusiveMaximum"] - step if whole else bounds["exclusiveMaximum"]
    return value


def describe_value(value: object) -> str:
    if isinstance(value, (dict, list)):
        return f"a {'mapping' if isinstance(value, dict) else 'list'}"
    if isinstance(value, str) and len(value) > 60:
        return describe(value[:57] + "...")
    return describe(value)


def _plain(value: object) -> object:
    return value if not isinstance(value, (dict, list)) else describe_value(value)


def _example(schema: Config) -> str:
    if "default" in schema and schema["default"] not in (None, "", [], {}):
        return f", e.g. {describe(schema['default'])}"
    return ""


def _form(schema: Config) -> str:
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items", {})
        item_kind = items.get("type", "") if isinstance(items, Mapping) else ""
        return f"a list of {_TYPE_WORDS.get(item_kind, 'values') if isinstance(item_kind, str) else 'values'}"
    return _TYPE_WORDS.get(kind, "a value") if isinstance(kind, str) else "a value"


def _bounds(schema: Config) -> str:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None and high is not None:
        return f"between {low} and {high}"
    if low is not None:
        return f"of at least {low}" if "minimum" in schema else f"greater than {low}"
    return f"of at most {high}" if "maximum" in schema else f"less than {high}"


def _lengths(schema: Config, suffix: str, unit: str) -> str:
    low, high = schema.get(f"min{suffix}"), schema.get(f"max{suffix}")
    if low is not None and high is not None:
        return f"{low} to {high} {unit}" if low != high else f"exactly {low} {unit[:-1] if low == 1 else unit}"
    if low is not None:
        return f"at least {low} {unit[:-1] if low == 1 else unit}"
    return f"at most {high} {unit[:-1] if high == 1 else unit}"


def _described(schema: Config) -> str:
    return f" ({schema['description']})" if schema.get("description") else ""
