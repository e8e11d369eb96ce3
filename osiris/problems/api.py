"""OML501, OML509, OML515, OML524, OML535, OML539 and the HTTP client's codes: what an API answers
(its records, its pages) and what an HTTP step meets."""

from __future__ import annotations

from osiris.problems.base import RuntimeProblem
from osiris.suggest import did_you_mean, listing


def unknown_data_type_problem(name: str, reader: str, known: list[str]) -> RuntimeProblem:
    """OML501: a step names a data type (PostHog's events, persons) its API does not serve."""
    return RuntimeProblem("OML501", f"unknown PostHog data type '{name}'",
                          f"{reader} reads: {listing(known)}{did_you_mean(name, known)}", value=name)


def no_records_problem(path: str, where: str, shape: str) -> RuntimeProblem:
    """OML509: nothing list- or object-shaped at `path`; `shape` says what the body holds (its
    top-level keys, never its values)."""
    shown = f"'{path}'" if path else "'' (the whole body)"
    return RuntimeProblem("OML509", f"no records at data_path {shown} in the response of {where}",
                          f"{shape} Set data_path to the dotted path of the list of records.")


def no_page_info_problem(path: str, where: str, shape: str) -> RuntimeProblem:
    """OML509: a GraphQL answer without its pageInfo object at `path`; `shape`: its top-level keys."""
    return RuntimeProblem(
        "OML509",
        f"no pageInfo object at pagination_path '{path}' in the response of {where}",
        f"{shape} Ask for pageInfo {{ hasNextPage endCursor }} in the query "
        "and set pagination_path to where it is.",
    )


def invalid_response_problem(where: str, what: str, hint: str) -> RuntimeProblem:
    """OML515: an API's answer at `where` is not what its component reads (`what` says how)."""
    return RuntimeProblem("OML515", f"invalid API response from {where}: {what}", hint)


def unloadable_record_problem(number: int | None, why: str) -> RuntimeProblem:
    """OML515: record `number` (or some record) of an API's answer cannot be loaded into the engine."""
    which = f"record {number:,}" if number is not None else "a record"
    return RuntimeProblem("OML515", f"invalid API response: {which} cannot be loaded: {why}",
                          "Ask the API for fewer fields or smaller records (its own parameters in params), "
                          "or point data_path at the part of the record you need.")


def paging_unended_problem(where: str, limit: int) -> RuntimeProblem:
    """OML524: paging of `where` went on past the default max_pages."""
    return RuntimeProblem(
        "OML524",
        f"paging of {where} did not end after {limit:,} pages (the default max_pages)",
        "If the API really has more pages, set max_pages to a larger number (0 reads every page); "
        "if not, check the paging settings: the API may be sending the same pages under new cursors.",
        value=limit)


def paging_stalled_problem(where: str, what: str, check: str, pages: int) -> RuntimeProblem:
    """OML535: paging of `where` stopped after `pages` pages for `what`; `check` says which setting."""
    return RuntimeProblem("OML535", f"paging of {where} did not advance: {what}, so the rest of the data cannot "
                                    "be read", check, value=pages)


def api_problem(code: str, message: str, hint: str, status: int | None = None) -> RuntimeProblem:
    """A problem an HTTP step met (its code chosen by the client: the server refused, answered an error,
    or sent what is not JSON); `message` and `hint` already masked, `status` the HTTP status."""
    return RuntimeProblem(code, message, hint, value=status)


def unknown_columns_problem(data_path: str, why: str) -> RuntimeProblem:
    """OML539: an API answered no records, and the columns of its records at `data_path` cannot be
    told from the step (`why`); no table with made-up columns is written (docs/run-http.md)."""
    return RuntimeProblem(
        "OML539", f"the API returned no records at data_path '{data_path}', and which columns they have cannot "
                  f"be told from the query: {why}",
        "name each field the records hold in the query's selection at data_path (an alias or a field becomes a "
        "column), or set flatten_result: false to keep a nested field as one column; nothing was written",
        value=data_path)
