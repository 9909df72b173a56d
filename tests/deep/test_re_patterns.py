"""ECMA-262 patterns translated for Python's ``re``: each translation searches exactly as
RE2 does, and what could backtrack for long is never translated; deep mode uses it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit.deep.patterns import compile_pattern, re2_search
from toolaudit.deep.re_patterns import MOST_CHOICES, python_pattern

TRANSLATED = [
    "^[A-Z]{3}$",
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
    "^[0-9]{1,2}[A-K]$",
    "^[^@ ]+@[^@ ]+$",
    "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}",
    "^[a-z]{2}(-[A-Z]{2})?$",
    "^.{2}$",
    "^(a|b)b",
    "[^a]",
    "ab?a",
    "b$",
    "^[ab]*$",
    "^\\d+$",
    "^\\w{2,3}$",
    "^[\\d.]+x$",
    "^(?:ab|c)?d$",
    "",
    "^$",
    "a\\.b",
    "^/[a-z]/$",
]

UNTRANSLATED = [
    "^(a+)+$",  # nested repetition: exponential for a backtracking engine
    "^a*a*b",  # a repetition that may give back what the next one takes
    "[a-z]+@",  # unanchored: a search would retry the repetition at each start
    "^[a-z]+[a-z0-9]",  # the next character overlaps
    "^(ab)+$",  # a repeated group
    "^\\p{L}+$",  # Unicode properties: RE2's tables, not re's
    "^\\s$",  # ECMA-262's white space differs from re's
    "(?=a)",
    "(a)\\1",
    "^[]a]",
    "^[^]",
    "a{,3}",
    "^a+?b",  # lazy
    "x{1,1000}",
    "^[a-z]{1,10}[0-9]{1,10}[A-Z]{1,10}[a-z]{1,10}",  # too many ways to split a string
    "^\\u0041$",
    "a^b",
    "^a|b$",
    "\\bword",
]

#: Characters that tell the engines apart where they could differ: line terminators,
#: digits and letters of other scripts, astral code points, syntax characters.
ALPHABET = "abcdxyzAKZ019_-.@/ \n\r\u2028\u2029\u0663\u00e9\U0001f600T:"


@pytest.mark.parametrize("pattern", TRANSLATED)
def test_these_patterns_are_translated(pattern: str) -> None:
    assert python_pattern(pattern) is not None


@pytest.mark.parametrize("pattern", UNTRANSLATED)
def test_these_patterns_are_left_to_re2(pattern: str) -> None:
    assert python_pattern(pattern) is None


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(TRANSLATED), st.text(alphabet=ALPHABET, max_size=12))
def test_a_translation_searches_as_deep_mode_does(pattern: str, text: str) -> None:
    translated = python_pattern(pattern)
    assert translated is not None
    expected = re2_search(pattern)(text) is not None
    assert (re.search(translated, text) is not None) is expected, (pattern, text)


@pytest.mark.parametrize(
    ("pattern", "text", "matches", "raw_re_differs"),
    [
        ("^[A-Z]{3}$", "ABC\n", False, True),  # re's $ would take the newline
        ("^\\d+$", "\u0663", False, True),  # re's \d takes an Arabic-Indic digit
        ("^\\w$", "\u00e9", False, True),
        ("^.$", "\u2028", False, True),  # ECMA-262's line terminators
        ("^.$", "\U0001f600", True, False),  # one code point in both
        ("^[^@ ]+@[^@ ]+$", "a\n@b", True, False),  # a negated class takes a newline
    ],
)
def test_the_differences_between_the_engines_are_written_out(
    pattern: str, text: str, matches: bool, raw_re_differs: bool
) -> None:
    translated = python_pattern(pattern)
    assert translated is not None
    assert (re2_search(pattern)(text) is not None) is matches
    assert (re.search(translated, text) is not None) is matches
    # re on the pattern as written:
    assert ((re.search(pattern, text) is not None) is not matches) is raw_re_differs


def test_the_ways_to_split_a_string_are_bounded() -> None:
    assert python_pattern("^[a-z]{1,10}[0-9]{1,10}$") is not None
    assert MOST_CHOICES < 10 * 10 * 10 * 10


ATOMS = ["a", "b", "x", "[ab]", "[^a]", "[a-c]", ".", "\\d", "\\w", "\\.", "-", "@"]
QUANTIFIERS = ["", "", "?", "{2}", "{1,2}", "+", "*"]


@st.composite
def patterns(draw: st.DrawFn, depth: int = 2) -> str:
    """Patterns of the language the translator reads, and some just outside it."""
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        if depth and draw(st.integers(0, 4)) == 0:
            alternatives = draw(st.lists(patterns(depth=depth - 1), min_size=1, max_size=2))
            parts.append("(" + "|".join(a.strip("^$") for a in alternatives) + ")")
            parts.append(draw(st.sampled_from(["", "?", "+"])))
        else:
            parts.append(draw(st.sampled_from(ATOMS)) + draw(st.sampled_from(QUANTIFIERS)))
    return draw(st.sampled_from(["", "^"])) + "".join(parts) + draw(st.sampled_from(["", "$"]))


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(patterns(), st.lists(st.text(alphabet=ALPHABET, max_size=8), min_size=1, max_size=8))
def test_random_translations_search_as_deep_mode_does(pattern: str, texts: list[str]) -> None:
    translated = python_pattern(pattern)
    if translated is None:
        return
    search = re2_search(pattern)
    for text in texts:
        assert (re.search(translated, text) is not None) is (search(text) is not None), (
            pattern,
            translated,
            text,
        )


def test_deep_mode_searches_a_translated_pattern_with_re_and_any_other_with_re2() -> None:
    assert compile_pattern("^[A-Z]{3}$").__self__.__class__ is re.Pattern  # type: ignore[attr-defined]
    assert compile_pattern("^\\p{L}$").__self__.__class__ is not re.Pattern  # type: ignore[attr-defined]
