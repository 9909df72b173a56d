"""``pattern`` in deep mode: ECMA-262 syntax and meaning, matched by a linear-time engine.

A pattern the engine can take is checked exactly as ECMA-262 (with JSON Schema's Unicode
semantics) says; one it cannot take is left unchecked and reported by
``inspect_parameters(...).bad_patterns``; never a guess.
"""

from __future__ import annotations

import json

import pytest

from toolaudit import SchemaError, validate_tool_call
from toolaudit.deep import inspect_parameters

TOOL = "t"


def parameters_of(pattern, **extra):
    spec = {"type": "string", "pattern": pattern, **extra}
    return {"type": "object", "properties": {"x": spec}, "required": ["x"]}


def errors(pattern, value, **extra):
    schemas = {TOOL: {"parameters": parameters_of(pattern, **extra)}}
    result = validate_tool_call(schemas, {"name": TOOL, "arguments": {"x": value}}, deep=True)
    return result["errors"]


def bad_patterns(pattern):
    return inspect_parameters(TOOL, parameters_of(pattern)).bad_patterns


def assert_checked(pattern, value, matches):
    assert bad_patterns(pattern) == [], pattern
    assert errors(pattern, value) == ([] if matches else ["constraint:x"])


# ECMA-262 WhiteSpace and LineTerminator: what \s matches.
ECMA_SPACES = [
    "\t",
    "\n",
    "\v",
    "\f",
    "\r",
    " ",
    "\u00a0",
    "\u1680",
    "\u2000",
    "\u2005",
    "\u200a",
    "\u2028",
    "\u2029",
    "\u202f",
    "\u205f",
    "\u3000",
    "\ufeff",
]
# Not ECMA-262 whitespace (some are for Python's re or for Unicode's White_Space).
NOT_SPACES = ["\u0085", "\u0001", "\u001c", "\u001f", "\u200b", "\u2013", "a", "\u180e"]


@pytest.mark.parametrize("char", ECMA_SPACES)
def test_s_matches_every_ecma_space(char):
    assert_checked("^\\s$", char, True)
    assert_checked("^\\S$", char, False)
    assert_checked("^[\\s]$", char, True)
    assert_checked("^[^\\s]$", char, False)
    assert_checked("^[a\\s]$", char, True)


@pytest.mark.parametrize("char", NOT_SPACES)
def test_s_matches_nothing_else(char):
    assert_checked("^\\s$", char, False)
    assert_checked("^\\S$", char, True)
    assert_checked("^[\\s]$", char, False)
    assert_checked("^[^\\s]$", char, True)


CASES = [
    # \d \w \b are ASCII
    ("^\\d$", "0", True),
    ("^\\d$", "\u07c0", False),
    ("^\\d+$", "\u09ea\u09e8", False),
    ("^\\d$", "\u0663", False),
    ("^\\d$", "\uff11", False),
    ("^\\D$", "\u07c0", True),
    ("^\\D$", "5", False),
    ("^[\\d]$", "\u0663", False),
    ("^[^\\d]$", "\u0663", True),
    ("^[\\D]$", "\u0663", True),
    ("^\\w$", "a", True),
    ("^\\w$", "_", True),
    ("^\\w$", "Z", True),
    ("^\\w$", "\u00e9", False),
    ("^\\w$", "\u212a", False),
    ("^\\W$", "\u00e9", True),
    ("^[\\w]$", "\u00e9", False),
    ("^[\\w-]+$", "a-b_9", True),
    ("^[^\\w]$", "\u00e9", True),
    ("\\bfoo\\b", "a foo b", True),
    ("\\bfoo\\b", "afoob", False),
    ("\\bfoo", "\u00e9foo", True),
    ("\\b\u00e9", "\u00e9", False),
    ("\\Bfoo", "afoo", True),
    ("\\Bfoo", "foo", False),
    # . is any code point but the line terminators
    ("^.$", "\n", False),
    ("^.$", "\r", False),
    ("^.$", "\u2028", False),
    ("^.$", "\u2029", False),
    ("^.$", "\u0085", True),
    ("^.$", "\t", True),
    ("^.$", "\u00e9", True),
    ("^.$", "\U0001f600", True),
    ("^..$", "\U0001f600", False),
    ("^[^a]$", "\U0001f600", True),
    ("^\U0001f432*$", "\U0001f432\U0001f432", True),
    ("^\U0001f432*$", "\U0001f432\U0001f433", False),
    ("^[.]$", "a", False),
    ("^[.]$", ".", True),
    # ^ and $ are the ends of the input (no multiline flag)
    ("^abc$", "abc\n", False),
    ("^abc$", "\nabc", False),
    ("abc$", "xabc", True),
    ("^b", "ab", False),
    ("^b", "a\nb", False),
    ("a$", "a\nb", False),
    # escapes
    ("^\\t$", "\t", True),
    ("^\\t$", "\\t", False),
    ("^\\n$", "\n", True),
    ("^\\v$", "\v", True),
    ("^\\f$", "\f", True),
    ("^\\r$", "\r", True),
    ("^\\0$", "\0", True),
    ("^\\cC$", "\x03", True),
    ("^\\cc$", "\x03", True),
    ("^\\cJ$", "\n", True),
    ("^\\cC$", "\\cC", False),
    ("^\\x41$", "A", True),
    ("^\\x41$", "x41", False),
    ("^\\u0041$", "A", True),
    ("^\\u00e9$", "\u00e9", True),
    ("^\\u00E9$", "\u00e9", True),
    ("^[\\u0061-\\u0063]+$", "abc", True),
    ("^[\\u0061-\\u0063]+$", "abd", False),
    ("^[\\x41-\\x43]$", "B", True),
    ("^\\/$", "/", True),
    ("^\\.$", "a", False),
    ("^\\.$", ".", True),
    ("^\\$$", "$", True),
    ("^\\^$", "^", True),
    ("^\\\\$", "\\", True),
    ("^[\\b]$", "\b", True),
    ("^[\\b]$", "b", False),
    ("^[\\]]$", "]", True),
    ("^[\\^]$", "^", True),
    ("^[a\\-z]$", "-", True),
    ("^[a\\-z]$", "m", False),
    ("^[\\t]$", "\t", True),
    ("^[\\n\\r]+$", "\r\n", True),
    ("^[\\/]$", "/", True),
    # classes
    ("^[a-z]+$", "abc", True),
    ("^[a-z]+$", "ab\u00e9", False),
    ("^[^a-z]$", "\u00e9", True),
    ("^[^a-z]$", "\n", True),
    ("^[a-z0-9]{3}$", "a1b", True),
    # groups and quantifiers
    ("^(?:ab)+$", "abab", True),
    ("^(?:ab)+$", "aba", False),
    ("^(a|b)*$", "abba", True),
    ("^(?<year>\\d{4})-(?<month>\\d{2})$", "2024-05", True),
    ("^(?<year>\\d{4})$", "20245", False),
    ("^a{2}$", "aa", True),
    ("^a{2,3}$", "aaaa", False),
    ("^a{2,}$", "aaaaa", True),
    ("^a+?$", "aaa", True),
    ("^a*?b$", "aab", True),
    ("^ab?c$", "ac", True),
    # literal and case-sensitive
    ("^\u00e9+$", "\u00e9\u00e9", True),
    ("^abc$", "ABC", False),
    ("^\u00c9COLE$", "\u00e9cole", False),
    ("a.c", "xxabcxx", True),
]


@pytest.mark.parametrize(("pattern", "value", "matches"), CASES)
def test_ecma_262_translation(pattern, value, matches):
    assert_checked(pattern, value, matches)


REFUSED = [
    "a(?=b)",
    "a(?!b)",
    "(?<=a)b",
    "(?<!a)b",
    "(a)\\1",
    "(a)(b)\\2",
    "(?<n>a)\\k<n>",
    "^[\\S]+$",
    "^[\\Sx]+$",
    "^[a-z\\S]$",
]


@pytest.mark.parametrize("pattern", REFUSED)
def test_a_pattern_the_engine_cannot_take_is_unchecked_and_reported(pattern):
    # "   " fails every one of these patterns as ECMA-262 reads them: unchecked, no error.
    assert errors(pattern, "   ") == []
    assert errors(pattern, "") == []
    found = bad_patterns(pattern)
    assert [p for _, p, _ in found] == [pattern]
    pointer, _, why = found[0]
    assert pointer.startswith("/properties/x")
    assert isinstance(why, str)
    assert why


def test_a_refused_pattern_leaves_the_other_constraints_checked():
    assert errors("a(?=b)", "zz", minLength=5) == ["constraint:x"]
    assert errors("a(?=b)", "zzzzz", minLength=5) == []
    schemas = {
        TOOL: {
            "parameters": {
                "type": "object",
                "properties": {
                    "x": {"type": "string", "pattern": "(a)\\1"},
                    "y": {"type": "string", "pattern": "^b"},
                },
            }
        }
    }
    call = {"name": TOOL, "arguments": {"x": "zz", "y": "zz"}}
    assert validate_tool_call(schemas, call, deep=True)["errors"] == ["constraint:y"]


def test_bad_patterns_lists_each_refused_pattern_where_it_is():
    parameters = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "pattern": "(?=x)"},
            "b": {"type": "array", "items": {"type": "string", "pattern": "(a)\\1"}},
            "c": {"$ref": "#/$defs/C"},
            "d": {"type": "string", "pattern": "^fine$"},
        },
        "$defs": {"C": {"type": "string", "pattern": "(?<=y)z"}},
    }
    found = inspect_parameters(TOOL, parameters).bad_patterns
    assert sorted(p for _, p, _ in found) == sorted(["(?=x)", "(a)\\1", "(?<=y)z"])
    pointers = {p: pointer for pointer, p, _ in found}
    assert pointers["(?=x)"].startswith("/properties/a")
    assert pointers["(a)\\1"].startswith("/properties/b/items")
    assert pointers["(?<=y)z"].startswith("/$defs/C")
    assert inspect_parameters(TOOL, {"properties": {"d": {"pattern": "^ok$"}}}).bad_patterns == []


# Patterns that may be translated or refused, but never guessed: if the pattern is taken, each
# value gets ECMA-262's verdict (Unicode mode, as JSON Schema reads patterns).
EITHER = [
    ("^\\p{L}+$", [("h\u00e9llo", True), ("123", False)]),
    ("^\\p{Letter}+$", [("h\u00e9llo", True), ("a1", False)]),
    ("^\\P{L}$", [("1", True), ("a", False)]),
    ("^\\p{Lu}$", [("\u00c9", True), ("\u00e9", False)]),
    ("^\\p{Script=Greek}+$", [("\u03b1\u03b2", True), ("ab", False)]),
    ("^\\u{1F600}$", [("\U0001f600", True), ("u", False)]),
    ("^[^]$", [("\n", True), ("ab", False)]),
    ("^a[]?$", [("a", True), ("b", False)]),
    ("^\\x{41}$", [("A", False)]),
    ("a\\z", [("az", True), ("a", False)]),
    ("\\Aa", [("xAa", True), ("a", False)]),
    ("a\\Z", [("aZ", True), ("a", False)]),
    ("^[[:alpha:]]$", [(":]", True), ("a]", True), ("a", False)]),
    ("^\\-$", [("-", True), ("a", False)]),
    ("^\\Qa\\E$", [("QaE", True), ("a", False)]),
    ("^a{,2}$", [("a{,2}", True), ("aa", False)]),
    ("^\\e$", [("e", True), ("\x1b", False)]),
]


@pytest.mark.parametrize(("pattern", "cases"), EITHER)
def test_checked_as_ecma_262_says_or_refused(pattern, cases):
    refused = bool(bad_patterns(pattern))
    for value, matches in cases:
        expected = [] if matches or refused else ["constraint:x"]
        assert errors(pattern, value) == expected, (pattern, value, refused)


def test_a_surrogate_pair_escape_is_the_character_it_encodes():
    refused = bool(bad_patterns("^\\ud83d\\ude00$"))
    assert errors("^\\ud83d\\ude00$", "\U0001f600") == []
    assert errors("^\\ud83d\\ude00$", "a") == ([] if refused else ["constraint:x"])
    assert errors("^[\\ud83d\\ude00]$", "\U0001f600") == []


def test_catastrophic_patterns_are_decided():
    assert errors("^(a+)+$", "a" * 30 + "!") == ["constraint:x"]
    assert errors("^(a|a)*$", "a" * 40 + "!") == ["constraint:x"]
    assert errors("^(a|aa)+$", "a" * 60 + "b") == ["constraint:x"]
    assert errors("^(.*a){20}$", "a" * 30) == []
    assert errors("^(\\d+)*x$", "1" * 40) == ["constraint:x"]
    assert bad_patterns("^(a+)+$") == []


def test_a_lone_surrogate_in_the_value_is_matched_not_a_crash():
    lone = json.loads('"\\ud800"')
    assert errors("^a", lone) == ["constraint:x"]
    assert errors("b", lone + "b") == []


NOT_ECMA = [
    # inline flags and Python's named groups are syntax errors in ECMA-262 (both modes)
    ("(?i)abc", "xyz"),
    ("(?s)a.b", "a\nb"),
    ("(?U)a", "b"),
    ("(?P<n>a)", "b"),
    # a property escape without braces, and a script name without Script=
    ("^\\pL$", "pL"),
    ("^\\p{Greek}$", "x"),
]


@pytest.mark.parametrize(("pattern", "value"), NOT_ECMA)
def test_syntax_that_is_not_ecma_262_is_not_guessed_at(pattern, value):
    # No reading of ECMA-262 rejects these values: an invalid pattern has no verdict, and
    # in the legacy grammar "\\pL" is the text "pL".
    assert errors(pattern, value) == []
    assert [p for _, p, _ in bad_patterns(pattern)] == [pattern]


def test_ecma_2025_modifiers_mean_what_they_say():
    # (?i:...) is ECMA-262 (2025) syntax, and RE2's meaning is the same.
    refused = bool(bad_patterns("^(?i:abc)$"))
    assert errors("^(?i:abc)$", "aBc") == []
    assert errors("^(?i:abc)$", "abd") == ([] if refused else ["constraint:x"])


def test_a_lone_surrogate_in_the_pattern_is_refused_not_a_crash():
    pattern = json.loads('"a\\ud800"')
    try:
        found = bad_patterns(pattern)
    except SchemaError:
        return
    assert [p for _, p, _ in found] == [pattern]
    assert errors(pattern, "zzz") == []


def test_groups_do_not_capture_where_only_a_match_is_asked():
    # Tracking 2,000 capture groups made a 2 KB string take 0.3 s to match (measured in
    # benchmarks/patterns.py); a match object without groups shows none were tracked.
    from toolaudit.deep.patterns import compile_pattern

    found = compile_pattern("(a)(?<n>b)(c)")("abc")
    assert found is not None and found.groups() == ()
    assert errors("^(a)(b)$", "ab") == [] and errors("^(a)(b)$", "ba") == ["constraint:x"]
    assert errors("^(?<n>a)(?<m>b)$", "ab") == [] and errors("^(?<n>a)$", "b") != []
    assert bad_patterns("(?<n>a)(?<n>b)")  # a name used twice is no ECMA-262 pattern


def test_a_pattern_past_the_length_limit_is_a_schema_defect():
    from toolaudit.deep.patterns import MAX_PATTERN_LENGTH

    assert errors("(a?)" * (MAX_PATTERN_LENGTH // 4), "a") == []  # at the limit: compiled
    with pytest.raises(SchemaError, match=f"over the {MAX_PATTERN_LENGTH:,} deep mode compiles"):
        errors("(a?)" * (MAX_PATTERN_LENGTH // 4 + 1), "a")
    # The plain contract never compiles patterns: no limit there.
    schemas = {TOOL: {"parameters": parameters_of("(a)" * 20_000)}}
    assert validate_tool_call(schemas, {"name": TOOL, "arguments": {"x": "b"}})["ok"]
