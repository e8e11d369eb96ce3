"""Paging that ends: loops found and a page limit, for the rest and graphql extractors.

An API can page in a circle: a cursor that comes back after two pages (A, B, A, B), a `Link`
header that leads back to a page read before, pages whose contents repeat while every parameter
changes (an API that ignores the page parameter, a GraphQL query that never reads its cursor
variable). `PageGuard` remembers a digest of every cursor, URL and page content seen and fails the
step at the first one seen before with OML535, naming the page it repeats and the paging setting to
check: what was read is then only part of the data, or nobody can tell, and a partial copy must
never succeed. Memory stays small: 32 bytes a page.

`max_pages` bounds the rest: a step that sets it stops there quietly (it asked for that many).
Without it, paging stops at DEFAULT_MAX_PAGES with OML524, since an API with more pages than that
is more often looping than not, and a silent cut would lose rows (docs/run-http.md).
"""

from __future__ import annotations

import hashlib
import json
from osiris.oml.values import Config, Value
from osiris.problems import RuntimeProblem, paging_stalled_problem, paging_unended_problem
from osiris.run.fields import optional_integer

DEFAULT_MAX_PAGES = 1000


def digest(value: object) -> bytes | None:
    """A fingerprint of a JSON value; None when it cannot be taken (nested too deep to encode)."""
    try:
        text = json.dumps(value, sort_keys=True, default=str)
    except RecursionError:
        return None
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class PageGuard:
    """Counts the pages of one read and says when the next one must not be requested."""

    def __init__(self, config: Config, where: str, notes: list[str], check: str) -> None:
        """`check` is the hint of OML535: the paging settings to look at, in the component's terms."""
        given = optional_integer(config, "max_pages")
        self.limit = DEFAULT_MAX_PAGES if given is None else given  # 0: no limit
        self.chosen = given is not None
        self.where, self.notes, self.check = where, notes, check
        self.pages = 0
        self._seen: dict[tuple[str, bytes], int] = {}  # (what, digest) -> the page it led to (or held)

    def read(self, records: Value) -> None:
        """Count a page; OML535 when its records (or the digest of a large page's body) repeat an
        earlier page's."""
        self.pages += 1
        if not records:
            return
        earlier = self._first_seen("content", records, self.pages)
        if earlier is not None:
            raise self._no_advance(f"page {self.pages} held the same records as page {earlier}")

    def visited(self, what: str, value: Value) -> None:
        """Remember that `value` (the URL just read) led to the page just read."""
        self._first_seen(what, value, self.pages)

    def may_follow(self, what: str, value: Value) -> bool:
        """Whether to request the page that `value` (a cursor or a URL) leads to: not past
        max_pages (OML524 when the default limit is hit). OML535 when it led to a page already read."""
        earlier = self._first_seen(what, value, self.pages + 1)
        if earlier is not None:
            moved = "does not move" if earlier == self.pages else f"leads back to page {earlier}"
            raise self._no_advance(f"the {what} after page {self.pages} {moved}")
        return self.may_continue()

    def _no_advance(self, what: str) -> RuntimeProblem:
        return paging_stalled_problem(self.where, what, self.check, self.pages)

    def may_continue(self) -> bool:
        """Whether another page may be requested after the ones read (max_pages)."""
        if not self.limit or self.pages < self.limit:
            return True
        if self.chosen:
            return False
        raise paging_unended_problem(self.where, self.limit)

    def _first_seen(self, what: str, value: Value, page: int) -> int | None:
        """The page recorded for `value` before; None (and `page` recorded) the first time."""
        key = digest(value)
        if key is None:
            return None
        earlier = self._seen.get((what, key))
        if earlier is None:
            self._seen[(what, key)] = page
        return earlier
