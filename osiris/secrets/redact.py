"""Redaction (docs/sessions.md, docs/security.md): mask secrets in text and in data before anything is written, shown or sent.

    redactor = Redactor(known_values=[api_key, mysql_password], secret_fields={"password"})
    redactor.text("mysql://app:hunter2@db/shop")        # 'mysql://app:***@db/shop'
    redactor.data({"password": 98765432, "max_tokens": 10})  # {'password': '***', 'max_tokens': 10}

What is masked (docs/sessions.md, "What Osiris masks"): values under keys that name secrets
(`osiris.secrets.names.is_secret_key`) or that component specs mark secret, whatever their type;
the shapes in `osiris.secrets.patterns` (DSN passwords, auth headers and cookies, `token=` in
URLs, SQL passwords, "the password is ...", vendor keys); and every occurrence of the process's
own known secret values, also base64- and URL-encoded. A YAML document stays YAML with the same
shape and lines (`osiris.secrets.yaml_text`). Operational figures are kept; `${ENV}` and
`@family.alias` references are kept, since they name secrets without holding them.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping
from typing import overload
from urllib.parse import quote, quote_plus

from osiris.secrets.names import MASK, is_secret_key
from osiris.secrets.patterns import (
    AUTH_SCHEME,
    AUTH_SCHEME_CLUES,
    BLOCK_SCALAR_KEY,
    COLON_ASSIGNMENT,
    DSN_PASSWORD,
    EQUALS_ASSIGNMENT,
    FLOW_ASSIGNMENT,
    FLOW_ITEM,
    PROSE_NOT_SECRET,
    PROSE_SECRET,
    PROSE_SECRET_CLUES,
    SECRET_HEADER,
    SECRET_HEADER_CLUES,
    SQL_PASSWORD,
    SQL_PASSWORD_CLUES,
    VENDOR_KEYS,
    YAML_PROPERTIES,
    is_reference,
)
from osiris.secrets.yaml_text import redact_yaml

__all__ = ["DSN_PASSWORD", "MIN_KNOWN_SECRET_LENGTH", "Redactor", "is_reference"]

# Shorter known values would mask ordinary words; such "secrets" are not worth hiding anyway.
MIN_KNOWN_SECRET_LENGTH = 4
MIN_ENCODED_LENGTH = 8  # an encoded fragment shorter than this would match ordinary text
_FENCE = re.compile(r"[ \t]{0,3}(`{3,})")
MIN_CUT_HEAD = 8  # a shorter head is often a key's public prefix (`phx_...` in a hint), and tells nothing
_CUT_HEAD = re.compile(rf"\S{{{MIN_CUT_HEAD},}}(?=…|\.\.\.)")  # the last word before an ellipsis
_FLOW_BRACKETS = re.compile(r"[\[\]{}\n]")


class Redactor:
    """Masks secrets in strings and nested data. Build one per session; it is cheap to call."""

    def __init__(self, known_values: Iterable[object] = (), secret_fields: Iterable[str] = ()) -> None:
        self.secret_fields = {name.lower() for name in secret_fields}
        self._verdicts: dict[str, bool] = {}  # key name -> is it secret (the same keys recur a lot)
        self._known: set[str] = set()
        self._forms: set[str] = set()  # the known values and their encodings
        self._known_pattern: re.Pattern[str] | None = None
        self.learned = 0  # how many times it learnt a new value: a copy redacted since is still good
        self.add_known(known_values)

    def add_known(self, values: Iterable[object]) -> None:
        """Remember more secret values (a resolved connection password, a number too)."""
        fresh = {text for text in map(secret_text, values) if text and len(text) >= MIN_KNOWN_SECRET_LENGTH}
        forms = {form for value in fresh - self._known for form in encoded_forms(value)}
        if not forms:
            return
        self._known |= fresh
        self._forms |= forms
        self.learned += 1
        self._known_pattern = re.compile("|".join(re.escape(f) for f in sorted(self._forms, key=len, reverse=True)))

    def learn_from(self, data: object, secret_paths: Iterable[str] = ()) -> None:
        """Remember the values found under secret keys in `data` (e.g. an LLM's pipeline that wrote
        a password inline), and at `secret_paths` (JSON pointers a component spec marks secret), so
        that they are masked wherever they turn up later, under any key."""
        from osiris.extract.pointer import split

        at_paths = [_at(data, split(path)) for path in secret_paths]
        self.add_known([*self._secret_values(data), *(v for found in at_paths for v in self._secret_values(found, True))])

    def _secret_values(self, data: object, secret: bool = False) -> list[object]:
        if isinstance(data, Mapping):
            return [v for k, item in data.items()
                    for v in self._secret_values(item, secret or self.is_secret_field(str(k)))]
        if isinstance(data, (list, tuple)):
            return [v for item in data for v in self._secret_values(item, secret)]
        if secret and not (isinstance(data, str) and (is_reference(data) or data == MASK)):
            return [data]
        return []

    def is_secret_field(self, name: str) -> bool:
        known = self._verdicts.get(name)
        if known is None:
            known = self._verdicts[name] = name.lower() in self.secret_fields or is_secret_key(name)
        return known

    def text(self, text: str) -> str:
        """Mask every secret in `text`. A YAML document, alone or in a ``` fence, stays YAML."""
        if not text:
            return text
        document = self._yaml(text)
        if document is not None:
            return document
        if "```" in text:
            return "".join(self._fenced(body) if fenced else self.free_text(body) for fenced, body in split_fences(text))
        return self.free_text(text)

    def _yaml(self, text: str) -> str | None:
        """`text` masked as a YAML document, or None when it is not one."""
        if "\n" in text or text.lstrip()[:1] in ("{", "["):
            return redact_yaml(text, self.is_secret_field, self.free_text)
        return None

    def _fenced(self, body: str) -> str:
        """A fence's body: YAML stays YAML; anything else, fence lines inside it included (they are
        its content), is masked by shape. No recursion: one pass over any number of fences."""
        document = self._yaml(body)
        return self.free_text(body) if document is None else document

    def free_text(self, text: str) -> str:
        """Mask secrets in prose, logs, headers and single lines, by their shapes."""
        if not text:
            return text
        text = self._mask_known(text)
        # Each shape runs only where its words are: on a megabyte of YAML that halves the time.
        lowered = text.lower()
        if "://" in text:
            text = DSN_PASSWORD.sub(_keep_head, text)
        if _any_in(lowered, AUTH_SCHEME_CLUES):
            text = AUTH_SCHEME.sub(_keep_head, text)
        for clues, pattern in VENDOR_KEYS:
            if _any_in(text, clues):
                text = pattern.sub(MASK, text)
        if _any_in(lowered, SQL_PASSWORD_CLUES):
            text = SQL_PASSWORD.sub(_quoted_mask, text)
        if _any_in(lowered, SECRET_HEADER_CLUES):
            text = SECRET_HEADER.sub(_keep_head, text)
        if "|" in text or ">" in text:
            text = self._mask_secret_blocks(text)
        if ":" in text:
            text = COLON_ASSIGNMENT.sub(self._mask_assignment, self._mask_secret_flows(text))
        if "=" in text:
            text = EQUALS_ASSIGNMENT.sub(self._mask_assignment, text)
        return PROSE_SECRET.sub(_mask_prose, text) if _any_in(lowered, PROSE_SECRET_CLUES) else text

    def _mask_known(self, text: str) -> str:
        """Every known secret value (and its encodings), and the head of one at a cut."""
        if self._known_pattern is None:
            return text
        text = self._known_pattern.sub(MASK, text)
        return _CUT_HEAD.sub(self._mask_cut_head, text) if "…" in text or "..." in text else text

    def _mask_cut_head(self, match: re.Match[str]) -> str:
        """A text cut before it was redacted ends in the head of a secret, then an ellipsis: that head
        is masked too. Cut after redacting wherever you can (osiris.trust.disclosure.shorten); this
        is the net for a cut made where no redactor was at hand."""
        head = match.group(0)
        for size in range(len(head), MIN_CUT_HEAD - 1, -1):
            tail = head[-size:]
            if any(form.startswith(tail) for form in self._forms):
                return head[:-size] + MASK
        return head

    def _mask_secret_blocks(self, text: str) -> str:
        """`password: |` in text that is not a whole YAML document (an answer that does not parse):
        every line of the block, up to the next line indented no deeper than the key, reads ***."""
        lines = text.splitlines(keepends=True)
        inside: int | None = None  # the key's indentation while inside a secret block
        for number, line in enumerate(lines):
            body = line.lstrip(" \t")
            depth = len(line) - len(body)
            if inside is not None:
                if not body.strip() or depth > inside:
                    lines[number] = line[:depth] + MASK + ("\n" if line.endswith("\n") else "") if body.strip() else line
                    continue
                inside = None
            opening = BLOCK_SCALAR_KEY.fullmatch(line)
            if opening and self.is_secret_field(opening["key"]):
                inside = len(opening["indent"])
        return "".join(lines)

    @overload
    def data(self, value: Mapping[str, object], key: str | None = None) -> dict[str, object]: ...

    @overload
    def data(self, value: list[object], key: str | None = None) -> list[object]: ...

    @overload
    def data(self, value: object, key: str | None = None) -> object: ...

    def data(self, value: object, key: str | None = None) -> object:
        """A redacted copy of JSON-like data: whatever sits under a secret key is masked (numbers
        too), every other string is scanned. Numbers elsewhere are operational figures, kept unless
        one is a known secret (`batch_size: 98765432` echoing a numeric password)."""
        if key is not None and self.is_secret_field(key):
            return mask_all(value)
        if isinstance(value, Mapping):
            # keys are scanned as text too: an answer can hold a secret in a key (`"pw hunter2": 1`)
            return {self.text(k) if isinstance(k, str) else k: self.data(v, str(k)) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(item) for item in value]
        if isinstance(value, str):
            return self.text(value)
        if self._known and not self._known.isdisjoint(number_texts(value)):
            return MASK
        return value

    def _mask_secret_flows(self, text: str) -> str:
        """`password: [a, {b: c}]` in text that does not parse: every item up to the closing bracket,
        or the end of the line, reads "***" (keys stay); `config: {token: [x]}` too."""
        if "[" not in text and "{" not in text:
            return text
        pieces: list[str] = []
        position = 0
        for match in FLOW_ASSIGNMENT.finditer(text):
            if match.start() < position or not self.is_secret_field(match["key"]):
                continue
            end = _flow_end(text, match.end())
            pieces += [text[position:match.end()], FLOW_ITEM.sub(_mask_flow_item, text[match.end():end])]
            position = end
        return "".join(pieces) + text[position:] if pieces else text

    def _mask_assignment(self, match: re.Match[str]) -> str:
        value = match["value"].rstrip()
        if not self.is_secret_field(match["key"]):
            return match.group(0)
        properties = YAML_PROPERTIES.match(value)  # `password: &pw !!str x` in text that does not parse
        head = match["head"] + (properties.group() if properties else "")
        value = value[properties.end():] if properties else value
        if is_reference(value) or value.strip("\"'") in ("", MASK) or value in ("null", "~"):
            return match.group(0)
        if properties and "${" in value:
            return match.group(0)  # `&a ${X}`: the value pattern stopped inside the reference
        if value.startswith(("|", ">", "{", "[", "&", "*", "!")):
            return match.group(0)  # block scalars, collections, aliases: YAML the structural pass handles
        trailing = match["value"][len(match["value"].rstrip()):]
        quote_char = value[0] if value[0] in "\"'" else ""
        if not quote_char and match.group(0).rstrip().endswith(value) and ":" in match["head"]:
            quote_char = '"'  # `password: x` -> `password: "***"`: a bare *** would be a YAML alias
        return f"{head}{quote_char}{MASK}{quote_char}{trailing}"


def secret_text(value: object) -> str | None:
    """A secret value as text: strings and numbers (a numeric password is still a password)."""
    if isinstance(value, str):
        return value
    return min(number_texts(value), key=len, default=None)


def number_texts(value: object) -> set[str]:
    """How a number is written: {'98765432'} for 98765432, and for 98765432.0 also '98765432.0'.

    Booleans are never secrets: `true` and `false` are the two values anyone would guess, so
    no credential is one, and masking them would blank every flag of a pipeline (`echo: true`)
    once some known value read `True`. NaN and the infinities are not secrets either, and an int
    too long for `str()` (beyond Python's digit limit) is no password: none of these has a text."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return set()
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return set()
        return {repr(value), str(int(value))} if value.is_integer() else {repr(value)}
    try:
        return {str(value)}
    except ValueError:  # beyond sys.get_int_max_str_digits(): no password is that long
        return set()


def encoded_forms(value: str) -> set[str]:
    """`value`, URL-encoded, and base64-encoded (standard and URL-safe alphabets, at each of the
    three byte alignments, so that it is found inside a longer encoded text such as user:password)."""
    forms = {value, quote(value, safe=""), quote_plus(value)}
    raw = value.encode("utf-8", "surrogatepass")
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode("ascii")
        forms |= {whole, whole.rstrip("=")}
        for shift in (1, 2):
            encoded = encode(b"\0" * shift + raw).decode("ascii")
            forms.add(encoded[(shift * 4 + 2) // 3 : ((shift + len(raw)) // 3) * 4])
        forms.add(whole[: (len(raw) // 3) * 4])
    return {form for form in forms if form == value or len(form) >= MIN_ENCODED_LENGTH}


def mask_all(value: object) -> object:
    """Every leaf masked (structure kept); nothing, empty text and references stay as they are."""
    if isinstance(value, Mapping):
        return {k: mask_all(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_all(item) for item in value]
    if value is None or value == "" or (isinstance(value, str) and is_reference(value)):
        return value
    return MASK


def split_fences(text: str) -> list[tuple[bool, str]]:
    """Markdown text cut into (inside a ``` fence?, piece); one pass over the lines. Fence lines with
    an info string right after an opening line (an answer that stutters "```yaml" twice) belong to
    the opening; a bare ``` there closes an empty block, as in Markdown."""
    pieces: list[tuple[bool, list[str]]] = []
    current: list[str] = []
    fence = ""
    for line in text.splitlines(keepends=True):
        opening = _FENCE.match(line)
        info = line[opening.end():].strip() if opening else ""
        if fence and opening and not current and info:
            pieces[-1][1].append(line)  # another opening line, before any content
        elif not fence and opening:
            current.append(line)
            pieces.append((False, current))
            current, fence = [], opening.group(1)
        elif fence and opening and opening.group(1).startswith(fence) and not info:
            pieces.append((True, current))
            current, fence = [line], ""
        else:
            current.append(line)
    pieces.append((bool(fence), current))
    return [(fenced, "".join(lines)) for fenced, lines in pieces]


def _at(data: object, parts: list[str]) -> object:
    """The value at a JSON pointer's parts, or None."""
    for part in parts:
        if isinstance(data, Mapping):
            data = data.get(part)
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return None
    return data


def _any_in(text: str, clues: tuple[str, ...]) -> bool:
    return any(clue in text for clue in clues)


def _flow_end(text: str, start: int) -> int:
    """Where the flow collection opening at `start` closes (just after its bracket), or its line ends."""
    depth = 0
    for match in _FLOW_BRACKETS.finditer(text, start):
        if match.group() == "\n":
            return match.start()
        depth += 1 if match.group() in "[{" else -1
        if depth == 0:
            return match.end()
    return len(text)


def _mask_flow_item(match: re.Match[str]) -> str:
    """An item of a secret flow collection masked; a mapping's key (`a` in `{a: 1}`) is kept, as
    the YAML pass keeps it."""
    item = match.group()
    body = item.strip()
    after = match.string[match.end():match.end() + 2]
    if after[:1] == ":" and after[1:2] in ("", " ", "\t", "\n"):
        return item
    if not body or body.strip("\"'") in ("", MASK) or is_reference(body) or body in ("null", "~"):
        return item
    start = item.index(body)
    return f'{item[:start]}"{MASK}"{item[start + len(body):]}'


def _keep_head(match: re.Match[str]) -> str:
    return match["head"] + MASK


def _quoted_mask(match: re.Match[str]) -> str:
    quote_char = match["secret"][0]
    return f"{match['head']}{quote_char}{MASK}{quote_char}"


def _mask_prose(match: re.Match[str]) -> str:
    quote_char = match["secret"][0] if match["secret"][0] in "\"'" else ""
    secret = match["secret"][1:-1] if quote_char else match["secret"]
    lowered = secret.lower()
    if lowered in PROSE_NOT_SECRET or secret in ("", MASK) or is_reference(secret):
        return match.group(0)
    if lowered.isalpha() and lowered.endswith(("ed", "ing", "ly", "able", "ible")):  # "was rejected"
        return match.group(0)
    return f"{match['head']}{quote_char}{MASK}{quote_char}"
