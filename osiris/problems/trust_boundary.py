"""OML510, OML517, OML518: what the trust boundary refuses (docs/security.md): a file outside the
project, SQL past its inputs, a reference or an endpoint a pipeline may not set."""

from __future__ import annotations

from osiris.problems.base import RuntimeProblem


OUTSIDE_PROJECT_HINT = (
    "write a path relative to the project (e.g. data/customers.csv); to use files elsewhere, declare "
    "base_dir for a filesystem connection in .osiris.yaml and use connection: \"@filesystem.<alias>\"")


def outside_project_problem(field: str, shown: str, reason: str) -> RuntimeProblem:
    """OML517: a path that the real file system puts outside the boundary."""
    return RuntimeProblem("OML517", f"{field} '{shown}' {reason}: files stay inside the project",
                          OUTSIDE_PROJECT_HINT, value=shown)


def folder_gone_problem(shown: str) -> RuntimeProblem:
    """OML510: a folder of a step's file disappeared while the step ran."""
    return RuntimeProblem("OML510", f"{shown} or a folder of it disappeared while the step ran; nothing was "
                                    "read or written", "run the pipeline again once the folder is back", value=shown)


def outside_inputs_problem(refused_by: str, reason: str, hint: str) -> RuntimeProblem:
    """OML518: a transform's SQL reached past its inputs, and `refused_by` (the sandbox, an engine's
    list) refused it; `hint` is the trust rule's own."""
    return RuntimeProblem("OML518", f"the SQL reached outside its inputs, and {refused_by} refused it: {reason}", hint)


def reference_in_pipeline_problem(pointer: str) -> RuntimeProblem:
    """OML518: a step's config holds a `${...}` reference, which only connections may use."""
    return RuntimeProblem(
        "OML518", f"config{pointer.replace('/', '.')} holds a ${{...}} reference, which a pipeline may "
                  "not use: references are resolved in connections only, and this one was not",
        "move the value into a connection in .osiris.yaml and use connection: \"@family.alias\"", value=pointer)


def boundary_problem(message: str, hint: str, where: str) -> RuntimeProblem:
    """OML518: a step would move a connection's endpoint (the trust rule's own message and hint)."""
    return RuntimeProblem("OML518", message, hint, value=where)
