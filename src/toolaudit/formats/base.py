"""What every log format yields (the calls a model made in one record), and the
helpers format modules read records with. (What a format declares about itself,
:class:`~toolaudit.formats.declaration.Format`, is in declaration.py.)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any


class _Absent:
    """The call had no arguments field at all (a call with no arguments)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()

#: How a format's arguments arrive, which decides what a string means.
JSON_STRING = "json-string"  # OpenAI & co: a string is the normal, encoded form
OBJECT = "object"  # Anthropic, Gemini, MCP...: a string is a logging deviation, decoded with a note
OBJECT_ONLY = "object-only"  # LangChain: parsed upstream, so a string means a double encoding

#: The note on calls of a response cut off by its length limit ({} names the signal).
CUT_OFF = "the response hit its length limit ({}), so these arguments may be cut off"
_CUT_OFF_TAIL = CUT_OFF.split("{}")[1]


#: The ``malformed:`` kinds of calls that failed silently, as the report counts them: a
#: call of a response cut off by its length limit whose arguments do not parse, and a
#: call the provider itself reports failed (Gemini's MALFORMED_FUNCTION_CALL, Bedrock's
#: malformed_tool_use): apart from arguments a model merely wrote wrong.
TRUNCATED = "truncated"
PROVIDER = "provider"


def is_cut_off(note: str | None) -> bool:
    """Whether a call's note (which only formats write, from their own texts) says its
    response hit its length limit: such calls are counted apart, valid or not."""
    return note is not None and _CUT_OFF_TAIL in note


class UnknownShape(Exception):
    """The record is JSON but not shaped like any log format (or not like the forced one).

    ``str()`` says what was expected; the record becomes ``malformed:record``.
    """


class Call:
    """One call the model made, as found in a record (nothing validated yet)."""

    __slots__ = (
        "arguments",
        "encoding",
        "failure",
        "failure_kind",
        "id",
        "in_text",
        "index",
        "name",
        "note",
    )

    def __init__(
        self,
        index: int,
        name: object,
        arguments: object = ABSENT,
        *,
        id: object = None,  # shadows the builtin: the report's field name
        encoding: str = JSON_STRING,
        failure: str | None = None,
        note: str | None = None,
        in_text: str | None = None,
        failure_kind: str | None = None,
    ) -> None:
        self.index = index
        self.id = id
        self.name = name
        self.arguments = arguments
        self.encoding = encoding
        #: The provider or framework already says this call is broken (why).
        self.failure = failure
        #: The ``malformed:`` kind ``failure`` counts as where its source decides it:
        #: PROVIDER, the provider itself reports the call failed. None: ``call`` for a
        #: call with no name, else ``arguments`` (TRUNCATED in a response cut off).
        self.failure_kind = failure_kind
        #: Something a person should know even if the call is valid.
        self.note = note
        #: The markup the call was found in, in a message's text ("Hermes <tool_call>"):
        #: the serving stack did not parse it, so the call never reached the tool
        #: (its errors gain ``malformed:text``). With no name, ``failure`` says why
        #: the markup could not be read.
        self.in_text = in_text

    def __repr__(self) -> str:
        return f"Call({self.index}, {self.name!r}, {self.arguments!r}, id={self.id!r})"


def id_key(call_id: object) -> tuple[type, object] | None:
    """What tells two calls' ids apart: a string or an integer, each of its own type
    (None for no id, or for one of another type)."""
    if isinstance(call_id, (str, int)) and not isinstance(call_id, bool):
        return type(call_id), call_id
    return None


def repeated_ids(ids: Iterable[object]) -> set[tuple[type, object]]:
    """The ids (as :func:`id_key` makes them) that two or more of ``ids`` share."""
    counts = Counter(key for key in map(id_key, ids) if key is not None)
    return {key for key, count in counts.items() if count > 1}


def note_repeated_ids(calls: list[Call]) -> None:
    """Note on each call of one response whose id another of its calls has too: the
    results sent back cannot tell them apart (a flag, not an error: the contract
    judges each call alone)."""
    if len(calls) < 2:
        return
    repeated = repeated_ids(call.id for call in calls)
    for call in calls:
        if repeated and id_key(call.id) in repeated:
            same = "another call of this response has the same id"
            call.note = same if call.note is None else f"{call.note}; {same}"


class History:
    """Where a record holds a conversation: the messages as logged (nothing validated)."""

    __slots__ = ("messages", "path", "shape")

    def __init__(self, shape: str, messages: object, path: str) -> None:
        #: The provider's shape the messages are in: one of ``toolaudit.history.SHAPES``
        #: ("openai-chat", "openai-responses", "anthropic", "bedrock", "gemini",
        #: "langchain", "otel"), named here only (formats never import the checker).
        self.shape = shape
        #: The list as the record holds it (Chat, Anthropic and Bedrock ``messages``,
        #: Responses ``input``, Gemini ``contents``, LangChain messages, OTel
        #: ``gen_ai.input.messages`` parsed from its JSON string when it is one).
        self.messages = messages
        #: Where that list is in the record, as report paths write it
        #: ("request.messages", "body.input", "attributes.gen_ai.input.messages").
        self.path = path

    def __repr__(self) -> str:
        return f"History({self.shape!r}, path={self.path!r})"

    @property
    def text(self) -> str | None:
        """The messages' JSON text, where the record holds them as text not read yet (an
        OTel span's attribute): the check may read it without the objects ``messages``
        would make. None otherwise."""
        return None


class Extracted:
    """What one record holds: its calls, and what decides how to judge them."""

    __slots__ = (
        "calls",
        "container",
        "defines",
        "fields",
        "format",
        "history",
        "key",
        "model",
        "more_pages",
        "stream",
        "tools",
    )

    def __init__(
        self,
        format: str,  # shadows the builtin: the report's field name
        calls: list[Call] | None = None,
        *,
        model: object = None,
        tools: object = None,
        key: object = None,
        defines: str | None = None,
        more_pages: bool = False,
        stream: object = None,
        fields: Mapping[str, object] | None = None,
        container: str | None = None,
        history: History | None = None,
    ) -> None:
        self.format = format
        self.calls = calls if calls is not None else []
        self.model = model if isinstance(model, str) else None
        #: Tool definitions the record carries (a logged request's tools), any shape.
        self.tools = tools
        #: Selects a keyed schema set: a BFCL question id, a batch custom_id.
        self.key = key
        #: When set, ``tools`` define schemas for later records, not for this one:
        #: "stream" (an MCP tools/list result) or "key" (a batch input line).
        self.defines = defines
        #: With defines="stream": the listing continues on the next page (MCP
        #: nextCursor), so the next tools extend these instead of replacing them.
        self.more_pages = more_pages
        #: When set, the record is one chunk or event of a streamed response (a
        #: :class:`~toolaudit.formats.streams.StreamStep`): its calls come from the
        #: stream once assembled, not from ``calls``.
        self.stream = stream
        #: Values a ``--group-by`` field may name beyond the record's own JSON, by
        #: the field as written: an OpenTelemetry span's attributes, whose keys hold
        #: dots (``{"attributes.service.name": "checkout"}``).
        self.fields = fields
        #: The format of the record this one came wrapped in (a request/response
        #: pair's "envelope"), whose calls are ``format``'s.
        self.container = container
        #: The conversation the record carries (a logged request's messages), whose
        #: calls and results the history check pairs; None: it carries none.
        self.history = history


def as_dict(value: object) -> Mapping[str, Any]:
    # A parser's dict, or nothing, is told apart first: the test against the Mapping
    # ABC costs several times more, and every format calls this on every record.
    if type(value) is dict:
        return value
    return value if value is not None and isinstance(value, Mapping) else {}


def as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def get_path(record: Mapping[str, Any], *keys: str) -> object:
    """``record[k1][k2]...`` or None where a step is missing or not an object."""
    value: object = record
    for key in keys:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def first_present(record: Mapping[str, Any], *keys: str) -> object:
    """The value of the first key present (camelCase or snake_case spellings)."""
    for key in keys:
        if key in record:
            return record[key]
    return None


def is_one_of(value: object, names: frozenset[str] | Mapping[str, Any]) -> bool:
    """``value in names`` for a value from a log, which may be unhashable."""
    return isinstance(value, str) and value in names


def ends_with(value: object, suffix: str) -> bool:
    """``value.endswith(suffix)`` for a value from a log, which may be no string (a number
    of 5,000 digits, which ``str()`` refuses)."""
    return isinstance(value, str) and value.endswith(suffix)
