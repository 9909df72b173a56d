"""``pattern``: ECMA-262 regular expressions, matched in linear time with RE2.

Patterns come from schemas nobody vetted and are matched against what a model
wrote, so a backtracking engine is out: ``^(a+)+$`` on thirty ``a`` and a ``!``
would hang the audit. RE2 never backtracks (Python's ``re`` searches only the
patterns it provably matches alike in linear time, faster: :mod:`.re_patterns`).
Its syntax is close to ECMA-262's but not equal, so each pattern is translated
first, and a pattern whose
meaning RE2 cannot give exactly (a lookahead, a backreference, ``\\S`` inside a
class...) is refused with a reason: it is reported by ``toolaudit schemas``
and left unchecked, never guessed at.

Patterns are read in ECMA-262's Unicode mode (``u``), as JSON Schema asks:
they match code points, not UTF-16 halves.

Costs are bounded too: a pattern is only ever asked whether it matches, so its
groups are compiled as non-capturing (RE2 tracking 2,000 capture groups made one
2 KB string take 0.3 s, and 20,000 of them took minutes and gigabytes); RE2's
memory for a pattern is capped (:data:`RE2_MAX_MEMORY`: a larger program is
refused, and left unchecked as above); a pattern longer than
:data:`MAX_PATTERN_LENGTH` is a defect of its schema, refused before compiling.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from toolaudit.deep.re_patterns import python_pattern
from toolaudit.deep.unicode_properties import (
    BINARY_PROPERTIES,
    GENERAL_CATEGORIES,
    SCRIPTS,
    Rewrite,
)

#: A compiled pattern: its ``search`` (unanchored, as JSON Schema's ``pattern``).
Search = Callable[[str], object]

# ECMA-262's white space and line terminators (\s), written for RE2.
_ECMA_SPACE = (
    r"\t\n\x{0B}\f\r \x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}"
    r"\x{3000}\x{FEFF}"
)
# What ECMA-262's "." does not match (line terminators).
_ECMA_DOT = r"[^\n\r\x{2028}\x{2029}]"

_CLASS_ESCAPES_SAME_IN_RE2 = frozenset("dDwWbB")
_CONTROL_ESCAPES = {"t": r"\t", "n": r"\n", "v": r"\x{0B}", "f": r"\f", "r": r"\r", "0": r"\x{0}"}
_HEX = frozenset("0123456789abcdefABCDEF")


#: ECMA-262's named group, (?<name>...), which RE2 reads the same way.
_NAMED_GROUP = re.compile(r"\(\?<[A-Za-z_$][A-Za-z0-9_$]*>")


#: The longest pattern (in characters) deep mode compiles: compiling costs more than
#: linear time in the length (120,000 characters of groups took 2 s), and no real
#: schema's pattern comes near it. Longer: a SchemaError, the schema's defect.
MAX_PATTERN_LENGTH = 10_000

#: RE2's memory for one pattern, its program and the cache of its DFA (RE2's default,
#: stated): a program past about two thirds of it is refused ("pattern too large").
RE2_MAX_MEMORY = 8 << 20


class UnusablePattern(ValueError):
    """The pattern cannot be matched exactly in linear time; the message says why."""


class CostlyPattern(ValueError):
    """The pattern is longer than deep mode compiles (:data:`MAX_PATTERN_LENGTH`)."""


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> Search:
    """The pattern's search function. Raises :class:`UnusablePattern`, or
    :class:`CostlyPattern` for a pattern too long to compile.

    RE2 decides whether a pattern can be used; then a pattern Python's ``re`` provably
    matches alike in linear time (:mod:`toolaudit.deep.re_patterns`: ``^[A-Z]{3}$``...)
    is searched by ``re``, about 30 times faster than through RE2's binding."""
    search = re2_search(pattern)
    translated = python_pattern(pattern)
    return search if translated is None else re.compile(translated).search


def re2_search(pattern: str) -> Search:
    """The pattern's search function by RE2 (see :func:`compile_pattern`)."""
    import re2  # here: only schemas with patterns pay for loading RE2

    if len(pattern) > MAX_PATTERN_LENGTH:
        raise CostlyPattern(
            f"is {len(pattern):,} characters long, over the {MAX_PATTERN_LENGTH:,} "
            "deep mode compiles"
        )
    translated = _translate(pattern)
    options = re2.Options()
    options.log_errors = False  # a refused pattern is reported by us, once, not logged
    # Only whether it matches is asked: groups need not capture, and tracking them
    # multiplies the cost of a match by their number.
    options.never_capture = True
    options.max_mem = RE2_MAX_MEMORY
    try:
        compiled = re2.compile(translated, options)
    except re2.error as error:
        message = error.args[0] if error.args else error
        if isinstance(message, bytes):
            message = message.decode(errors="replace")
        raise UnusablePattern(f"the regular expression engine refuses it: {message}") from None
    search: Search = compiled.search
    return search


def _translate(pattern: str) -> str:
    """ECMA-262 (Unicode mode) -> RE2, for what the two write differently."""
    if any("\ud800" <= char <= "\udfff" for char in pattern):
        raise UnusablePattern("it holds a lone surrogate, which matches no code point")
    out: list[str] = []
    names: set[str] = set()
    in_class = False
    i = 0
    n = len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            if i + 1 >= n:
                raise UnusablePattern("it ends with a lone backslash")
            escaped, i = _escape(pattern, i + 1, in_class)
            out.append(escaped)
            continue
        if in_class:
            if char == "]":
                in_class = False
            elif char == "[":
                out.append(r"\[")  # literal in ECMA-262; RE2 would read [:alpha:]
                i += 1
                continue
            out.append(char)
        elif char == "[":
            if pattern.startswith("[]", i) or pattern.startswith("[^]", i):
                raise UnusablePattern("an empty class ([] or [^]) has no RE2 form")
            in_class = True
            out.append(char)
            if pattern.startswith("[^", i):
                out.append("^")
                i += 1
        elif char == ".":
            out.append(_ECMA_DOT)
        elif char == "(" and pattern.startswith("(?", i):
            group, i = _group(pattern, i, names)
            out.append(group)
            continue
        else:
            out.append(char)
        i += 1
    return "".join(out)


def _group(pattern: str, i: int, names: set[str]) -> tuple[str, int]:
    """The group opening with ``(?`` at ``pattern[i]`` -> (RE2, next index). A named
    group becomes non-capturing, as every group is (see compile_pattern): RE2 would
    track a named group's capture even so. ``names`` are the names seen so far."""
    if pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
        raise UnusablePattern("lookaround assertions have no linear-time match")
    named = _NAMED_GROUP.match(pattern, i)
    if named:
        if named[0] in names:
            raise UnusablePattern(f"the group name {named[0][2:]} is used twice")
        names.add(named[0])
        return "(?:", named.end()
    if not pattern.startswith("(?:", i):
        # (?i), (?s), (?P<name>...): RE2's syntax, not ECMA-262's.
        raise UnusablePattern(f"{pattern[i : i + 4]!r}... is not ECMA-262 syntax")
    return "(?:", i + 3


def _escape(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """The escape starting at ``pattern[i]`` (just after the backslash) -> (RE2, next index)."""
    char = pattern[i]
    if char == "s":
        return (_ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]"), i + 1
    if char == "S":
        if in_class:
            raise UnusablePattern(r"\S inside a class has no exact RE2 form")
        return f"[^{_ECMA_SPACE}]", i + 1
    if char in _CLASS_ESCAPES_SAME_IN_RE2:
        if char in "bB" and in_class:
            if char == "b":
                return r"\x{8}", i + 1  # [\b] is a backspace
            raise UnusablePattern(r"\B inside a class is not valid")
        return "\\" + char, i + 1
    if char in _CONTROL_ESCAPES:
        if char == "0" and i + 1 < len(pattern) and pattern[i + 1].isdigit():
            raise UnusablePattern("octal escapes are not valid in Unicode mode")
        return _CONTROL_ESCAPES[char], i + 1
    if char == "c":
        if i + 1 < len(pattern) and pattern[i + 1].isascii() and pattern[i + 1].isalpha():
            return f"\\x{{{ord(pattern[i + 1]) % 32:X}}}", i + 2
        raise UnusablePattern(r"\c must be followed by a letter")
    if char == "x":
        digits = pattern[i + 1 : i + 3]
        if len(digits) == 2 and set(digits) <= _HEX:
            return f"\\x{{{digits}}}", i + 3
        raise UnusablePattern(r"\x must be followed by two hexadecimal digits")
    if char == "u":
        if pattern.startswith("{", i + 1):
            end = pattern.find("}", i + 2)
            digits = pattern[i + 2 : end] if end > 0 else ""
            if digits and set(digits) <= _HEX and int(digits, 16) <= 0x10FFFF:
                return f"\\x{{{digits}}}", end + 1
            raise UnusablePattern(r"\u{...} must hold a code point in hexadecimal")
        digits = pattern[i + 1 : i + 5]
        if len(digits) == 4 and set(digits) <= _HEX:
            unit = int(digits, 16)
            if 0xD800 <= unit < 0xDC00:  # a surrogate pair written as two escapes: one code point
                low = pattern[i + 5 : i + 11]
                if low[:2] == "\\u" and set(low[2:]) <= _HEX and len(low) == 6:
                    second = int(low[2:], 16)
                    if 0xDC00 <= second < 0xE000:
                        point = 0x10000 + ((unit - 0xD800) << 10) + (second - 0xDC00)
                        return f"\\x{{{point:X}}}", i + 11
            if 0xD800 <= unit < 0xE000:
                raise UnusablePattern("a lone surrogate escape matches no code point")
            return f"\\x{{{digits}}}", i + 5
        raise UnusablePattern(r"\u must be followed by four hexadecimal digits")
    if char.isdigit():
        raise UnusablePattern("backreferences have no linear-time match")
    if char == "k":
        raise UnusablePattern("named backreferences have no linear-time match")
    if char in "pP":
        return _property(pattern, i, in_class)
    if char.isascii() and not char.isalnum():
        return "\\" + char, i + 1  # an escaped syntax character: itself
    raise UnusablePattern(f"\\{char} is not a valid escape in Unicode mode")


def _property(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """``\\p{...}`` or ``\\P{...}`` at ``pattern[i]`` (the letter) -> RE2: a general
    category or binary property bare, or ``name=value`` (see :mod:`.unicode_properties`).
    What RE2 cannot match exactly (most binary properties, Script_Extensions, scripts
    newer than RE2) is refused, naming the property."""
    letter = pattern[i]
    if not pattern.startswith("{", i + 1) or (end := pattern.find("}", i + 2)) < 0:
        raise UnusablePattern(f"\\{letter} must be followed by {{property}} in Unicode mode")
    written = f"\\{letter}{{{pattern[i + 2 : end]}}}"
    name, equals, value = pattern[i + 2 : end].partition("=")
    if not equals:
        rewrite = GENERAL_CATEGORIES.get(name) or BINARY_PROPERTIES.get(name)
        unknown = f"{written}: no general category, nor a binary property RE2 can match"
    elif name in ("gc", "General_Category"):
        rewrite = GENERAL_CATEGORIES.get(value)
        unknown = f"{written}: {value} is no General_Category value"
    elif name in ("sc", "Script"):
        rewrite = SCRIPTS.get(value)
        unknown = f"{written}: RE2 knows no script {value}"
    elif name in ("scx", "Script_Extensions"):
        raise UnusablePattern(f"{written}: RE2 knows Script only, and Script_Extensions differs")
    else:
        raise UnusablePattern(f"{written}: {name} is no property RE2 can match")
    if rewrite is None:
        raise UnusablePattern(unknown)
    return _class_of(rewrite, written, negated=letter == "P", in_class=in_class), end + 1


def _class_of(rewrite: Rewrite, written: str, negated: bool, in_class: bool) -> str:
    """A property's RE2 form where it was ``written``: a class, or items of the class
    it sits in. A complement inside a class has no RE2 form unless it is one group."""
    items = "".join(rewrite.items)
    one_group = len(rewrite.items) == 1 and items.startswith("\\p{")
    if rewrite.complemented == negated:
        return items if in_class or one_group else f"[{items}]"
    if not in_class:
        return f"[^{items}]"
    if one_group:
        return "\\P" + items[2:]
    raise UnusablePattern(f"{written} inside a class has no exact RE2 form")
