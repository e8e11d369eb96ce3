"""HTTP plumbing shared by the rest, graphql, supabase and posthog drivers.

`client_for` builds every driver's client (one rule for timeouts, retries, TLS and the size cap).
One `HttpClient` per step: auth headers, one deadline for each whole request (osiris.run.http_deadline),
a cap on the decoded size of a response (`max_response_mb`), and retries with backoff on 429, 5xx
and dropped connections. A `retry-after` header is honoured but capped at `RETRY_WAIT_CAP` seconds
(a server asking for five minutes gets one, and the step's warnings say so). Failures become
RuntimeProblem issues whose messages name the status and the URL without its query string, and
pass through the step's redactor, so tokens, API keys and passwords never reach a message.
httpx is imported only when a client is built. docs/run-http.md.
"""

from __future__ import annotations

import base64
import email.utils
import io
import re
import tempfile
import time
from collections.abc import Iterable, Mapping
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from osiris.problems import RuntimeProblem, api_problem
from osiris.run.fields import flag, integer, number, optional_integer, spec_mapping, text
from osiris.run.http_deadline import Deadline, deadline_transport
from osiris.run.http_secrets import known_secrets, spec_secrets
from osiris.secrets.names import MASK
from osiris.secrets.redact import Redactor

if TYPE_CHECKING:
    import httpx

RETRY_WAIT_CAP = 60.0  # seconds; the longest a retry ever waits, whatever `retry-after` asks
BODY_SNIPPET = 200  # characters of an error response shown in a hint (after redaction)
SNIPPET_WINDOW = 64 << 10  # characters of an error body redacted before the snippet is cut from them
MAX_REDIRECTS = 5
SPILL_BYTES = 16 << 20  # a body larger than this waits on disk; rest.extractor then streams its records
BODY_FILE = "osiris.body_file"  # the response extension that holds a spilled body's file


CLIENT_FIELDS = ("timeout", "max_retries", "retries", "retry_delay", "validate_ssl", "max_response_mb")
ENDPOINT_FIELDS = ("validate_ssl",)  # what `client_for` reads that says how safely a client connects


def client_for(config: Mapping[str, Any], secrets: Iterable[str], headers: Mapping[str, str],
               fixed: Mapping[str, Any] | None = None) -> HttpClient:
    """The step's HTTP client: `timeout`, `max_retries` (supabase's specs call it `retries`),
    `retry_delay`, `validate_ssl` and `max_response_mb` from its effective config (the spec's
    defaults merged). `fixed`: the family's values for those its spec does not offer (posthog's has
    no `timeout`), never one it offers (tests/test_run_rest_edges.py): each value lives once."""
    settings = {**(fixed or {}), **{name: config[name] for name in CLIENT_FIELDS if name in config}}
    retries = optional_integer(settings, "max_retries")
    return HttpClient(
        headers=headers,
        timeout=number(settings, "timeout"),
        max_retries=integer(settings, "retries") if retries is None else retries,
        retry_delay=number(settings, "retry_delay"),
        verify=flag(settings, "validate_ssl"),
        max_response_mb=integer(settings, "max_response_mb"),
        secrets=(*secrets, *spec_secrets(config)),
    )


def sleep(seconds: float) -> None:
    """The wait between retries (tests replace it to record the waits without sleeping)."""
    time.sleep(seconds)


def auth_headers(config: Mapping[str, Any]) -> dict[str, str]:
    """The headers of `auth_type` (none, bearer, basic, api_key) over the step's own `headers`."""
    headers = {str(k): str(v) for k, v in spec_mapping(config, "headers").items()}
    kind = text(config, "auth_type")
    token = str(config.get("auth_token") or "")
    if kind == "bearer":
        headers["Authorization"] = f"Bearer {token}"
    elif kind == "basic":
        pair = f"{config.get('auth_username') or ''}:{token}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
    elif kind == "api_key":
        headers[text(config, "auth_header_name")] = token
    return headers


def safe_url(url: object) -> str:
    """`scheme://host:port/path`: no user info, no query string, no fragment, no control characters."""
    text = str(url)
    try:
        parts = urlsplit(text)
        port = f":{parts.port}" if parts.port else ""
        shown = f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"
    except ValueError:  # a bracketed host that is not an address, a port that is not a number
        shown = re.sub(r"//[^/]*@", "//", re.split(r"[?#]", text, maxsplit=1)[0])
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)


def join_url(response: httpx.Response, location: str) -> httpx.URL | None:
    """`location` (a redirect or a next link) resolved against the response's URL; None when it is
    not a URL httpx can send to."""
    import httpx

    try:
        return response.url.join(location)
    except (httpx.InvalidURL, ValueError):
        return None


def retry_after_seconds(value: str | None) -> float | None:
    """`retry-after` as seconds (a number or an HTTP date), or None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class HttpClient:
    """An httpx client with the step's auth, deadline, size cap and retry policy."""

    def __init__(
        self,
        *,
        headers: Mapping[str, str],
        timeout: float,
        max_retries: int,
        retry_delay: float,
        verify: bool,
        max_response_mb: int,
        secrets: Iterable[str] = (),
    ) -> None:
        import httpx

        self._httpx = httpx
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_delay = retry_delay
        self.verify = verify  # TLS certificates checked (validate_ssl)
        self.max_response_mb = max_response_mb
        self.known = known_secrets(secrets, headers)
        self.redactor = Redactor(known_values=self.known)  # for text the server wrote
        self.notes: list[str] = []  # warnings for the step's outcome (capped waits, paging stopped)
        self._deadline = Deadline()
        self._spilled: list[IO[bytes]] = []  # large bodies on disk, closed (and so deleted) with the client
        self._client = httpx.Client(headers=dict(headers), timeout=timeout, follow_redirects=False,
                                    transport=deadline_transport(self._deadline, verify=verify))

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self._client.close()
        for file in self._spilled:
            file.close()

    def send(self, method: str, url: str, *, idempotent: bool = True, passthrough: tuple[int, ...] = (),
             **kwargs: Any) -> httpx.Response:
        """One request, retried on 429, 5xx and transport failures; other errors raise at once.

        A request that is not `idempotent` (an insert) is retried only when the server cannot have
        acted on it: a 429, or a connection that was never made. A 5xx or a timeout may come after
        the rows landed, and a retry would write them twice. Statuses in `passthrough` are returned
        for the caller to read (a GraphQL 400 carries its `errors`).
        """
        for attempt in range(self.max_retries + 1):
            wait: float | None = None
            try:
                response = self._request(method, url, **kwargs)
            except self._httpx.TransportError as exc:
                problem = self._cannot_connect(exc, url)
                retry = idempotent or isinstance(exc, self._httpx.ConnectError)
            else:
                if response.status_code < 400 or response.status_code in passthrough:
                    return response
                if response.status_code != 429 and response.status_code < 500:
                    raise self.status_problem(response, method, retries=0)
                problem = self.status_problem(response, method, retries=attempt)
                wait = retry_after_seconds(response.headers.get("retry-after"))
                retry = idempotent or response.status_code == 429
            if attempt == self.max_retries or not retry:
                if not retry:
                    problem.hint += " Not retried: the server may have written the rows already."
                raise problem
            sleep(self._wait(attempt, wait))
        raise AssertionError("unreachable")  # the loop always returns or raises

    def _request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One request, following up to MAX_REDIRECTS redirects that stay on the same site.

        A redirect to another site is refused: httpx would drop `Authorization` there, but not an
        API key in a custom header, and credentials must never leave for a host nobody configured.
        One more redirect after MAX_REDIRECTS (a loop) is OML508, not a body read as data.
        """
        self._deadline.start(self.timeout)
        response = self._fetch(method, url, **kwargs)
        for _ in range(MAX_REDIRECTS):
            if not response.is_redirect:
                return response
            target = response.url.join(response.headers["location"])  # httpx has checked it is a URL
            if (target.scheme, target.netloc) != (response.url.scheme, response.url.netloc):
                raise self._redirect_problem(response, method, f"a redirect to another site ({safe_url(target)})",
                                             "Osiris does not send credentials to a site the pipeline does not "
                                             "name; use the final URL.")
            if response.status_code in (301, 302, 303) and method != "GET":
                method, kwargs = "GET", {}
            response = self._fetch(method, str(target), **kwargs)
        if response.is_redirect:
            raise self._redirect_problem(response, method, f"more than {MAX_REDIRECTS} redirects",
                                         "The server redirects in a loop; use the resource's final URL.")
        return response

    def _fetch(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One HTTP exchange, its body read whole but never past `max_response_mb` decoded."""
        import httpx
        try:
            request = self._client.build_request(method, url, **kwargs)
            response = self._client.send(request, stream=True)
        except (httpx.InvalidURL, httpx.UnsupportedProtocol, httpx.LocalProtocolError, ValueError) as exc:
            raise self._unsendable(exc, url) from None
        except httpx.RemoteProtocolError as exc:
            if "location header" not in str(exc):
                raise
            raise self.problem("OML508", f"a redirect from {method} {safe_url(url)} to an address that is not a URL, "
                               "not followed", "The server's redirect is broken; use the resource's final URL.") from None
        body: IO[bytes] = io.BytesIO()
        try:
            for chunk in response.iter_bytes():
                body.write(chunk)
                if body.tell() > self.max_response_mb << 20:
                    raise self._too_large(response, method)
                if body.tell() > SPILL_BYTES and isinstance(body, io.BytesIO):
                    body = self._spill(body)
        except httpx.DecodingError:
            encoding = response.headers.get("content-encoding", "")
            raise self.problem("OML515", f"invalid API response from {safe_url(response.url)}: the body is not "
                               f"valid {encoding or 'encoded'} data", "The server sent a broken response; "
                               "try again, or ask the API's owner.") from None
        finally:
            response.close()
        plain = [(k, v) for k, v in response.headers.raw
                 if k.lower() not in (b"content-encoding", b"content-length", b"transfer-encoding")]
        content, extensions = (body.getvalue(), response.extensions) if isinstance(body, io.BytesIO) else \
            (b"", {**response.extensions, BODY_FILE: body})
        return httpx.Response(response.status_code, headers=plain, content=content, request=request,
                              extensions=extensions)

    def _spill(self, body: io.BytesIO) -> IO[bytes]:
        """Move a body that outgrew SPILL_BYTES to an anonymous temporary file (no name, no path)."""
        disk = tempfile.TemporaryFile()  # noqa: SIM115 (closed, and so deleted, with the client)
        disk.write(body.getbuffer())
        self._spilled.append(disk)
        return disk

    @staticmethod
    def body_file(response: httpx.Response) -> IO[bytes] | None:
        """The file holding a body larger than SPILL_BYTES, or None when the body is in `content`."""
        file: IO[bytes] | None = response.extensions.get(BODY_FILE)
        return file

    def _too_large(self, response: httpx.Response, method: str) -> RuntimeProblem:
        return self.problem(
            "OML523",
            f"the response of {method} {safe_url(response.url)} is larger than max_response_mb "
            f"({self.max_response_mb} MB decoded); not read further",
            "Ask for smaller pages (the API's page-size parameter in params), or raise max_response_mb "
            "in the step if the API really sends pages this large.",
            response.status_code,
        )

    def _unsendable(self, exc: Exception, url: str) -> RuntimeProblem:
        text = str(exc).lower()
        if "idna" in text or "label" in text:
            reason = "the host name is not valid (a label is empty, too long, or not a valid name)"
        elif "protocol" in text:
            reason = "the URL does not start with http:// or https://"
        elif "non-printable" in text or "null" in text or "header" in text:
            reason = "the URL or a header holds a control character"
        else:
            reason = "the URL is not valid"
        return self.problem("OML505", f"cannot connect to {safe_url(url)}: {reason}",
                            "Check base_url and endpoint (or the connection's URL) in .osiris.yaml and the step.")

    def _redirect_problem(self, response: httpx.Response, method: str, what: str, hint: str) -> RuntimeProblem:
        return self.problem(
            "OML508",
            f"HTTP {response.status_code} {response.reason_phrase} from {method} {safe_url(response.url)}: "
            f"{what}, not followed",
            hint,
            response.status_code,
        )

    def json(self, response: httpx.Response) -> Any:
        """The response body as JSON, or OML515 (osiris.run.json_text says which JSON is read)."""
        from osiris.run.json_text import JsonTextError, parse_json

        file = self.body_file(response)
        if file is not None:
            file.seek(0)
        try:
            return parse_json(response.content if file is None else file.read())
        except JsonTextError as error:
            kind = response.headers.get("content-type", "no content type").split(";")[0]
            raise self.problem(
                "OML515",
                f"invalid API response from {safe_url(response.url)}: {error.reason(kind)}",
                error.hint or "Check base_url and endpoint: they must name a JSON API, not a web page.",
            ) from None

    def problem(self, code: str, message: str, hint: str, status: int | None = None) -> RuntimeProblem:
        """A RuntimeProblem with the step's known secrets masked in its message and hint.

        Text a server wrote (an error body, GraphQL errors) goes through `server_text` first.
        """
        return api_problem(code, self._mask(message), self._mask(hint), status)

    def server_text(self, text: str, limit: int = BODY_SNIPPET) -> str:
        """A server's words for a message: one line, every kind of secret masked, then shortened
        (masked first, so a token the cut would split is never half shown). Inside a run, a word neither
        the pipeline nor the vocabulary knows is withheld (docs/security.md, "What an engine says")."""
        from osiris.trust.engine_words import filtered

        return filtered(self.redactor.text(" ".join(text[:SNIPPET_WINDOW].split())))[:limit]

    def _mask(self, text: str) -> str:
        for value in self.known:
            text = text.replace(value, MASK)
        return text

    def _wait(self, attempt: int, asked: float | None) -> float:
        wanted = asked if asked is not None else self.retry_delay * (2**attempt)
        if wanted > RETRY_WAIT_CAP:
            self.notes.append(
                f"the server asked to wait {wanted:.0f} s before retrying; waited {RETRY_WAIT_CAP:.0f} s (the cap)"
            )
        return min(wanted, RETRY_WAIT_CAP)

    def _cannot_connect(self, exc: Exception, url: str) -> RuntimeProblem:
        text = str(exc).lower()
        if isinstance(exc, self._httpx.TimeoutException):
            reason = f"no complete answer within {self.timeout:g} s"
        elif "refused" in text:
            reason = "connection refused"
        elif any(word in text for word in ("name", "resolv", "getaddrinfo")):
            reason = "host name not found"
        else:
            reason = "the connection failed"
        return self.problem(
            "OML505",
            f"cannot connect to {safe_url(url)}: {reason}",
            "Check the URL and that the server is running and reachable from this machine.",
        )

    def status_problem(self, response: httpx.Response, method: str, retries: int) -> RuntimeProblem:
        status, url = response.status_code, safe_url(response.url)
        if status == 401:
            return self.problem(
                "OML506",
                f"authentication failed: {method} {url} answered 401 Unauthorized",
                "Check the connection's credentials (auth_token, auth_username or key) and auth_type.",
                status,
            )
        if status == 403:
            return self.problem(
                "OML507",
                f"permission denied: {method} {url} answered 403 Forbidden",
                "The credentials were accepted but may not read or write this resource; ask for access.",
                status,
            )
        after = f" after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""
        body = self.server_text(response.content.decode("utf-8", "replace"))
        if status == 404:
            hint = "Check the URL and endpoint: the server has no such resource."
        elif status >= 500 or status == 429:
            hint = "The server is failing or busy; try again later or raise max_retries."
        else:
            hint = "The server rejected the request."
        if body:
            hint += f" It answered: {body}"
        message = f"HTTP {status} {response.reason_phrase} from {method} {url}{after}"
        return self.problem("OML508", message, hint, status)
