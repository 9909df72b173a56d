"""ECMA-262 patterns that Python's ``re`` matches exactly as RE2 does (as deep mode reads
them, :mod:`toolaudit.deep.patterns`), in linear time: the few that real tools write.

RE2's binding costs about 8 us a search, ``re.search`` about 0.25 us (and msgspec's
``Meta(pattern=...)`` runs it while decoding). The two agree only on a small language,
and ``re`` backtracks, so a pattern is translated only when it is, by construction, in
that language and matched in time linear in the string (:func:`python_pattern`); any
other is searched by RE2 (and on the typed path, checked after decoding). The language:

- ``^`` only first, ``$`` only last (written ``\\A`` and ``\\Z``: ``re``'s ``$`` also
  matches before a final newline, ECMA-262's does not); no alternation outside a group;
- ASCII letters, digits and punctuation that is not syntax, as themselves; a syntax
  character escaped; ``\\d`` and ``\\w`` (ASCII in ECMA-262; written as classes, since
  ``re``'s take every script's digits and letters); ``.`` (written as the class of all
  but ECMA-262's line terminators);
- classes of those, ranges between ASCII characters, negated or not (a negated class
  takes any code point outside it in both, newlines included);
- groups (capturing or not) holding alternatives of the same, quantified by ``?`` alone;
- quantifiers ``?``, ``{n}``, ``{n,m}`` (m at most :data:`MOST_REPEATS`) on anything,
  ``*``, ``+``, ``{n,}`` on a single character outside groups only.

Linear time: without a ``^``, a pattern with ``*``, ``+`` or ``{n,}`` is refused (a
search would retry it at each start); with one, each such repetition must be followed
by the end or by a required character it cannot take, so that giving back a character
fails at once: backtracking then costs a constant per character.
"""

from __future__ import annotations

import string

#: The largest bounded repetition translated (``{1,100}``).
MOST_REPEATS = 100

#: The most ways a pattern's bounded repetitions and optional groups may split one
#: string (the product of their choices): what a backtracking match may retry at a start.
MOST_CHOICES = 1_000

_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_PLAIN = frozenset(string.ascii_letters + string.digits + " !\"#%&',-/:;<=>@_`~")
_CLASS_PLAIN = (_PLAIN | frozenset("$.*+?(){}|")) - frozenset("-")
_DIGITS = frozenset(string.digits)
_WORD = frozenset(string.ascii_letters + string.digits + "_")
_LINE_TERMINATORS = frozenset("\n\r\u2028\u2029")


class _Untranslatable(Exception):
    """The pattern is outside the language above."""


class _Char:
    """One character of the string: a set of code points (``negated``: all but them)."""

    __slots__ = ("chars", "negated")

    def __init__(self, chars: frozenset[str], negated: bool = False) -> None:
        self.chars = chars
        self.negated = negated

    def disjoint(self, other: _Char) -> bool:
        if self.negated and other.negated:
            return False
        if self.negated:
            return other.chars <= self.chars
        if other.negated:
            return self.chars <= other.chars
        return not self.chars & other.chars

    def python(self) -> str:
        members = "".join(
            f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" for c in sorted(self.chars)
        )
        return f"[{'^' if self.negated else ''}{members}]"


class _Item:
    """An atom with its repetition: ``low`` to ``high`` times (None: unbounded)."""

    __slots__ = ("atom", "high", "low")

    def __init__(self, atom: _Char | list[list[_Item]], low: int = 1, high: int | None = 1):
        self.atom = atom
        self.low = low
        self.high = high

    def python(self) -> str:
        if isinstance(self.atom, _Char):
            text = self.atom.python()
        else:
            text = "(?:" + "|".join("".join(i.python() for i in seq) for seq in self.atom) + ")"
        if (self.low, self.high) == (1, 1):
            return text
        high = "" if self.high is None else str(self.high)
        return f"{text}{{{self.low},{high}}}"


def python_pattern(pattern: str) -> str | None:
    """The ``re`` pattern that searches exactly as deep mode's ECMA-262 ``pattern`` does,
    in linear time; None when the pattern is outside the language this module reads."""
    read = pattern_items(pattern)
    if read is None:
        return None
    start, end, items = read
    body = "".join(item.python() for item in items)
    return ("\\A" if start else "") + body + ("\\Z" if end else "")


def pattern_items(pattern: str) -> tuple[bool, bool, list[_Item]] | None:
    """The pattern as :func:`python_pattern` reads it: whether it starts with ``^``,
    whether it ends with ``$``, and its items (what :mod:`toolaudit.deep.pattern_automata`
    builds its automaton from); None when it is outside the language."""
    try:
        return _Parser(pattern).read()
    except _Untranslatable:
        return None


class _Parser:
    __slots__ = ("at", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def read(self) -> tuple[bool, bool, list[_Item]]:
        text = self.text
        start = text.startswith("^")
        end = text.endswith("$") and not text.endswith("\\$")
        self.at = 1 if start else 0
        stop = len(text) - 1 if end else len(text)
        if end and stop < self.at:
            raise _Untranslatable
        items = self.sequence(stop, top=True)
        if self.at != stop:
            raise _Untranslatable
        _check_linear(items, start)
        return start, end, items

    def sequence(self, stop: int, *, top: bool) -> list[_Item]:
        items: list[_Item] = []
        text = self.text
        while self.at < stop and text[self.at] not in "|)":
            atom = self.atom(stop)
            items.append(self.quantified(atom, stop, top=top))
        return items

    def atom(self, stop: int) -> _Char | list[list[_Item]]:
        text = self.text
        char = text[self.at]
        self.at += 1
        if char in _PLAIN:
            return _Char(frozenset(char))
        if char == ".":
            return _Char(_LINE_TERMINATORS, negated=True)
        if char == "\\":
            return _Char(self.escape(stop, in_class=False))
        if char == "[":
            return self.char_class(stop)
        if char == "(":
            if text.startswith("?:", self.at):
                self.at += 2
            alternatives = [self.sequence(stop, top=False)]
            while self.at < stop and text[self.at] == "|":
                self.at += 1
                alternatives.append(self.sequence(stop, top=False))
            if self.at >= stop or text[self.at] != ")":
                raise _Untranslatable
            self.at += 1
            return alternatives
        raise _Untranslatable

    def escape(self, stop: int, *, in_class: bool) -> frozenset[str]:
        if self.at >= stop:
            raise _Untranslatable
        char = self.text[self.at]
        self.at += 1
        if char == "d":
            return _DIGITS
        if char == "w":
            return _WORD
        if char in _SYNTAX or (in_class and char == "-"):
            return frozenset(char)
        raise _Untranslatable

    def char_class(self, stop: int) -> _Char:
        text = self.text
        negated = text.startswith("^", self.at)
        self.at += negated
        chars: set[str] = set()
        first = True
        while True:
            if self.at >= stop:
                raise _Untranslatable
            char = text[self.at]
            if char == "]" and not first:
                self.at += 1
                return _Char(frozenset(chars), negated)
            first = False
            low = self.class_member(stop)
            if (
                len(low) == 1
                and text.startswith("-", self.at)
                and text[self.at + 1 : self.at + 2] not in ("]", "")
            ):
                self.at += 1
                high = self.class_member(stop)
                if len(high) != 1 or min(high) < min(low):
                    raise _Untranslatable
                chars.update(chr(c) for c in range(ord(min(low)), ord(min(high)) + 1))
            else:
                chars.update(low)

    def class_member(self, stop: int) -> frozenset[str]:
        char = self.text[self.at]
        self.at += 1
        if char == "\\":
            return self.escape(stop, in_class=True)
        if char in _CLASS_PLAIN or char == "-":
            return frozenset(char)
        raise _Untranslatable

    def quantified(self, atom: _Char | list[list[_Item]], stop: int, *, top: bool) -> _Item:
        text = self.text
        if self.at >= stop or text[self.at] not in "?*+{":
            return _Item(atom)
        char = text[self.at]
        self.at += 1
        if char == "?":
            low, high = 0, 1
        elif char == "*":
            low, high = 0, None
        elif char == "+":
            low, high = 1, None
        else:
            low, high = self.braces(stop)
        if self.at < stop and text[self.at] in "?*+{":
            raise _Untranslatable  # lazy or possessive forms, or a quantified quantifier
        single = isinstance(atom, _Char)
        if high is None and not (single and top):
            raise _Untranslatable
        if not single and (low, high) != (0, 1):
            raise _Untranslatable
        return _Item(atom, low, high)

    def braces(self, stop: int) -> tuple[int, int | None]:
        text = self.text
        close = text.find("}", self.at, stop)
        if close < 0:
            raise _Untranslatable
        inside = text[self.at : close]
        self.at = close + 1
        low_text, comma, high_text = inside.partition(",")
        if not low_text.isdecimal() or not low_text.isascii():
            raise _Untranslatable
        low = int(low_text)
        if not comma:
            high: int | None = low
        elif not high_text:
            high = None
        elif high_text.isdecimal() and high_text.isascii():
            high = int(high_text)
        else:
            raise _Untranslatable
        if low > MOST_REPEATS or (high is not None and (high > MOST_REPEATS or high < low)):
            raise _Untranslatable
        return low, high


def _choices(items: list[_Item]) -> int:
    """How many ways the bounded repetitions and groups of ``items`` may split a string."""
    ways = 1
    for item in items:
        if isinstance(item.atom, _Char):
            ways *= 1 if item.high is None else item.high - item.low + 1
        else:
            ways *= (item.high or 1) * sum(_choices(seq) for seq in item.atom)
        if ways > MOST_CHOICES:
            raise _Untranslatable
    return ways


def _check_linear(items: list[_Item], anchored: bool) -> None:
    """Refuse what ``re`` might match in more than linear time (see the module's doc)."""
    _choices(items)
    for index, item in enumerate(items):
        if item.high is not None:
            continue
        if not anchored:
            raise _Untranslatable
        assert isinstance(item.atom, _Char)
        if index + 1 == len(items):
            continue  # followed by the end (or by \Z)
        following = items[index + 1]
        if not (
            isinstance(following.atom, _Char)
            and following.low >= 1
            and item.atom.disjoint(following.atom)
        ):
            raise _Untranslatable
