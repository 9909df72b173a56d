"""A translated pattern's automaton matches as ``re`` does with the translation (which is
deep mode's search, tests/deep/test_re_patterns.py), in Python and in C; and the C
speedups' ``StringTest`` and ``typed_string`` behave as the typed decoders rely on."""

from __future__ import annotations

import gc
import re
import sys
import weakref
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit.deep.pattern_automata import DEAD, MOST_STATES, SPEEDUPS, automaton, string_test
from toolaudit.deep.re_patterns import python_pattern

from .test_re_patterns import ALPHABET, TRANSLATED, UNTRANSLATED, patterns

#: The alphabet of test_re_patterns, with a lone surrogate (a JSON string may hold one).
TEXTS = st.text(alphabet=ALPHABET + "\ud800", max_size=12)

needs_speedups = pytest.mark.skipif(SPEEDUPS is None, reason="the C speedups are not built")


def re_says(pattern: str, text: str) -> bool:
    translated = python_pattern(pattern)
    assert translated is not None
    return re.search(translated, text) is not None


@pytest.mark.parametrize("pattern", TRANSLATED + UNTRANSLATED)
def test_exactly_the_translated_patterns_have_an_automaton(pattern: str) -> None:
    assert (automaton(pattern) is not None) is (pattern in TRANSLATED)


def test_an_automaton_past_its_most_states_is_not_built() -> None:
    # Unanchored: the automaton remembers which of the last ten characters were "a".
    assert python_pattern("a[ab]{9}$") is not None
    assert automaton("a[ab]{9}$") is None
    assert MOST_STATES < 2**10


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(TRANSLATED), TEXTS)
def test_an_automaton_matches_as_the_translation_searches(pattern: str, text: str) -> None:
    found = automaton(pattern)
    assert found is not None
    assert found.matches(text) is re_says(pattern, text), (pattern, text)
    if SPEEDUPS is not None:
        assert string_test(pattern)(text) is re_says(pattern, text), (pattern, text)


@settings(max_examples=300, deadline=None)
@given(patterns(), st.lists(TEXTS, min_size=1, max_size=8))
def test_random_automata_match_as_their_translations_search(pattern: str, texts: list[str]) -> None:
    found, test = automaton(pattern), string_test(pattern)
    assert (found is None) is (test is None) or SPEEDUPS is None
    for text in texts if found is not None else ():
        expected = re_says(pattern, text)
        assert found.matches(text) is expected, (pattern, text)
        assert test is None or test(text) is expected, (pattern, text)


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("^[A-Z]{3}$", "ABC\n", False),  # $ is the end, not before a final newline
        ("^.$", "\u2028", False),  # a line terminator
        ("^.$", "\U0001f600", True),  # one code point
        ("^[^@ ]+@[^@ ]+$", "a\n@b", True),  # a negated class takes a newline
        ("^[^a]$", "\ud800", True),  # and a lone surrogate
        ("b", "aab", True),  # unanchored: a search tries every start
        ("^a", "ab", True),  # without $, a prefix that matches is a match
        ("", "anything", True),
        ("^$", "", True),
        ("^$", "x", False),
    ],
)
def test_the_edges_of_the_language(pattern: str, text: str, matches: bool) -> None:
    found = automaton(pattern)
    assert found is not None
    assert re_says(pattern, text) is matches
    assert found.matches(text) is matches
    if SPEEDUPS is not None:
        assert string_test(pattern)(text) is matches


def test_symbols_are_shared_by_code_points_no_class_tells_apart() -> None:
    found = automaton("^[A-Z]{3}$")
    assert found is not None
    assert found.symbols == 2  # A-Z, and every other code point
    assert set(found.ascii[ord("A") : ord("Z") + 1]) == {found.ascii[ord("Q")]}
    assert found.ascii[ord("a")] == found.other
    assert DEAD in found.transitions


# -- the C side -----------------------------------------------------------------------


@needs_speedups
def test_a_string_test_checks_lengths_in_code_points_then_the_pattern() -> None:
    assert SPEEDUPS is not None
    found = automaton("^[^@ ]+@[^@ ]+$")
    assert found is not None
    test = SPEEDUPS.StringTest(4, 6, found.program())
    assert [test(text) for text in ("a@b", "ab@c", "\U0001f600@\U0001f600\U0001f600")] == [
        False,
        True,
        True,
    ]
    assert not test("abc@de1")  # 7 code points
    lengths_only = SPEEDUPS.StringTest(0, 2, None)
    assert lengths_only("é\U0001f600") and not lengths_only("abc")


def _broken_programs() -> list[Any]:
    found = automaton("^[a-z]{2}(-[A-Z]{2})?$")
    assert found is not None
    good = list(found.program())
    states = len(found.accepting)
    rows = list(found.transitions)
    return [
        (),
        tuple(good[:6]),
        tuple([states, *good[1:]]),  # start past the states
        tuple([*good[:1], b"\x00" * 127, *good[2:]]),  # ASCII symbols of the wrong length
        tuple([*good[:1], bytes([200]) * 128, *good[2:]]),  # a symbol past the symbols
        tuple([*good[:2], ((65, 0),), *good[3:]]),  # a named code point in ASCII
        tuple([*good[:2], ((0x2028, 99),), *good[3:]]),  # its symbol past the symbols
        tuple([*good[:3], 99, *good[4:]]),  # other past the symbols
        tuple([*good[:4], 0, *good[5:]]),  # no symbol
        tuple([*good[:5], tuple(rows[:-1]), good[6]]),  # a row short
        tuple([*good[:5], (states, *rows[1:]), good[6]]),  # a state past the states
        tuple([*good[:5], ("x", *rows[1:]), good[6]]),
        tuple([*good[:6], b""]),  # no state
    ]


@needs_speedups
@pytest.mark.parametrize("program", _broken_programs())
def test_a_broken_program_is_refused_when_made_never_read(program: Any) -> None:
    assert SPEEDUPS is not None
    with pytest.raises((TypeError, ValueError)):
        SPEEDUPS.StringTest(0, 10, program)


@needs_speedups
def test_typed_string_gives_the_types_one_instance_or_refuses() -> None:
    assert SPEEDUPS is not None
    found = automaton("^[A-Z]{3}$")
    assert found is not None
    typed: Any = type("TypedString", (SPEEDUPS.StringTest,), {"__slots__": ()})
    typed._string_test = typed(0, sys.maxsize, found.program())
    assert SPEEDUPS.typed_string(typed, "ZRH") is typed._string_test
    assert isinstance(typed._string_test, typed)
    for refused in ("zrh", "ZRHX", 3, None, ["ZRH"], b"ZRH"):
        with pytest.raises(ValueError):
            SPEEDUPS.typed_string(typed, refused)
    with pytest.raises(TypeError):
        SPEEDUPS.typed_string(int, "ZRH")  # a type that is no typed string
    # The type and its instance hold each other: the collector frees them.
    held = weakref.ref(typed)
    del typed
    gc.collect()
    assert held() is None
