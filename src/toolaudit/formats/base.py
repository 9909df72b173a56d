"""What every log format yields: the calls a model made in one record."""

from __future__ import annotations

from collections.abc import Mapping
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


class UnknownShape(Exception):
    """The record is JSON but not shaped like any log format (or not like the forced one).

    ``str()`` says what was expected; the record becomes ``malformed:record``.
    """


class Call:
    """One call the model made, as found in a record (nothing validated yet)."""

    __slots__ = ("index", "id", "name", "arguments", "encoding", "failure", "note")

    def __init__(
        self,
        index: int,
        name: object,
        arguments: object = ABSENT,
        *,
        id: object = None,  # noqa: A002 - the report's field name
        encoding: str = JSON_STRING,
        failure: str | None = None,
        note: str | None = None,
    ) -> None:
        self.index = index
        self.id = id
        self.name = name
        self.arguments = arguments
        self.encoding = encoding
        #: The provider or framework already says this call is broken (why).
        self.failure = failure
        #: Something a person should know even if the call is valid.
        self.note = note

    def __repr__(self) -> str:
        return f"Call({self.index}, {self.name!r}, {self.arguments!r}, id={self.id!r})"


class Extracted:
    """What one record holds: its calls, and what decides how to judge them."""

    __slots__ = ("format", "calls", "model", "tools", "key", "defines", "more_pages")

    def __init__(
        self,
        format: str,  # noqa: A002
        calls: list[Call] | None = None,
        *,
        model: object = None,
        tools: object = None,
        key: object = None,
        defines: str | None = None,
        more_pages: bool = False,
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


def as_dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


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
