"""Deep mode's typed strings with a pattern, tested in C while msgspec decodes.

``msgspec.Meta(pattern=...)`` searches each string with Python's ``re``: about 3,300
instructions a string (msgspec looks ``search`` up by name, ``re`` sets up its state
and makes a match object), more than a short valid call's whole decode. Where the C
speedups are built, a string node with a pattern :mod:`toolaudit.deep.re_patterns`
translates (and no other pattern) is typed instead as a class of its own, a subclass of
the speedups' ``StringTest`` holding its one instance: msgspec, meeting a type it does
not know, decodes the JSON value and hands it to :data:`DEC_HOOK` (``typed_string``),
which tests an exact ``str`` against the node's lengths and the pattern's automaton
(:mod:`toolaudit.deep.pattern_automata`) in one pass, about 400 instructions, and gives
back that instance for a string that passes, refusing any other value. So the decoded
struct holds the instance, not the string: nothing reads a typed string's value but an
after-check, and the builder uses these types only where none does
(:mod:`toolaudit.typed.deep_arguments`: not under ``uniqueItems``), and only alone or
with ``null`` (msgspec takes no other union of a type it does not know).

Every decoder that may decode such a type is made with ``dec_hook=DEC_HOOK`` (the
tool's arguments decoder, the flat calls' union); one made without it refuses them,
which sends the call to the general path, never accepts one. Without the speedups (or
with ``TOOLAUDIT_PURE_PYTHON``) no such type is made and ``DEC_HOOK`` is None: the
pattern is msgspec's ``Meta`` as before.
"""

from __future__ import annotations

import sys
from typing import Any

from toolaudit.deep.pattern_automata import SPEEDUPS as _SPEEDUPS
from toolaudit.deep.pattern_automata import automaton

#: msgspec's ``dec_hook`` for the typed decoders (None: no typed string is made).
DEC_HOOK: Any = None if _SPEEDUPS is None else _SPEEDUPS.typed_string


def string_type(pattern: str, min_length: int | None, max_length: int | None) -> Any:
    """The type of a string of ``min_length`` to ``max_length`` code points (None: no
    limit) that deep mode's ECMA-262 ``pattern`` matches, tested by :data:`DEC_HOOK`; None
    where the speedups are not built or the pattern has no automaton."""
    if _SPEEDUPS is None:
        return None
    found = automaton(pattern)
    if found is None:
        return None
    typed: Any = type("TypedString", (_SPEEDUPS.StringTest,), {"__slots__": ()})
    typed._string_test = typed(
        _length(min_length, 0), _length(max_length, sys.maxsize), found.program()
    )
    return typed


def _length(limit: int | None, default: int) -> int:
    """A length limit as C reads it: a string holds at most sys.maxsize code points."""
    if limit is None:
        return default
    return max(0, min(int(limit), sys.maxsize))
