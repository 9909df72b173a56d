"""Log formats: one record (a parsed JSON line) -> the calls the model made in it.

Each line's format is recognised from its own shape (:func:`detect`), so one
file may mix them; ``--input-format`` forces one. Every extractor returns the
calls of the *response* (what the model emitted), never the calls replayed
from the conversation history in a request: where a record carries that history,
it is :attr:`Extracted.history`, as logged.

Each format is one declaration (:class:`Format`) in the module that reads it,
which holds every fact the audit and the agent boundary ask of it;
:mod:`toolaudit.formats.registry` gathers them and orders their detection.
"""

from __future__ import annotations

from toolaudit.formats.base import (
    ABSENT,
    JSON_STRING,
    OBJECT,
    OBJECT_ONLY,
    Call,
    Extracted,
    History,
    UnknownShape,
)
from toolaudit.formats.declaration import Format
from toolaudit.formats.registry import (
    EXPECTED,
    FALLBACK_REPLY_SHAPE,
    FORMATS,
    HISTORY_FORMATS,
    TYPED_FORMATS,
    detect,
    extract,
    format_names,
    get_format,
    is_format,
)

__all__ = [
    "ABSENT",
    "EXPECTED",
    "FALLBACK_REPLY_SHAPE",
    "FORMATS",
    "HISTORY_FORMATS",
    "JSON_STRING",
    "OBJECT",
    "OBJECT_ONLY",
    "TYPED_FORMATS",
    "Call",
    "Extracted",
    "Format",
    "History",
    "UnknownShape",
    "detect",
    "extract",
    "format_names",
    "get_format",
    "is_format",
]
