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
import re
import uuid
from decimal import Decimal, InvalidOperation
from typing import Any

from toolaudit.compiled import speedups

#: The searches of a text's numbers in C (``_text_speedups.c``): each a bit of what
#: ``number_marks`` answers in one pass; None where they were not built (the pure
#: searches below answer alike: tests/test_number_searches.py).
_TEXT_SPEEDUPS = speedups("toolaudit._text_speedups")
_NUMBER_MARKS_IN_C = _TEXT_SPEEDUPS.number_marks if _TEXT_SPEEDUPS is not None else None
_A_LONG_RUN, _AN_EXPONENT, _A_TINY_EXPONENT = 1, 2, 4
#: ``number_marks`` for callers in C, and the bits of its answer that
#: :func:`orjson_may_differ` tests.
NUMBER_MARKS_IN_C = _NUMBER_MARKS_IN_C
ORJSON_MAY_DIFFER_MARKS = _A_LONG_RUN | _AN_EXPONENT

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
    if _NUMBER_MARKS_IN_C is not None:
        return bool(_NUMBER_MARKS_IN_C(data) & _A_LONG_RUN)
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
    if _NUMBER_MARKS_IN_C is not None:
        return bool(_NUMBER_MARKS_IN_C(data) & (_A_LONG_RUN | _AN_EXPONENT))
    marks = data.translate(_NUMBER_MARKS)
    return _LONG_RUN in marks or b"e000" in marks or b"e+000" in marks


#: How many "e-" a text may hold before :func:`may_hold_tiny_numbers` looks at every
#: number of it at once, rather than at each "e-" in turn (words such as "claude-").
_MARKS_LOOKED_AT = 8


def may_hold_tiny_numbers(data: bytes | str) -> bool:
    """Whether this JSON text may hold a number below a double's range (``1e-400``, which
    orjson reads as 0 without a word): an exponent of a minus sign and three digits or
    more, after a digit, as every exponent of a JSON number is. An "e-" in a word
    (``claude-sonnet``) is no such exponent."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if _TEXT_SPEEDUPS is not None:
        found: bool = _TEXT_SPEEDUPS.tiny_numbers(data)
        return found
    looked_at = 0
    for mark in (b"e-", b"E-"):
        at = data.find(mark, 1)
        while at > 0:
            looked_at += 1
            if looked_at > _MARKS_LOOKED_AT:
                return may_hold_numbers_beyond_a_double(data)
            exponent = data[at + 2 : at + 5]
            if 48 <= data[at - 1] <= 57 and len(exponent) == 3 and exponent.isdigit():
                return True
            at = data.find(mark, at + 2)
    return False


def may_be_misread_by_orjson(data: bytes | str) -> bool:
    """Whether orjson may read a number of this JSON text otherwise than the exact parse
    without a word: :func:`may_hold_long_integers` or :func:`may_hold_tiny_numbers`, as
    the general reader asks of every line and ``judge_apart`` of a call's arguments, in
    one pass where the C searches are built."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if _NUMBER_MARKS_IN_C is not None:
        return bool(_NUMBER_MARKS_IN_C(data) & (_A_LONG_RUN | _A_TINY_EXPONENT))
    return may_hold_long_integers(data) or may_hold_tiny_numbers(data)


def may_hold_numbers_beyond_a_double(data: bytes | str) -> bool:
    """Whether this JSON text may hold a number past a double's range: an exponent of
    three digits. orjson refuses ``1e400`` but reads ``1e-400`` as 0.0 without a word,
    which can make a call pass (``multipleOf``): only an exact parse can tell."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if _NUMBER_MARKS_IN_C is not None:
        return bool(_NUMBER_MARKS_IN_C(data) & _AN_EXPONENT)
    marks = data.translate(_NUMBER_MARKS)
    return b"e000" in marks or b"e+000" in marks


#: A run of this many digits may belong to a number the exact parse refuses though its
#: exponent has three digits or fewer: over MAX_NUMBER_DIGITS digits in its integer part,
#: fraction and exponent (one of the first two then holds 4,999 of them), or a power of ten
#: past 1e±MAX_NUMBER_EXPONENT (9,001 digits before the point, or zeros after it).
LONG_DIGITS = 2_500

# Digits as "0", "e"/"E" as "e", the signs as themselves, a byte that may end a number in
# JSON as ";" (",", "]", "}" and whitespace), any other byte as " ".
_MISREAD_MARKS = bytes(
    48
    if 48 <= byte <= 57
    else 101
    if byte in b"eE"
    else byte
    if byte in b"+-"
    else 59
    if byte in b",]} \t\r\n"
    else 32
    for byte in range(256)
)
_EXPONENT_PAST_EXACT = re.compile(rb"0e[+-]?0000+(?:;|\Z)")


def may_hold_misread_numbers(data: bytes) -> bool:
    """Whether a typed decode (msgspec) may read a number of this JSON text otherwise than
    the exact parse, in a field it reads or one it skips, as the typed readers ask of every
    line: an exponent after a digit of a minus sign and three digits or more (below a
    double's range, read as 0), or of four digits or more, a sign or not, ending the number
    (``1e999999``, ``100e9999``: past 1e±MAX_NUMBER_EXPONENT, skipped by msgspec without a
    word where the exact parse refuses the line); or a run of LONG_DIGITS digits. So also
    ``1e0400`` and ``1e-400``, which the exact parse reads: the general path reads them
    alike. An id's ``3e1234a`` is no number."""
    if _TEXT_SPEEDUPS is not None:
        found: bool = _TEXT_SPEEDUPS.misread_numbers(data)
        return found
    marks = data.translate(_MISREAD_MARKS)
    if b"0e-000" in marks or b"0" * LONG_DIGITS in marks:
        return True
    return (b"e0000" in marks or b"e+0000" in marks) and (
        _EXPONENT_PAST_EXACT.search(marks) is not None
    )


def opening_brackets(data: bytes) -> int:
    """How many arrays and objects a JSON text may open (its ``[`` and ``{``): no more
    than that can it nest."""
    if _TEXT_SPEEDUPS is not None:
        count: int = _TEXT_SPEEDUPS.opening_brackets(data)
        return count
    return data.count(b"[") + data.count(b"{")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class BeyondExactReading(ValueError):
    """A number in valid JSON past what is read exactly (its digits or its exponent)."""


def is_beyond_exact_reading(error: BaseException) -> bool:
    """Whether ``loads_exact`` refused valid JSON for a number it does not read exactly."""
    return isinstance(error, BeyondExactReading)


#: The most digits a number may have and still be read exactly, beyond what a double or
#: Python's own ``int`` parsing (4,300 digits) takes: more is refused with a reason.
#: Converting digits to an integer costs time quadratic in their count (4 ms at 10,000).
MAX_NUMBER_DIGITS = 10_000

#: The largest power of ten (either sign) a number beyond a double's range may have
#: and still be read exactly (``1e400``, ``1e-400``): more is refused with a reason.
MAX_NUMBER_EXPONENT = 10_000

#: Python's own limit on the digits of an integer read from text (``sys.int_info``).
_INT_DIGITS = 4_300


class ExactNumber(Decimal):
    """A JSON number beyond a double's range, read exactly (``1e400``, ``1e-400``): a
    number as a float is (its kind is "float"), compared and written by its exact value,
    never as infinity or zero. Values the audit reads are never of this type otherwise."""

    __slots__ = ()


def _exact_float(text: str) -> float | ExactNumber:
    """A JSON number with a fraction or an exponent: a float where a double holds it,
    else an ExactNumber (a double would read 1e400 as infinity and 1e-400 as zero)."""
    value = float(text)
    if value != 0.0:
        if value - value == 0.0:  # finite
            return value
    elif not text.lstrip("-").split("e")[0].split("E")[0].strip("0."):
        return value  # a zero written as one
    _check_length(text)
    try:
        exact = ExactNumber(text)
    except InvalidOperation:  # an exponent past what Decimal holds (1e999999999999999999)
        exact = None
    if exact is None or abs(exact.adjusted()) > MAX_NUMBER_EXPONENT:
        raise BeyondExactReading(
            f"the number {_abridged(text)} is beyond 1e±{MAX_NUMBER_EXPONENT}, "
            "the range read exactly"
        )
    return exact


def _exact_int(text: str) -> int:
    """A JSON integer of any length up to MAX_NUMBER_DIGITS, exactly (Decimal's conversion
    to int is not bound by Python's limit on reading integers from text)."""
    if len(text) <= _INT_DIGITS:
        return int(text)
    _check_length(text)
    return int(Decimal(text))


def _check_length(text: str) -> None:
    digits = sum(char.isdigit() for char in text)
    if digits > MAX_NUMBER_DIGITS:
        raise BeyondExactReading(
            f"the number {_abridged(text)} has {digits:,} digits, over the {MAX_NUMBER_DIGITS:,} "
            "read exactly"
        )


def _abridged(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:10]}…{text[-10:]}"


#: ``loads_exact``'s parser, for JSON that starts inside a text and may be followed by
#: more: its ``raw_decode`` says where the value ended.
EXACT_DECODER = json.JSONDecoder(
    parse_constant=_refuse_constant, parse_float=_exact_float, parse_int=_exact_int
)
_FLOATS_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_exact_float)


def loads_exact(data: bytes | str) -> Any:
    """Parse with the standard library: integers exactly (up to MAX_NUMBER_DIGITS
    digits), numbers beyond a double's range as :class:`ExactNumber` (up to
    MAX_NUMBER_EXPONENT), lone surrogates kept. ``NaN`` and ``Infinity`` literals (not
    JSON), numbers past those limits and invalid UTF-8 raise ``ValueError``; too deep
    nesting raises ``RecursionError``."""
    if not isinstance(data, str):
        # UTF-8 only (after a byte order mark, if any): given bytes, the standard library
        # would also read UTF-16 and UTF-32, and surrogates encoded in UTF-8.
        data = data.decode("utf-8-sig")
    if data.startswith("\ufeff"):  # as json.loads says it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", data, 0)
    try:
        # Integers by the standard library's own parser first: a hook costs a call each.
        return _FLOATS_DECODER.decode(data)
    except ValueError as error:
        if "integer string conversion" not in str(error):
            raise
    return EXACT_DECODER.decode(data)


def dumps_any(value: Any, *, option: int = 0) -> bytes:
    """orjson's ``dumps``, falling back to the standard library for what orjson
    cannot write (lone surrogates, deep nesting, integers beyond 64 bits, an
    :class:`ExactNumber`). The fallback escapes every non-ASCII character, so its
    output is exact and valid UTF-8; a non-finite float becomes ``null``, as orjson
    writes it, and a number read exactly is written exactly. Nesting deeper than
    the standard library's encoder recurses is written compactly, at any depth."""
    import orjson  # here: format modules import this module, and --version loads them

    try:
        return orjson.dumps(value, option=option)
    except (TypeError, orjson.JSONEncodeError):
        pass
    exact: list[str] = []
    writable = _writable(value, exact)
    sort_keys = bool(option & orjson.OPT_SORT_KEYS)
    try:
        text = json.dumps(
            writable,
            ensure_ascii=True,
            allow_nan=False,
            sort_keys=sort_keys,
            indent=2 if option & orjson.OPT_INDENT_2 else None,
            separators=None if option & orjson.OPT_INDENT_2 else (",", ":"),
            default=str,
        )
    except RecursionError:
        text = _dumps_deep(writable, sort_keys)
    if exact:
        text = _PLACEHOLDER.sub(lambda found: exact[int(found[1])], text)
    return text.encode("ascii") + (b"\n" if option & orjson.OPT_APPEND_NEWLINE else b"")


class _Written(str):
    """Text that _dumps_deep writes as it is (a bracket, a separator, a key)."""


def _dumps_deep(value: Any, sort_keys: bool) -> str:
    """Compact JSON of a value the standard library's encoder cannot write for its
    depth: iteratively, each scalar and key encoded by the standard library."""
    out: list[str] = []
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if type(item) is _Written:
            out.append(item)
        elif isinstance(item, dict):
            out.append("{")
            pending.append(_Written("}"))
            keys = sorted(item) if sort_keys else list(item)
            for i in range(len(keys) - 1, -1, -1):
                pending.append(item[keys[i]])
                key = _dumps_scalar(keys[i]) + ":"
                pending.append(_Written("," + key if i else key))
        elif isinstance(item, (list, tuple)):
            out.append("[")
            pending.append(_Written("]"))
            for i in range(len(item) - 1, -1, -1):
                pending.append(item[i])
                if i:
                    pending.append(_Written(","))
        else:
            out.append(_dumps_scalar(item))
    return "".join(out)


def _dumps_scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"), default=str)


def _writable(value: Any, exact: list[str]) -> Any:
    """``value`` as the standard library can write it (iteratively): every infinite or
    NaN float as None; each number it cannot write exactly (an ExactNumber, an integer
    over Python's digit limit) as a placeholder string holding its place in ``exact``,
    the numbers' JSON texts."""
    if not isinstance(value, (dict, list, tuple)):
        return _writable_scalar(value, exact)
    root: Any = _copied(value)
    pending = [root]
    while pending:
        node = pending.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, item in list(items):
            if isinstance(item, (dict, list, tuple)):
                node[key] = _copied(item)
                pending.append(node[key])
            elif isinstance(item, (float, int, ExactNumber)):
                node[key] = _writable_scalar(item, exact)
    return root


def _copied(node: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> dict[str, Any] | list[Any]:
    """A list, or a dict whose keys are strings as JSON writes them (``1``, ``true``,
    ``null``; any other key by ``str``), so that keys of any types sort together."""
    if not isinstance(node, dict):
        return list(node)
    if all(type(key) is str for key in node):
        return dict(node)
    return {key if type(key) is str else _key_text(key): item for key, item in node.items()}


def _key_text(key: object) -> str:
    if isinstance(key, (int, float, type(None))) and not isinstance(key, ExactNumber):
        return _dumps_scalar(key) if not isinstance(key, bool) else str(key).lower()
    return str(key)


_LONG_INT_BITS = int(_INT_DIGITS * 3.32)  # fewer bits than that: fewer digits than the limit


# A number's placeholder: a string no value holds (a NUL, written as \\u0000, and a
# random nonce), and the number's place in the list of exact numbers.
_NONCE = uuid.uuid4().hex
_PLACEHOLDER = re.compile(f'"\\\\u0000{_NONCE}:([0-9]+)"')


def _writable_scalar(value: Any, exact: list[str]) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, ExactNumber):
        number = str(value)
    elif isinstance(value, int) and value.bit_length() > _LONG_INT_BITS:
        number = str(Decimal(value))  # not bound by the digit limit, unlike str(value)
    else:
        return value
    exact.append(number)
    return f"\x00{_NONCE}:{len(exact) - 1}"


def canonical(value: Any) -> bytes | None:
    """Sorted-key JSON of ``value`` (to compare or digest it), or None if it cannot be written."""
    import orjson

    try:
        return dumps_any(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except (ValueError, RecursionError):
        return None
