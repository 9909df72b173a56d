"""``--match bfcl`` on prompt-mode output: BFCL's decoding of text such as
``"[math.factorial(number=5)]"``, one rule each, and its scoring (docs/evaluation.md,
"BFCL's semantics (--match bfcl)"). The round trip against BFCL's own score files:
test_bfcl_reproduce.py."""

from __future__ import annotations

from typing import Any

import pytest

from toolaudit.truth.bfcl import UNSUPPORTED_DECODE, relevance_expected, score_bfcl
from toolaudit.truth.bfcl_prompt import DecoderError, UnsupportedDecode, decode_prompt
from toolaudit.truth.entries import Expected, ExpectedCall, bfcl_accept


@pytest.mark.parametrize(
    ("text", "decoded"),
    [
        ("[f(xs=[1, 2.5, 'a', None, True])]", [{"f": {"xs": [1, 2.5, "a", None, True]}}]),
        ("[math.stats.mean(n=5)]", [{"math.stats.mean": {"n": 5}}]),
        ("[f(d={'k': [{'j': -1}]}, n=-2.5)]", [{"f": {"d": {"k": [{"j": -1}]}, "n": -2.5}}]),
        ("[f(t=(1, (2, 'x')))]", [{"f": {"t": (1, (2, "x"))}}]),
        ("[f(a=1), g(b='x')]", [{"f": {"a": 1}}, {"g": {"b": "x"}}]),
        # Not literals: a name is its text, a call without keywords its source, a call
        # with keywords a nested call, a subscript its source with the slice unparsed.
        ("[f(x=city)]", [{"f": {"x": "city"}}]),
        ('[f(x=g( 1,"a" ))]', [{"f": {"x": "g(1, 'a')"}}]),
        ("[f(x=g(k=1))]", [{"f": {"x": {"g": {"k": 1}}}}]),
        ("[f(x=a[1, 2])]", [{"f": {"x": "a[(1, 2)]"}}]),
        ("[f(x=...)]", [{"f": {"x": "..."}}]),
        # Positional arguments are dropped; a repeated keyword keeps its last value.
        ("[f(1, 'two', x=3)]", [{"f": {"x": 3}}]),
        ("[f(x=1, x=2)]", [{"f": {"x": 2}}]),
        # BFCL negates the operand of any unary operator, but evaluates arithmetic as Python.
        ("[f(a=+5, b=~1, c=not True)]", [{"f": {"a": -5, "b": -1, "c": -1}}]),
        (
            "[f(a=+5 + 0, b=2 * 3 - 1, c='ab' * 2, d=[1] + [2], e=7 / 2)]",
            [{"f": {"a": 5, "b": 5, "c": "abab", "d": [1, 2], "e": 3.5}}],
        ),
        # Missing brackets are added; backticks, newlines and spaces stripped from the ends.
        ("f(a=1)", [{"f": {"a": 1}}]),
        ("```\n[f(a=1)]\n```", [{"f": {"a": 1}}]),
        (" \n[f(a=1)]\n ", [{"f": {"a": 1}}]),
        ("", []),
        ("[]", []),
        # The function's name: attributes only when the chain does not start with a name.
        ("[x[0].f(a=1)]", [{"f": {"a": 1}}]),
        ("[f(**{'a': 1})]", [{"f": {None: {"a": 1}}}]),
    ],
)
def test_decoded_as_bfcl_decodes_prompt_output(text: str, decoded: list[Any]) -> None:
    assert repr(decode_prompt(text, "python")) == repr(decoded)  # types too: -1 is not True


@pytest.mark.parametrize(
    "text",
    [
        "I cannot help with that.",
        "[hello]",  # a list, but not of calls
        "[f(a=1), 3]",
        "[f(a=1)], [g(b=2)]",
        "```python\n[f(a=1)]\n```",  # the language tag is left in: not Python
        "[f(a=1)]<end_of_turn>",  # BFCL strips no end-of-turn marker
        "[f(a=1)]\t",  # nor a tab
        "[x for x in y]",
        "[f(a=math.pi)]",  # an attribute is not read
        "[f(a={1, 2})]",
        "[f(a=lambda: 1)]",
        "[f(a=f'{x}')]",
        "[f(a=-x)]",
        "[f(a=-'x')]",
        "[f(a=1 / 0)]",
        "[f(a=x + 1)]",  # BFCL evaluates it: x is not defined
        "[f(a={[1]: 2})]",
        "[f(a=2 ** 10 ** 10)]",  # refused here, where BFCL would compute it
        "[f(a='%*d' % (10, 1))]",
        "[f(a=" + "[" * 500 + "]" * 500 + ")]",  # past the parser's nesting limit
        "[f(a=" + "+".join(["1"] * 2000) + ")]",  # past the recursion limit
    ],
)
def test_what_bfcl_cannot_decode_is_a_decoder_error(text: str) -> None:
    with pytest.raises(DecoderError):
        decode_prompt(text, "python")


def test_java_and_javascript_prompt_output_is_not_decoded() -> None:
    for language in ("java", "javascript"):
        with pytest.raises(UnsupportedDecode, match="tree-sitter"):
            decode_prompt("[f(a=1)]", language)
    expected = _expected({"f": {"a": ["1"]}}, "simple_java")
    score = score_bfcl(expected, "[f(a=1)]", [_function("f", a="integer")])
    assert (score.correct, score.outcome, score.bfcl_error_type) == (
        False,
        "unparseable",
        UNSUPPORTED_DECODE,
    )


def _function(name: str, **types: str) -> dict[str, Any]:
    properties = {p: {"type": t} for p, t in types.items()}
    return {"name": name, "parameters": {"type": "dict", "properties": properties, "required": []}}


def _expected(call: dict[str, dict[str, list[Any]]], category: str = "simple_python") -> Expected:
    calls = tuple(
        ExpectedCall(name, {p: bfcl_accept(v) for p, v in params.items()})
        for name, params in call.items()
    )
    return Expected(f"{category}_0", calls, "any", category, "bfcl")


def test_prompt_output_goes_through_the_same_checker() -> None:
    f = _function("math.factorial", number="integer")
    expected = _expected({"math.factorial": {"number": [5]}})
    assert score_bfcl(expected, "[math.factorial(number=5)]", [f]).correct
    wrong = score_bfcl(expected, "[math.factorial(number='5')]", [f])
    assert (wrong.outcome, wrong.bfcl_error_type) == ("incorrect", "type_error:simple")
    # Prompt-mode models give dotted names: underscores are not guessed for them.
    underscored = score_bfcl(expected, "[math_factorial(number=5)]", [f])
    assert underscored.bfcl_error_type == "simple_function_checker:wrong_func_name"
    assert score_bfcl(expected, "[math_factorial(number=5)]", [f], underscore_to_dot=True).correct
    failed = score_bfcl(expected, "Sure! The answer is 120.", [f])
    assert (failed.outcome, failed.bfcl_error_type) == ("unparseable", "ast_decoder:decoder_failed")
    assert score_bfcl(expected, "[]", [f]).outcome == "missed"


def test_prompt_says_how_to_decode_a_string() -> None:
    f = _function("f", a="integer")
    expected = _expected({"f": {"a": [1]}})
    assert score_bfcl(expected, "[f(a=1)]", [f], prompt=True).correct
    fc_only = score_bfcl(expected, "[f(a=1)]", [f], prompt=False)
    assert fc_only.bfcl_error_type == "ast_decoder:decoder_failed"
    calls = score_bfcl(expected, [{"f": '{"a": 1}'}], [f], prompt=True)
    assert calls.bfcl_error_type == "ast_decoder:decoder_failed"  # BFCL's decoder wants text
    assert score_bfcl(expected, [{"f": '{"a": 1}'}], [f]).correct


def test_relevance_with_prompt_output_decodes_python_whatever_the_language() -> None:
    expected = relevance_expected("live_relevance_0-0-0")
    assert expected is not None
    assert score_bfcl(expected, "[f(a=1)]", []).outcome == "correct"
    java = Expected("live_relevance_java", None, "any", "relevance_java", "bfcl")
    assert score_bfcl(java, "[f(a=1)]", []).correct
    for result, outcome in (("[]", "missed"), ("text", "unparseable")):
        score = score_bfcl(expected, result, [])
        assert (score.outcome, score.bfcl_error_type) == (outcome, "relevance_error:decoder_failed")


def test_a_tuple_is_a_list_for_a_tuple_parameter_only() -> None:
    f = {
        "name": "f",
        "parameters": {
            "type": "dict",
            "properties": {
                "t": {"type": "tuple", "items": {"type": "integer"}},
                "xs": {"type": "array", "items": {"type": "integer"}},
            },
            "required": [],
        },
    }
    assert score_bfcl(_expected({"f": {"t": [[1, 2]]}}), "[f(t=(1, 2))]", [f]).correct
    as_array = score_bfcl(_expected({"f": {"xs": [[1, 2]]}}), "[f(xs=(1, 2))]", [f])
    assert as_array.bfcl_error_type == "type_error:simple"
