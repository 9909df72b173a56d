"""What each format module declares about itself (:class:`Format`): how its records
are recognised and read, and the facts the audit and the agent boundary ask of it,
so that no module above ``formats/`` needs to know a format by its name."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from toolaudit.formats.base import Extracted

#: What a format's records define for the records after them, and how a format's calls
#: take what an earlier record defined (the values of :attr:`Extracted.defines`):
#: the tools its stream last listed, or those defined under its key.
STREAM = "stream"
KEY = "key"
_TOOL_LINKS = (None, STREAM, KEY)

Recogniser = Callable[[Mapping[str, Any]], bool]
Extractor = Callable[[Mapping[str, Any]], Extracted]
NestedExtractor = Callable[[Mapping[str, Any], "Inner"], Extracted]


class _ReadOnly:
    """Attributes set once, in ``__init__``. (Not a frozen dataclass: building
    dataclasses costs milliseconds at import, which ``toolaudit --version`` pays.)"""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _set(self, **fields: object) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)


class Inner(_ReadOnly):
    """The registry's own detect and extract, lent to the formats whose records
    wrap a record of another format (a pair's response, a Batch line's body).

    Lent rather than imported: the registry imports every format module, so a
    format module importing the registry would be an import cycle.
    """

    __slots__ = ("detect", "expected", "extract")

    #: The name of the format a record is shaped as; raises :class:`UnknownShape`.
    detect: Callable[[Mapping[str, Any]], str]
    #: ``extract(record, name)``: the record read as the named format.
    extract: Callable[[Mapping[str, Any], str], Extracted]
    #: What a record of no known shape is told: "expected a tool call ... or Ollama".
    expected: str

    def __init__(
        self,
        *,
        detect: Callable[[Mapping[str, Any]], str],
        extract: Callable[[Mapping[str, Any], str], Extracted],
        expected: str,
    ) -> None:
        self._set(detect=detect, extract=extract, expected=expected)


class Format(_ReadOnly):
    """One log format, declared by the module that reads it.

    The registry derives the rest from these declarations: the ``--input-format``
    choices, what an unknown record is told to be, and the formats the audit's typed
    fast path reads. (The detection order is the registry's: it is one list of all
    the formats, as where one format goes depends on the others.)
    """

    __slots__ = (
        "carries_tools",
        "defines_tools",
        "extract",
        "extract_nested",
        "fallback",
        "family",
        "history",
        "keys",
        "logged_output",
        "name",
        "recognises",
        "summary",
        "tool_result_messages",
        "tools",
        "typed_shape",
        "unique_call_ids",
        "uses_defined_tools",
        "variant",
    )

    #: The ``--input-format`` name. (Not always ``Extracted.format``: an
    #: envelope yields its response's format.)
    name: str
    #: What it is, for people: "OpenAI Chat Completions".
    summary: str
    #: Whether a parsed record is shaped as this format. Tried in the registry's
    #: detection order, so it need not rule out the formats tried before it.
    recognises: Recogniser
    #: Top-level keys of which a record holds at least one whenever ``recognises``
    #: (or ``fallback``) is true: detection calls only the recognisers of formats
    #: whose keys the record has. A promise the tests check on every case record.
    keys: frozenset[str]
    #: The calls (and context) of one record; raises :class:`UnknownShape`.
    extract: Extractor | None
    #: Instead of ``extract``, for a record that wraps a record of another format.
    extract_nested: NestedExtractor | None
    #: Tried, in detection order, only once no format ``recognises`` the record.
    fallback: Recogniser | None
    #: Where its record keeps tool definitions, if anywhere (for people and docs).
    tools: str | None
    #: Where its records may keep a conversation (:attr:`Extracted.history`: a logged
    #: request's messages), for people and docs; None: its records carry none. The
    #: typed fast path never reads a history: with the conversation check on, records
    #: of such a format are the general path's.
    history: str | None
    #: How the "expected ..." message names it (formats of one family share a
    #: name: "OpenAI (chat, responses, batch)"); None: not named there.
    family: str | None
    variant: str | None
    #: The name of the function of :mod:`toolaudit.formats.typed` that builds the
    #: typed shape the audit's fast path decodes its records into; None: only the
    #: general path reads it. A name, not the function: msgspec is loaded only for a
    #: log that holds a record of a typed format.
    typed_shape: str | None
    #: The shape of the tool results that answer its calls (one of
    #: ``toolaudit.boundary.SHAPES``, each named after the format whose replies it
    #: is), or a function of the record that picks one (a Batch line holds either
    #: API's response); None: its records are not responses an agent answers (a
    #: trace, a stream's chunk, a request). See :meth:`reply_shape`.
    tool_result_messages: str | Callable[[Mapping[str, Any]], str] | None
    #: Whether two calls of one record with the same id are worth a note (the
    #: results sent back cannot tell them apart). False for BFCL, whose calls all
    #: carry their question's id.
    unique_call_ids: bool
    #: Whether its records may carry the tools that judge their own calls (a logged
    #: request's): the calls of such a record need no ``--schemas``.
    carries_tools: bool
    #: What its records may define for the records after them (they set
    #: :attr:`Extracted.defines` to it): ``STREAM``, the tools that judge the calls
    #: after it in its source (an MCP ``tools/list`` result); ``KEY``, those that judge
    #: a later record with the same key (an OpenAI Batch input line). None: nothing.
    defines_tools: str | None
    #: How its calls take tools an earlier record defined, when the record carries
    #: none: ``STREAM``, the tools its source last listed (an MCP ``tools/call``);
    #: ``KEY``, those of the earlier record with its key (an OpenAI Batch output line,
    #: its input line's: one read before it is an error that says so). None: not so.
    uses_defined_tools: str | None
    #: The field of a record that holds the model's output as its benchmark logs it,
    #: for a scorer that decodes it as the benchmark does (a BFCL result's
    #: ``result``, read by ``--match bfcl``); None: the calls are the output.
    logged_output: str | None

    def __init__(
        self,
        *,
        name: str,
        summary: str,
        recognises: Recogniser,
        keys: Iterable[str],
        extract: Extractor | None = None,
        extract_nested: NestedExtractor | None = None,
        fallback: Recogniser | None = None,
        tools: str | None = None,
        history: str | None = None,
        family: str | None = None,
        variant: str | None = None,
        typed_shape: str | None = None,
        tool_result_messages: str | Callable[[Mapping[str, Any]], str] | None = None,
        unique_call_ids: bool = True,
        carries_tools: bool = False,
        defines_tools: str | None = None,
        uses_defined_tools: str | None = None,
        logged_output: str | None = None,
    ) -> None:
        if (extract is None) == (extract_nested is None):
            raise TypeError(f"format {name!r}: give exactly one of extract, extract_nested")
        if not keys:
            raise TypeError(f"format {name!r}: name the top-level keys it recognises records by")
        if defines_tools not in _TOOL_LINKS or uses_defined_tools not in _TOOL_LINKS:
            raise TypeError(f"format {name!r}: tools are defined by {STREAM!r} or {KEY!r}")
        self._set(
            name=name,
            summary=summary,
            recognises=recognises,
            keys=frozenset(keys),
            extract=extract,
            extract_nested=extract_nested,
            fallback=fallback,
            tools=tools,
            history=history,
            family=family,
            variant=variant,
            typed_shape=typed_shape,
            tool_result_messages=tool_result_messages,
            unique_call_ids=unique_call_ids,
            carries_tools=carries_tools,
            defines_tools=defines_tools,
            uses_defined_tools=uses_defined_tools,
            logged_output=logged_output,
        )

    def reply_shape(self, record: Mapping[str, Any]) -> str | None:
        """The shape of the tool results that answer the calls of ``record`` (one of
        this format's); None if its records are not answered."""
        shape = self.tool_result_messages
        return shape(record) if callable(shape) else shape

    def __repr__(self) -> str:
        return f"Format({self.name!r})"
