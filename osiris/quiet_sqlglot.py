"""sqlglot without its log lines on the person's terminal.

sqlglot logs a warning when it parses a statement it does not model (`CALL ...` "contains
unsupported syntax. Falling back to parsing as a 'Command'"), and with no logging set up Python
prints it on stderr. Osiris reports what matters in such SQL as its own issues (OML405 and the
like), so each place that parses calls `quiet_sqlglot()` first.
"""

from __future__ import annotations

import logging


def quiet_sqlglot() -> None:
    """Give sqlglot's logger a handler that drops every record, so none reaches stderr."""
    logger = logging.getLogger("sqlglot")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
        logger.propagate = False
