"""A driver reads its config's fields through osiris.run.fields: the spec's types, or a TypeError
naming the field when the validator let a wrong value through (never a guess)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from osiris.oml.values import Config
from osiris.run.fields import flag, integer, mapping, optional_integer, optional_text, text, texts


def test_a_number_written_as_text_is_read_as_the_number() -> None:
    # `port: ${PG_PORT}` resolves to text; the driver connects to the number
    assert integer({"port": "5433"}, "port", 5432) == 5433
    assert integer({"port": 5433}, "port", 5432) == 5433


def test_a_missing_or_null_field_takes_the_default() -> None:
    assert integer({}, "batch_size", 10_000) == 10_000
    assert integer({"batch_size": None}, "batch_size", 10_000) == 10_000
    assert text({"sslmode": None}, "sslmode", "prefer") == "prefer"
    assert optional_integer({}, "limit") is None
    assert optional_text({"user": None}, "user") is None


def test_a_name_written_as_a_number_is_its_text() -> None:
    assert text({"database": 2024}, "database") == "2024"


def test_a_flag_is_read_as_written() -> None:
    assert (flag({"header": False}, "header"), flag({"header": True}, "header")) == (False, True)


def test_a_list_field_is_its_items_as_text() -> None:
    assert texts({"columns": ["id", 7]}, "columns") == ["id", "7"]
    assert texts({}, "columns") == []


def test_a_mapping_field_is_empty_when_absent() -> None:
    assert mapping({"params": {"a": 1}}, "params") == {"a": 1}
    assert mapping({"params": None}, "params") == {}


@pytest.mark.parametrize(("read", "config", "expected"), [
    (lambda c: integer(c, "port", 5432), {"port": [5432]}, "the config field 'port' is list"),
    (lambda c: integer(c, "port", 5432), {"port": "five"}, "the config field 'port' is str"),
    (lambda c: text(c, "host"), {"host": {"name": "db"}}, "the config field 'host' is dict"),
    (lambda c: text(c, "table"), {}, "the config field 'table' is missing"),
    (lambda c: integer(c, "batch_size"), {}, "the config field 'batch_size' is missing"),
    (lambda c: flag(c, "header"), {"header": None}, "the config field 'header' is missing"),
    (lambda c: flag(c, "header"), {"header": "yes"}, "the config field 'header' is str"),
    (lambda c: texts(c, "columns"), {"columns": "id"}, "the config field 'columns' is str"),
])
def test_a_value_of_the_wrong_kind_is_a_type_error_naming_the_field(read: Callable[[Config], object], config: Config,
                                                                    expected: str) -> None:
    with pytest.raises(TypeError) as raised:
        read(config)
    assert str(raised.value).startswith(expected)
