"""Compiled validators for the tools an agent sends, cached by the tools' content.

An agent sends the same tools every turn: compiling them once per content, not
once per call, is what makes a check at the boundary cost microseconds. The
cache is bounded (least recently used out), shared by every thread, and holds
nothing else: the only state the boundary keeps.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import orjson

from toolaudit.boundary.responses import as_json_value
from toolaudit.contract import Validator, compile_schemas
from toolaudit.errors import OptionError, SchemaError
from toolaudit.schemas.loading import SchemaSet, dotted_aliases, tools_in_document

#: How many distinct tool sets stay compiled.
CACHE_SIZE = 256

_cache: OrderedDict[tuple[bytes, bool], Validator] = OrderedDict()
_lock = threading.Lock()


def validator_for(tools: object, *, deep: bool) -> Validator:
    """The compiled validator of ``tools`` (any shape ``--schemas`` accepts, SDK objects,
    their JSON text, or a loaded SchemaSet); :class:`SchemaError` when they are
    malformed."""
    if isinstance(tools, SchemaSet):
        return _loaded(tools, deep)
    plain = _plain(tools)
    try:
        # The content is the key (hashing it costs microseconds; trusting the list's
        # identity would miss a list changed in place). Keys are not sorted: the same
        # tools written in another key order are merely compiled once more.
        text = orjson.dumps(plain)
    except TypeError:  # not JSON (a Python object inside): compiled every time, not cached
        return _compile(plain, deep)
    if b"null" in text:
        # orjson writes NaN and infinities as null too: tell them apart (slowly, and
        # only for tools that hold a null at all).
        text = b"\0" + json.dumps(plain, allow_nan=True).encode()
    key = (text, deep)
    with _lock:
        validator = _cache.get(key)
        if validator is not None:
            _cache.move_to_end(key)
            return validator
    validator = _compile(plain, deep)  # outside the lock: compiling may take a while
    with _lock:
        _cache[key] = validator
        if len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return validator


def cache_clear() -> None:
    """Forget every compiled tool set (for tests and long-lived processes)."""
    with _lock:
        _cache.clear()


def _loaded(schemas: SchemaSet, deep: bool) -> Validator:
    if schemas.deep != deep:
        raise OptionError(
            "these schemas were loaded for deep validation: check with deep=True"
            if schemas.deep
            else "deep=True needs schemas loaded for it: load_schemas(..., deep=True)"
        )
    if schemas.validator is None:
        raise OptionError("these schemas hold BFCL questions' tools: pass one question's tools")
    return schemas.validator


def _plain(tools: object) -> Any:
    """SDK tool objects (google-genai's ``Tool``, a pydantic model...) and JSON text ->
    JSON values."""
    if type(tools) is list and all(type(tool) is dict for tool in tools):
        return tools  # already plain: the common case, every turn
    if isinstance(tools, (str, bytes, bytearray, memoryview)):
        try:
            return orjson.loads(tools)
        except orjson.JSONDecodeError as error:
            raise SchemaError(
                f"the tools are not valid JSON ({error}); to use a schemas file, "
                "pass toolaudit.load_schemas(path)"
            ) from None
    if isinstance(tools, (list, tuple)):
        return [as_json_value(tool) for tool in tools]
    return as_json_value(tools)


def _compile(tools: Any, deep: bool) -> Validator:
    if isinstance(tools, Mapping) and not tools:
        return Validator({}, deep=deep)
    schemas = tools_in_document(tools, source="the tools")
    try:
        return compile_schemas(schemas, deep=deep).with_aliases(dotted_aliases(schemas))
    except SchemaError as error:
        raise error.located("the tools") from None
