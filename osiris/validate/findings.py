"""Collects the issues of one run: fills in tier, severity and the source position of each."""

from __future__ import annotations

from collections.abc import Mapping

from osiris.extract import Position
from osiris.extract.scalars import fits
from osiris.secrets.names import MASK, is_secret_key
from osiris.validate.codes import CODES
from osiris.validate.issue import Issue, Severity

MAX_ISSUES = 200  # a pipeline with more findings than this is not worth reading further


class Findings:
    """`findings.add(code, path, message, hint)`; positions come from the parsed document."""

    def __init__(self, positions: Mapping[str, Position] | None = None) -> None:
        self.positions = positions or {}
        self.issues: list[Issue] = []
        self.dropped = 0  # issues beyond MAX_ISSUES: counted, not kept

    @property
    def full(self) -> bool:
        """True once MAX_ISSUES are kept: checks over huge documents can stop early."""
        return len(self.issues) >= MAX_ISSUES

    def add(
        self,
        code: str,
        path: str,
        message: str,
        hint: str = "",
        *,
        value: object = None,
        secret: bool = False,
        severity: Severity | None = None,
        position: Position | None = None,
    ) -> Issue | None:
        if self.full:
            self.dropped += 1
            return None
        where = position or self.position_of(path)
        issue = Issue(
            code=code,
            tier=CODES[code].tier,
            severity=severity or CODES[code].severity,  # type: ignore[arg-type]
            path=path,
            message=message,
            hint=hint,
            line=where.line if where else None,
            column=where.column if where else None,
            value=_safe_value(path, value, secret),
        )
        self.issues.append(issue)
        return issue

    def note_dropped(self) -> None:
        """Close a capped run with one OML105 issue that says how many more were found."""
        if self.dropped:
            self.issues.append(Issue("OML105", 1, "error", "", f"{self.dropped:,} more issues were found and not listed",
                                     f"fix the issues above first; more than {MAX_ISSUES} issues means the document is "
                                     "far from an OML pipeline"))

    def position_of(self, path: str) -> Position | None:
        """The position of `path`, or of its nearest ancestor that exists in the source."""
        while True:
            if path in self.positions:
                return self.positions[path]
            if not path:
                return None
            path = path.rsplit("/", 1)[0] if "/" in path else ""


def _safe_value(path: str, value: object, secret: bool) -> object:
    """The offending value as an issue may carry it: masked when secret by spec or by key name;
    lists and mappings are summarised, since they may hold secrets under any key."""
    if value is None:
        return None
    if secret or is_secret_key(path.rsplit("/", 1)[-1]):
        return MASK
    if isinstance(value, dict):
        return f"<mapping of {len(value)} keys>"
    if isinstance(value, list):
        return f"<list of {len(value)} items>"
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not fits(value):
        return str(value) if isinstance(value, float) else f"<a number of {value.bit_length()} bits>"
    return value
