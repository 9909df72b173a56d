"""JSON where orjson cannot be trusted: the standard library as a fallback, off the hot path.

orjson refuses some valid JSON (numbers beyond a double, such as ``1e400``;
lone surrogate escapes such as ``"\\ud800"``), silently turns integers beyond
64 bits into floats, and cannot write strings holding lone surrogates or
structures nested deeper than 255 levels. The audit parses with orjson and
turns to these helpers only when orjson failed or may have changed a value.
"""

from __future__ import annotations

import json
import math
from typing import Any

# A run of 19 digits may be an integer beyond 64 bits. Found by mapping every
# digit to "0" and everything else to " ", then looking for nineteen "0"s: ten
# times faster than a regular expression (measured), and a false alarm (digits
# in a string, a long fraction) only costs an exact parse that changes nothing.
_DIGITS_AS_ZEROS = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
_LONG_RUN = b"0" * 19


def may_hold_long_integers(data: bytes | str) -> bool:
    """Whether orjson may have turned an integer of this JSON text into a float."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    return _LONG_RUN in data.translate(_DIGITS_AS_ZEROS)


# The same with exponents kept: "e"/"E" as "e", signs as "+", so that a number of
# three exponent digits (1e400, which orjson refuses) reads "e000" or "e+000".
_NUMBER_MARKS = bytes(
    48 if 48 <= byte <= 57 else 101 if byte in b"eE" else 43 if byte in b"+-" else 32
    for byte in range(256)
)


def orjson_may_differ(data: bytes) -> bool:
    """Whether orjson may refuse this JSON text for a number (``1e400``) or turn one of
    its integers into a float: an integer of 19 digits or more, an exponent of three."""
    marks = data.translate(_NUMBER_MARKS)
    return _LONG_RUN in marks or b"e000" in marks or b"e+000" in marks


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: ``loads_exact``'s parser, for JSON that starts inside a text and may be followed by
#: more: its ``raw_decode`` says where the value ended.
EXACT_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def loads_exact(data: bytes | str) -> Any:
    """Parse with the standard library: exact integers, ``1e400`` as infinity,
    lone surrogates kept. ``NaN`` and ``Infinity`` literals (not JSON) and
    invalid UTF-8 raise ``ValueError``; too deep nesting raises ``RecursionError``."""
    if not isinstance(data, str):
        # UTF-8 only (after a byte order mark, if any): given bytes, the standard library
        # would also read UTF-16 and UTF-32, and surrogates encoded in UTF-8.
        data = data.decode("utf-8-sig")
    return json.loads(data, parse_constant=_refuse_constant)


def dumps_any(value: Any, *, option: int = 0) -> bytes:
    """orjson's ``dumps``, falling back to the standard library for what orjson
    cannot write (lone surrogates, deep nesting). The fallback escapes every
    non-ASCII character, so its output is exact and valid UTF-8; a non-finite
    number becomes ``null``, as orjson writes it."""
    import orjson  # here: format modules import this module, and --version loads them

    try:
        return orjson.dumps(value, option=option)
    except (TypeError, orjson.JSONEncodeError):
        text = json.dumps(
            _finite(value),
            ensure_ascii=True,
            allow_nan=False,
            sort_keys=bool(option & orjson.OPT_SORT_KEYS),
            indent=2 if option & orjson.OPT_INDENT_2 else None,
            separators=None if option & orjson.OPT_INDENT_2 else (",", ":"),
            default=str,
        )
        return text.encode("ascii") + (b"\n" if option & orjson.OPT_APPEND_NEWLINE else b"")


def _finite(value: Any) -> Any:
    """``value`` with every infinite or NaN float replaced by None (iteratively)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, (dict, list, tuple)):
        return value
    root: Any = dict(value) if isinstance(value, dict) else list(value)
    pending = [root]
    while pending:
        node = pending.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, item in list(items):
            if isinstance(item, float) and not math.isfinite(item):
                node[key] = None
            elif isinstance(item, (dict, list, tuple)):
                node[key] = dict(item) if isinstance(item, dict) else list(item)
                pending.append(node[key])
    return root


def canonical(value: Any) -> bytes | None:
    """Sorted-key JSON of ``value`` (to compare or digest it), or None if it cannot be written."""
    import orjson

    try:
        return dumps_any(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except (ValueError, RecursionError):
        return None
