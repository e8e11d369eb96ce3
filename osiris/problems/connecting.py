"""OML505-OML507, OML511, OML520, OML521: reaching a database or an API through a connection of
.osiris.yaml: the server, the user, the rights, the secrets and the settings."""

from __future__ import annotations

from osiris.problems.base import RuntimeProblem


def connect_problem(family: str, host: object, port: object, detail: str) -> RuntimeProblem:
    """OML505: the server did not answer (refused, unknown host, timeout) or has no such database.
    The hint speaks of "the connection", which fits a run's step and `osiris discover` alike."""
    return RuntimeProblem(
        "OML505", f"cannot connect to {family} at {host}:{port}: {detail}",
        f"check that the {family} server is running there, and the host, port and database of the "
        "connection in .osiris.yaml")


def auth_problem(family: str, user: object, detail: str) -> RuntimeProblem:
    """OML506: the server rejected the user or the password."""
    return RuntimeProblem(
        "OML506", f"{family} rejected the user '{user}': {detail}",
        "check the connection's user in .osiris.yaml and the value of its password reference")


def permission_problem(detail: str) -> RuntimeProblem:
    """OML507: the user may connect, but not do what the step needs."""
    return RuntimeProblem(
        "OML507", f"permission denied: {detail}",
        "grant the connection's user the rights this step needs (SELECT to read; INSERT, UPDATE, DELETE to write)")


def unconfigured_problem(reference: str, family: str, alias: str) -> RuntimeProblem:
    """OML511: the step's connection alias is not in .osiris.yaml."""
    return RuntimeProblem("OML511", f"connection '{reference}' is not configured",
                          f"define connections.{family}.{alias} in .osiris.yaml", value=reference)


def unset_secret_problem(where: str, name: str, hint: str) -> RuntimeProblem:
    """OML511: a connection field names a variable that neither the environment nor the keyring has."""
    return RuntimeProblem("OML511", f"{where} refers to ${{{name}}}, which is not set", hint, value=f"${{{name}}}")


def cleartext_problem(family: str, host: object, port: object, fix: str) -> RuntimeProblem:
    """OML520: the server asked for the password in cleartext over an unencrypted link; it was not sent."""
    return RuntimeProblem(
        "OML520", f"{family} at {host}:{port} asked for the password in cleartext over an unencrypted "
                  "connection; Osiris did not send it", fix)


def setting_problem(message: str, hint: str, value: object = None) -> RuntimeProblem:
    """OML521: a connection field's value cannot be used (a malformed DSN, an unknown region)."""
    return RuntimeProblem("OML521", message, hint, value=value)


def no_endpoint_problem() -> RuntimeProblem:
    """OML521: a GraphQL connection without its endpoint."""
    return RuntimeProblem("OML521", "the connection has no endpoint",
                          "set endpoint: https://.../graphql for the connection in .osiris.yaml")
