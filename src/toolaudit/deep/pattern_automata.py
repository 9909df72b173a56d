"""A translated pattern (:mod:`toolaudit.deep.re_patterns`) as a deterministic automaton,
for the C speedups to match strings with in one pass, no ``re`` call.

Python's ``re`` costs about 2,000 instructions a search of a short string (the call, its
state, a match object made and freed) and msgspec's ``Meta(pattern=...)`` another 1,000
around it (it looks the method up by name at each value): on the nested log, more than
the rest of a valid call's decode. The patterns :func:`~toolaudit.deep.re_patterns.
python_pattern` translates are regular expressions in the strict sense (classes of code
points, bounded repetitions, one unbounded repetition of a single class, optional
groups of alternatives, ``^`` and ``$`` only at the ends), so each has a deterministic
automaton, built here once from the same items the ``re`` translation is written from:

- the *symbols* are the classes of code points no class of the pattern tells apart:
  each code point a class names (ASCII, or a line terminator of ``.``) by the set of
  classes holding it, and one more, ``other``, for every code point none names (a
  negated class holds it, a plain one does not);
- the states are sets of the positions of a Thompson automaton (subset construction);
  without ``^`` the start's positions join every step (a search tries every start);
  without ``$`` an accepting state is final (a prefix that matches is a match);
- ``-1`` is the dead state: no string going there matches.

A string matches when reading its code points, one symbol each, ends in an accepting
state: the answer of ``re.search`` with the translated pattern, which is RE2's on that
language (tests/deep/test_pattern_automata.py compares the three on random patterns
and strings). A pattern whose automaton would pass :data:`MOST_STATES` states is not
built (None): its searches stay with ``re``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from toolaudit.compiled import speedups
from toolaudit.deep.re_patterns import pattern_items

SPEEDUPS = speedups("toolaudit.deep._walk_speedups")

#: The most states an automaton is built with (each a row of one int per symbol).
MOST_STATES = 512
#: No string reaching it matches.
DEAD = -1


@dataclass(frozen=True)
class Automaton:
    """A pattern's deterministic automaton (see the module's docstring)."""

    #: The state before the first code point.
    start: int
    #: The symbol of each ASCII code point (128 bytes).
    ascii: bytes
    #: (code point, symbol) of each code point past ASCII the pattern names.
    named: tuple[tuple[int, int], ...]
    #: The symbol of every other code point.
    other: int
    #: How many symbols there are.
    symbols: int
    #: state * symbols + symbol -> the next state (DEAD: no match).
    transitions: tuple[int, ...]
    #: 1 for each accepting state, else 0.
    accepting: bytes

    def program(self) -> tuple[Any, ...]:
        """What the C speedups' ``StringTest`` is made from."""
        return (
            self.start,
            self.ascii,
            self.named,
            self.other,
            self.symbols,
            self.transitions,
            self.accepting,
        )

    def matches(self, text: str) -> bool:
        """Whether ``text`` matches (the C speedups' loop, in Python: for tests)."""
        state = self.start
        named = dict(self.named)
        for char in text:
            point = ord(char)
            symbol = self.ascii[point] if point < 128 else named.get(point, self.other)
            state = self.transitions[state * self.symbols + symbol]
            if state == DEAD:
                return False
        return bool(self.accepting[state])


def string_test(pattern: str) -> Any:
    """The speedups' ``StringTest`` of ``pattern`` alone (no length limits), which the C
    walk runs in place of the pattern's search; None without the speedups or an
    automaton (the walk calls the search)."""
    if SPEEDUPS is None:
        return None
    found = automaton(pattern)
    return None if found is None else SPEEDUPS.StringTest(0, sys.maxsize, found.program())


@lru_cache(maxsize=1024)
def automaton(pattern: str) -> Automaton | None:
    """The automaton of the ECMA-262 ``pattern`` (as deep mode reads it); None when the
    pattern is not one :mod:`toolaudit.deep.re_patterns` translates, or its automaton
    would be too large."""
    read = pattern_items(pattern)
    if read is None:
        return None
    anchored, ended, items = read
    nfa = _Thompson()
    entry = nfa.sequence(items, nfa.add(_MATCH))
    return _determinized(nfa, entry, anchored, ended)


# -- a Thompson automaton of the items ----------------------------------------------------

_CHAR, _SPLIT, _MATCH = range(3)


class _Thompson:
    """States ``(_CHAR, class, next)``, ``(_SPLIT, targets)``, ``(_MATCH,)``, built backwards
    from the state that follows."""

    def __init__(self) -> None:
        self.states: list[list[Any]] = []
        #: (code points, negated) of each class, by its number.
        self.classes: list[tuple[frozenset[str], bool]] = []

    def add(self, kind: int, *rest: Any) -> int:
        self.states.append([kind, *rest])
        return len(self.states) - 1

    def sequence(self, items: list[Any], following: int) -> int:
        for item in reversed(items):
            following = self.item(item, following)
        return following

    def item(self, item: Any, following: int) -> int:
        if item.high is None:  # a single class repeated without end (re_patterns' rule)
            loop = self.add(_SPLIT, [])
            self.states[loop][1] = [self.atom(item.atom, loop), following]
            following = loop
        else:
            for _ in range(item.high - item.low):
                following = self.add(_SPLIT, [self.atom(item.atom, following), following])
        for _ in range(item.low):
            following = self.atom(item.atom, following)
        return following

    def atom(self, atom: Any, following: int) -> int:
        if isinstance(atom, list):  # a group's alternatives
            return self.add(_SPLIT, [self.sequence(list(seq), following) for seq in atom])
        self.classes.append((atom.chars, atom.negated))
        return self.add(_CHAR, len(self.classes) - 1, following)

    def closure(self, states: set[int] | list[int]) -> frozenset[int]:
        """The _CHAR and _MATCH states reached from ``states`` without reading."""
        reached: set[int] = set()
        seen: set[int] = set()
        stack = list(states)
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            if self.states[state][0] == _SPLIT:
                stack.extend(self.states[state][1])
            else:
                reached.add(state)
        return frozenset(reached)


def _determinized(nfa: _Thompson, entry: int, anchored: bool, ended: bool) -> Automaton | None:
    ascii_symbols, named, other, members = _symbols(nfa.classes)
    symbols = len(members)
    start = nfa.closure([entry])
    # A search tries every start: without ^, the entry's closure joins each step.
    again = frozenset() if anchored else start
    numbers: dict[frozenset[int], int] = {start: 0}
    order = [start]
    rows: list[int] = []
    accepting = bytearray()
    done = 0
    while done < len(order):
        current = order[done]
        done += 1
        final = any(nfa.states[s][0] == _MATCH for s in current)
        accepting.append(final)
        for symbol in range(symbols):
            if final and not ended:
                rows.append(numbers[current])  # a match so far: every longer string matches
                continue
            following: set[int] = set()
            for state in current:
                kind, *rest = nfa.states[state]
                if kind == _CHAR and rest[0] in members[symbol]:
                    following.add(rest[1])
            after = nfa.closure(following) | again
            if not after:
                rows.append(DEAD)
                continue
            number = numbers.get(after)
            if number is None:
                if len(order) >= MOST_STATES:
                    return None
                number = numbers[after] = len(order)
                order.append(after)
            rows.append(number)
    return Automaton(0, ascii_symbols, named, other, symbols, tuple(rows), bytes(accepting))


def _symbols(
    classes: list[tuple[frozenset[str], bool]],
) -> tuple[bytes, tuple[tuple[int, int], ...], int, list[frozenset[int]]]:
    """The symbols of ``classes``: each ASCII code point's, each named one's past ASCII,
    the other code points', and the classes that hold each symbol."""
    named_points = sorted({ord(c) for chars, _ in classes for c in chars})
    signatures: dict[frozenset[int], int] = {}
    members: list[frozenset[int]] = []

    def symbol_of(point: int | None) -> int:
        held = frozenset(
            number
            for number, (chars, negated) in enumerate(classes)
            if (point is not None and chr(point) in chars) != negated
        )
        symbol = signatures.get(held)
        if symbol is None:
            symbol = signatures[held] = len(members)
            members.append(held)
        return symbol

    other = symbol_of(None)
    ascii_symbols = bytes(
        symbol_of(point) if point in named_points else other for point in range(128)
    )
    named = tuple((point, symbol_of(point)) for point in named_points if point >= 128)
    return ascii_symbols, named, other, members
