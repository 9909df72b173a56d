"""ECMA-262's Unicode property escapes in deep mode's ``pattern``: every name ECMA-262 gives a
general category or a script is matched as ECMA-262 means it, by RE2; what RE2 cannot match
exactly is refused, naming the property, and so left unchecked and reported."""

from __future__ import annotations

import json

import pytest

from toolaudit import validate_tool_call
from toolaudit.deep import inspect_parameters
from toolaudit.deep.patterns import UnusablePattern, compile_pattern
from toolaudit.deep.unicode_properties import (
    BINARY_PROPERTIES,
    GENERAL_CATEGORIES,
    GENERAL_CATEGORY_ALIASES,
    SCRIPTS,
)
from toolaudit.schemas.report import inspect_schema_files

TOOL = "t"


def parameters_of(pattern):
    spec = {"type": "string", "pattern": pattern}
    return {"type": "object", "properties": {"x": spec}, "required": ["x"]}


def matches(pattern, value):
    schemas = {TOOL: {"parameters": parameters_of(pattern)}}
    assert inspect_parameters(TOOL, parameters_of(pattern)).bad_patterns == [], pattern
    result = validate_tool_call(schemas, {"name": TOOL, "arguments": {"x": value}}, deep=True)
    assert result["errors"] in ([], ["constraint:x"])
    return result["errors"] == []


# Each family of names: (pattern, a value it must match, one it must not).
MAPPED = [
    # general categories: long names, short names, their aliases, gc= and General_Category=
    ("^\\p{Letter}+$", "h\u00e9llo", "123"),
    ("^\\p{L}+$", "\u03c0", "1"),
    ("^\\p{Lowercase_Letter}+$", "h\u00e9llo", "Hello"),
    ("^\\p{Uppercase_Letter}$", "\u00c9", "\u00e9"),
    ("^\\p{General_Category=Letter}+$", "abc", "a1"),
    ("^\\p{gc=L}+$", "abc", "a_"),
    ("^\\p{gc=Decimal_Number}+$", "\u0661\u0662", "1a"),
    ("^\\p{digit}+$", "42", "4.2"),
    ("^\\p{punct}$", "!", "a"),
    ("^\\p{Combining_Mark}$", "\u0301", "a"),
    ("^\\p{cntrl}$", "\x01", " "),
    # negated, and inside a class
    ("^\\P{L}$", "1", "a"),
    ("^\\P{Letter}+$", "123", "12a"),
    ("^[\\p{Nd}_]+$", "1_2", "1-2"),
    ("^[\\p{Letter}\\p{Nd}]+$", "a1\u00e9", "a 1"),
    ("^[^\\p{L}]+$", "12", "1a"),
    ("^[\\P{Nd}]$", "a", "1"),
    # scripts: long names, ISO 15924 codes, sc= and Script=
    ("^\\p{Script=Greek}+$", "\u03b1\u03b2", "a"),
    ("^\\p{sc=Greek}$", "\u03b1", "a"),
    ("^\\p{sc=Grek}$", "\u03b1", "a"),
    ("^\\p{Script=Latn}+$", "abc", "\u03b1"),
    ("^\\p{sc=Hani}$", "\u4e2d", "a"),
    ("^\\P{sc=Latin}$", "\u03b1", "a"),
    ("^[\\p{sc=Cyrl}\\d]+$", "\u0436\u0031", "\u0436a"),
    ("^\\p{sc=Zyyy}$", "1", "a"),
    ("^\\p{sc=Qaai}$", "\u0301", "a"),
    # RE2 lacks these or gives another set: written exactly with what it has
    ("^\\p{LC}$", "a", "\u01c0"),  # U+01C0 is a letter (Lo), not cased
    ("^\\p{Cased_Letter}+$", "aB\u01c5", "a\u4e2d"),
    ("^\\P{LC}$", "\u4e2d", "a"),
    ("^[\\p{LC}\\d]+$", "a1", "a\u4e2d"),
    ("^\\p{Other}$", "\u0378", "a"),  # unassigned: ECMA-262's C holds Cn, RE2's does not
    ("^\\p{C}$", "\x01", "a"),
    ("^\\p{Unassigned}$", "\u0378", "a"),
    ("^\\P{Cn}$", "a", "\u0378"),
    ("^[\\P{Cn}]$", "a", "\u0378"),
    ("^\\p{Assigned}$", "a", "\u0378"),
    ("^\\p{sc=Unknown}$", "\u0378", "a"),
    ("^\\p{sc=Zzzz}$", "\u0378", "\u03b1"),
    ("^\\p{ASCII}+$", "a~", "\u00e9"),
    ("^\\p{AHex}+$", "0aF", "g"),
    ("^\\p{ASCII_Hex_Digit}+$", "9", "x"),
    ("^\\p{Any}$", "\U0001f600", "ab"),
]


@pytest.mark.parametrize(("pattern", "good", "bad"), MAPPED)
def test_a_property_name_is_matched_as_ecma_262_means_it(pattern, good, bad):
    assert matches(pattern, good)
    assert not matches(pattern, bad)


REFUSED = [
    # binary properties RE2 has no form of
    ("\\p{Alphabetic}", "Alphabetic"),
    ("\\p{Emoji}", "Emoji"),
    ("\\P{White_Space}", "White_Space"),
    # Script_Extensions differs from Script, which is all RE2 knows
    ("\\p{Script_Extensions=Greek}", "Script_Extensions=Greek"),
    ("\\p{scx=Grek}", "scx=Grek"),
    # a complement inside a class that is not one RE2 group
    ("[\\p{Cn}a]", "Cn"),
    ("[\\P{LC}]", "LC"),
    ("[\\p{Other}]", "Other"),
    # not ECMA-262 names, or scripts newer than RE2's Unicode data
    ("\\p{Greek}", "Greek"),
    ("\\p{gc=Greek}", "gc=Greek"),
    ("\\p{sc=Letter}", "sc=Letter"),
    ("\\p{letter}", "letter"),
    ("\\p{Block=Basic_Latin}", "Block=Basic_Latin"),
    ("\\p{sc=Garay}", "sc=Garay"),
]


@pytest.mark.parametrize(("pattern", "property_"), REFUSED)
def test_a_property_re2_cannot_match_is_refused_naming_it(pattern, property_):
    with pytest.raises(UnusablePattern, match=property_):
        compile_pattern(pattern)
    ((_, refused, why),) = inspect_parameters(TOOL, parameters_of(pattern)).bad_patterns
    assert refused == pattern and property_ in why
    # Left unchecked, as every unusable pattern: no value is rejected by it.
    call = {"name": TOOL, "arguments": {"x": "anything"}}
    schemas = {TOOL: {"parameters": parameters_of(pattern)}}
    assert validate_tool_call(schemas, call, deep=True)["errors"] == []


def test_toolaudit_schemas_reports_the_refused_property(tmp_path):
    path = tmp_path / "tools.json"
    function = {"name": TOOL, "parameters": parameters_of("^\\p{Emoji}+$")}
    path.write_text(json.dumps([{"type": "function", "function": function}]), "utf-8")
    (warning,) = inspect_schema_files(str(path)).warnings
    assert warning.code == "unusable-pattern" and "\\\\p{Emoji}" in warning.message


def _every_name():
    """Each name of the tables as ECMA-262 lets a pattern write it, with whether RE2 has
    it only as a complement (which a class can hold only negated: see REFUSED)."""
    for name, rewrite in GENERAL_CATEGORIES.items():
        for written in (name, f"gc={name}", f"General_Category={name}"):
            yield pytest.param(written, rewrite.complemented, id=written)
    for name, rewrite in SCRIPTS.items():
        for written in (f"sc={name}", f"Script={name}"):
            yield pytest.param(written, rewrite.complemented, id=written)
    for name, rewrite in BINARY_PROPERTIES.items():
        yield pytest.param(name, rewrite.complemented, id=name)


@pytest.mark.parametrize(("name", "complemented"), list(_every_name()))
def test_every_name_in_the_tables_compiles_under_re2(name, complemented):
    in_class = "P" if complemented else "p"
    for pattern in (
        f"\\p{{{name}}}",
        f"\\P{{{name}}}",
        f"[\\{in_class}{{{name}}}x]",
        f"[^\\{in_class}{{{name}}}]",
    ):
        compile_pattern(pattern)


def test_the_tables_hold_ecma_262s_names():
    # ECMA-262's General_Category table: 38 values, each short and long, and 4 more aliases.
    assert len(set(GENERAL_CATEGORY_ALIASES.values())) == 38
    assert len(GENERAL_CATEGORIES) == 38 * 2 + 4
    assert {"digit", "punct", "cntrl", "Combining_Mark"} <= set(GENERAL_CATEGORIES)
    assert GENERAL_CATEGORIES["Decimal_Number"] == GENERAL_CATEGORIES["Nd"]
    assert SCRIPTS["Grek"] == SCRIPTS["Greek"] and SCRIPTS["Qaac"] == SCRIPTS["Coptic"]
