"""The form a date or time value arrives in, for the schema facts (issue 41): a database's column
type says what the step's table (df_<step id>) holds, an API's key that its value is ISO 8601 text
and what the engine makes of it, so that the model writes the right SQL on it (docs/types.md).

    column_form("mysql", "timestamp(3)")   # "arrives as TIMESTAMPTZ, an instant in UTC"
    graphql_form("DateTime!")              # "ISO 8601 text"
"""

from __future__ import annotations

import re

INSTANT = "arrives as TIMESTAMPTZ, an instant in UTC"
NAIVE = "arrives as TIMESTAMP, no zone"
_PRECISION = re.compile(r"\(\d+\)")
# A database's date/time types (lower case, precision taken out) and what the engine's column is.
_DATABASE_FORMS: dict[str, dict[str, str]] = {
    "postgres": {"timestamp with time zone": INSTANT, "timestamp without time zone": NAIVE,
                 "time without time zone": "arrives as TIME", "time with time zone": "arrives as TIMETZ",
                 "interval": "arrives as INTERVAL"},
    "mysql": {"datetime": NAIVE, "timestamp": INSTANT,
              "time": "arrives as INTERVAL, may be negative or over 24 hours (838:59:59)",
              "year": "arrives as BIGINT, the year's number (2024)"},
    # PostgREST sends JSON text, which the engine reads as an API key's ISO text (ISO_NOTE)
    "supabase": {"timestamp with time zone": "ISO 8601 text with an offset", "timestamp without time zone":
                 "ISO 8601 text, no zone", "date": "ISO 8601 text", "time without time zone": "text 12:07:00",
                 "time with time zone": "text 12:07:00+02, arrives as VARCHAR",
                 "interval": "text 1 day 01:00:00, arrives as VARCHAR or TIME"},
}
# GraphQL scalars whose values are ISO 8601 text by convention (graphql-scalars, Hasura, GitHub,
# Shopify); `Timestamp` is left out: in graphql-scalars it is a number of milliseconds.
_GRAPHQL_DATE_SCALARS = {"DateTime", "Date", "Time", "LocalDate", "LocalTime", "LocalDateTime", "DateTimeISO",
                         "ISO8601DateTime", "ISO8601Date", "GitTimestamp", "Instant", "UtcDateTime", "timestamptz",
                         "timestamp", "date", "time", "timetz"}
_ENGINE_DATE_TYPES = {"DATE", "TIME", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE"}
ISO_NOTE = ("ISO 8601 date/time text becomes a DATE, TIME, TIMESTAMP or (with Z or an offset) TIMESTAMPTZ column "
            "when every value of the key reads as one, else VARCHAR; CAST(key AS TIMESTAMPTZ) reads a timestamp key in "
            "either form.")


def column_form(family: str, type_name: str) -> str:
    """How a database column of `type_name` arrives in the step's table; "" when it says so itself."""
    plain = " ".join(_PRECISION.sub("", type_name.lower()).split())
    forms = _DATABASE_FORMS.get(family, {})
    return forms.get(plain) or (forms.get("interval", "") if plain.startswith("interval") else "")


def graphql_form(graphql_type: str) -> str:
    """"ISO 8601 text" for a key of a date/time scalar (`DateTime!`, `[Date]`), else ""."""
    return "ISO 8601 text" if graphql_type.strip("[]!") in _GRAPHQL_DATE_SCALARS else ""


def api_form(json_type: str, engine_type: str) -> str:
    """"ISO 8601 text" for an API key of strings the engine read as a date or time, else ""."""
    return "ISO 8601 text" if json_type.startswith("string") and engine_type in _ENGINE_DATE_TYPES else ""
