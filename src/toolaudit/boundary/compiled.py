"""Compiled validators for the tools an agent sends, cached by the tools' content.

An agent sends the same tools every turn: compiling them once per content, not
once per call, is what makes a check at the boundary cost microseconds. The
cache is bounded (least recently used out), shared by every thread, and holds
nothing else: the only state the boundary keeps.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import orjson

from toolaudit.boundary.responses import as_json_value
from toolaudit.contract import Validator, compile_schemas
from toolaudit.errors import SchemaError
from toolaudit.schemas.loading import dotted_aliases, tools_in_document

#: How many distinct tool sets stay compiled.
CACHE_SIZE = 256

_cache: OrderedDict[tuple[bytes, bool], Validator] = OrderedDict()
_lock = threading.Lock()


def validator_for(tools: object, *, deep: bool) -> Validator:
    """The compiled validator of ``tools`` (any shape ``--schemas`` accepts, or SDK
    objects); :class:`SchemaError` when they are malformed."""
    plain = _plain(tools)
    try:
        # The content is the key (hashing it costs microseconds; trusting the list's
        # identity would miss a list changed in place). Keys are not sorted: the same
        # tools written in another key order are merely compiled once more.
        key = (orjson.dumps(plain), deep)
    except TypeError:  # not JSON (a Python object inside): compiled every time, not cached
        return _compile(plain, deep)
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


def _plain(tools: object) -> Any:
    """SDK tool objects (google-genai's ``Tool``, a pydantic model...) -> JSON values."""
    if type(tools) is list and all(type(tool) is dict for tool in tools):
        return tools  # already plain: the common case, every turn
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
