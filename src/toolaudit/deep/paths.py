"""How an error names where it is: ``filters.date``, ``passengers[0].name``, ``["a.b"].c``.

A path starts from the argument's name and adds ``.name`` for a key that reads
as an identifier, ``["name"]`` (the name as a JSON string, non-ASCII kept) for
any other key, and ``[i]`` for an array element. The argument's own name is
quoted the same way once anything follows it; alone it is the contract's
subject, unquoted (``type:max-results``).

Where a place in a schema is meant, not in a value, it is a JSON pointer (RFC 6901):
:func:`ref_tokens` and :func:`followed` read a ``$ref`` as deep mode follows it, and
``toolaudit schemas`` too; :func:`pointer_token` writes a key into one.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from urllib.parse import unquote

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quoted(name: str) -> str:
    """``name`` as a bracketed JSON string: ``["max-results"]``."""
    return f"[{json.dumps(name, ensure_ascii=False)}]"


def root(name: str) -> str:
    """What the paths inside argument ``name`` start with."""
    return name if _IDENTIFIER.fullmatch(name) else quoted(name)


def key(base: str, name: str) -> str:
    """The path of key ``name`` of the object at ``base``."""
    return f"{base}.{name}" if _IDENTIFIER.fullmatch(name) else base + quoted(name)


def parameter_of(path: str) -> str:
    """The argument a path starts from: ``filters.date`` -> ``filters``,
    ``["a.b"].c`` -> ``a.b``; a top-level subject is itself."""
    if path.startswith('["'):
        decoder = json.JSONDecoder()
        name, end = decoder.raw_decode(path, 1)
        if path.startswith("]", end) and isinstance(name, str):
            return name
        return path  # a top-level name that merely looks bracketed
    match = _IDENTIFIER.match(path)
    if match and match.end() < len(path) and path[match.end()] in ".[":
        return match.group()
    return path


_INDEX = re.compile(r"\[[0-9]+\]")
#: Reads a quoted name where it starts (raw_decode keeps no state between calls).
_DECODER = json.JSONDecoder()


@functools.lru_cache(maxsize=4096)
def collapsed(path: str) -> str:
    """The path with every array index written ``[]``: how errors are counted
    per parameter, so that ``tags[0]`` and ``tags[7]`` add up to one count.

    Indices are only ever outside quoted names: a quoted name is skipped whole.
    Kept for the last few thousand paths: a log's errors repeat the same few places.
    """
    if "[" not in path:
        return path
    if '["' not in path:  # no quoted name: every bracket is an index (most deep errors)
        return _INDEX.sub("[]", path)
    parts: list[str] = []
    i = 0
    decoder = _DECODER
    while i < len(path):
        if path.startswith('["', i):
            try:
                _, end = decoder.raw_decode(path, i + 1)
            except ValueError:
                return path  # not a path this module wrote: counted as it is
            parts.append(path[i : end + 1])
            i = end + 1
        elif path[i] == "[" and (match := _INDEX.match(path, i)):
            parts.append("[]")
            i = match.end()
        else:
            parts.append(path[i])
            i += 1
    return "".join(parts)


# JSON pointers (RFC 6901), as a schema's $ref and toolaudit schemas' warnings write them.

#: An array index in a JSON pointer: ASCII digits, no leading zero.
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
#: What :func:`followed` gives for a pointer that points at nothing.
NOWHERE = object()


def pointer_token(key: str) -> str:
    """A key as a JSON pointer writes it: ``~`` as ``~0``, ``/`` as ``~1``."""
    return key.replace("~", "~0").replace("/", "~1")


def ref_tokens(reference: str) -> list[str] | None:
    """The keys a ``$ref`` inside the same schema (``#``, ``#/$defs/a``...) steps through:
    its fragment percent-decoded, then read as a JSON pointer; None for any other reference."""
    if not (reference == "#" or reference.startswith("#/")):
        return None
    return [
        token.replace("~1", "/").replace("~0", "~")
        for token in unquote(reference[1:]).split("/")[1:]
    ]


def followed(root: object, tokens: list[str]) -> object:
    """What ``tokens`` point at from ``root`` (:data:`NOWHERE` if nothing)."""
    target = root
    for token in tokens:
        if isinstance(target, Mapping) and token in target:
            target = target[token]
        elif (
            isinstance(target, (list, tuple))
            and _ARRAY_INDEX.fullmatch(token)
            and int(token) < len(target)
        ):
            target = target[int(token)]
        else:
            return NOWHERE
    return target
