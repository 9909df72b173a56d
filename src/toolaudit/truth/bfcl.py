"""``--match bfcl``: one BFCL result scored as ``bfcl evaluate`` scores it.

The model's output is decoded as BFCL decodes a function-calling model's output (each
call's arguments read with Python's :func:`json.loads`; anything else is a decoder
error) or, for text, as it decodes a prompt-mode model's (:mod:`.bfcl_prompt`), then
checked by :mod:`toolaudit.truth.bfcl_checker`, or, for the relevance and irrelevance
categories, only asked whether it holds a call. The verdict, the accuracy it adds up to,
and each failure's ``error_type`` are BFCL's; the outcome and mismatch codes are those of
:mod:`toolaudit.truth.match`. Every quirk, and where the default mode differs:
docs/evaluation.md, "BFCL's semantics (--match bfcl)".
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from toolaudit.truth.bfcl_checker import (
    Answer,
    Checking,
    Decoded,
    Verdict,
    check,
    checked_description,
    description_of,
    expected_name,
    value_error,
)
from toolaudit.truth.bfcl_prompt import DecoderError, UnsupportedDecode, decode_prompt
from toolaudit.truth.bfcl_values import is_optional_mark
from toolaudit.truth.entries import Expected, ExpectedCall, bfcl_category
from toolaudit.truth.match import Score

#: The error_type given when BFCL's own evaluation would stop on the entry (a function
#: the question does not declare, a type BFCL cannot read): ours scores it incorrect.
CHECKER_ERROR = "bfcl:checker_error"
#: The error_type of output BFCL decodes but toolaudit does not (Java and JavaScript
#: prompt output): ours scores it incorrect, whatever BFCL's verdict would be.
UNSUPPORTED_DECODE = "bfcl:unsupported_decode"


def decode(raw_result: object) -> list[Decoded]:
    """A function-calling model's ``result`` as BFCL decodes it: ``[{name: "<JSON>"}, ...]``
    -> ``[{name: {...}}, ...]``, each item's first key only. Text is a decoder error, but
    ``""`` (like an empty list) decodes to no call. Raises :class:`DecoderError`."""
    if isinstance(raw_result, (str, dict)) and not raw_result:
        return []  # BFCL iterates over the result: nothing to iterate, no call
    if not isinstance(raw_result, list):
        raise DecoderError(f"not a list of calls ({type(raw_result).__name__})")
    decoded: list[Decoded] = []
    for item in raw_result:
        if not isinstance(item, dict) or not item:
            raise DecoderError("a call that is not an object of one function name")
        name = next(iter(item))
        arguments = item[name]
        if not isinstance(arguments, str):
            raise DecoderError(f"{name}: the arguments are not a JSON string")
        try:
            decoded.append({name: json.loads(arguments)})
        except (ValueError, RecursionError) as error:  # "" included: not JSON
            raise DecoderError(f"{name}: the arguments are not JSON ({error})") from None
    return decoded


def is_calls(decoded: list[Any]) -> bool:
    """BFCL's format check: every call's arguments decoded to an object."""
    return all(type(next(iter(call.values()))) is dict for call in decoded)


def guess_underscore_to_dot(
    decoded: Sequence[Decoded], functions: Sequence[Mapping[str, Any]]
) -> bool:
    """Whether the model gave dotted function names with underscores (``math_factorial`` for
    ``math.factorial``), as function-calling APIs that refuse dots make them do. BFCL reads
    it from its model table; without it, this record's calls tell."""
    dotted = {str(f.get("name")).replace(".", "_") for f in functions if "." in str(f.get("name"))}
    return any(name in dotted for call in decoded for name in call)


def language_of(category: str) -> str:
    """BFCL's language of a category: Java, JavaScript, else Python."""
    if "javascript" in category:
        return "javascript"
    return "java" if "java" in category else "python"


def relevance_expected(id: str, category: str | None = None) -> Expected | None:
    """The entry of a BFCL relevance or irrelevance prompt, which has no possible answers:
    none expected for ``irrelevance``, any call for ``relevance``; None for other categories.
    ``category`` defaults to the id's prefix (``live_irrelevance_3-0-1``)."""
    category = category or bfcl_category(id) or ""
    if "irrelevance" in category:
        return Expected(id, (), "any", category, "bfcl")
    if "relevance" in category:
        return Expected(id, None, "any", category, "bfcl")
    return None


def score_bfcl(
    expected: Expected,
    raw_result: object,
    functions: Sequence[Mapping[str, Any]],
    *,
    category: str | None = None,
    underscore_to_dot: bool | None = None,
    prompt: bool | None = None,
) -> Score:
    """Score one BFCL result as ``bfcl evaluate`` does.

    ``raw_result`` is the result line's ``result`` as logged; ``functions`` the question's
    function docs (its ``function`` list); ``category`` BFCL's (``simple_python``,
    ``live_multiple``, ``irrelevance``), by default the entry's. ``underscore_to_dot`` is
    BFCL's per-model setting (None: guessed from the calls, see
    :func:`guess_underscore_to_dot`, but False for prompt-mode output, as for every
    prompt-mode model BFCL lists). ``prompt`` says whether the result is a prompt-mode
    model's text (:func:`~toolaudit.truth.bfcl_prompt.decode_prompt`) or a
    function-calling model's calls (:func:`decode`); None: text that is not empty is
    prompt-mode output. An entry with no expected call, or ``"calls": "any"``, is scored
    as an irrelevance or relevance prompt.
    """
    category = category or expected.category or ""
    if prompt is None:
        prompt = isinstance(raw_result, str) and raw_result != ""
    if "relevance" in category or not expected.calls:
        # BFCL decodes relevance prompts as Python, whatever the category's language.
        decoded = _decoded(raw_result, prompt, "python")
        wants_none = "irrelevance" in category or expected.calls == ()
        return _relevance(expected, category, decoded, wants_none)
    language = language_of(category)
    try:
        decoded = _decoded(raw_result, prompt, language)
    except UnsupportedDecode:
        return _failed(expected, category, "unparseable", UNSUPPORTED_DECODE)
    if decoded is None:
        return _failed(expected, category, "unparseable", "ast_decoder:decoder_failed")
    if not is_calls(decoded):
        return _failed(expected, category, "unparseable", "ast_decoder:decoder_wrong_output_format")
    if underscore_to_dot is None:
        underscore_to_dot = not prompt and guess_underscore_to_dot(decoded, functions)
    how = Checking(functions, language, underscore_to_dot)
    answers = [bfcl_answer(call) for call in expected.calls]
    try:
        verdict = check(category, decoded, answers, how)
        parameters = _parameters(decoded, answers, how, verdict, category)
    except Exception:  # BFCL's evaluation would stop here; this entry is only incorrect
        verdict, parameters = Verdict(CHECKER_ERROR), ()
    passed = verdict.error_type is None
    # No call at all is "missed" (BFCL: wrong_count), as in the default mode.
    outcome = "correct" if passed else ("incorrect" if decoded else "missed")
    return Score(
        expected.id,
        category,
        outcome,
        passed,
        verdict.mismatches,
        verdict.pairing,
        verdict.error_type,
        parameters,
    )


def _decoded(raw_result: object, prompt: bool, language: str) -> list[Decoded] | None:
    """The decoded calls, None for a decoder error; raises :class:`UnsupportedDecode`."""
    try:
        if not prompt:
            return decode(raw_result)
        if not isinstance(raw_result, str):  # BFCL's prompt decoding fails on all but text
            raise DecoderError(f"prompt output is text, not {type(raw_result).__name__}")
        return decode_prompt(raw_result, language)
    except UnsupportedDecode:
        raise
    except DecoderError:
        return None


def _relevance(
    expected: Expected, category: str, decoded: list[Decoded] | None, wants_none: bool
) -> Score:
    """Relevance and irrelevance prompts: only whether a call was made, read as BFCL
    reads it (a decoder error or arguments that are not an object are no call)."""
    made = decoded is not None and is_calls(decoded) and len(decoded) > 0
    if wants_none:
        if not made:
            outcome = "unparseable" if decoded is None else "correct_abstention"
            # BFCL counts an unreadable answer to an irrelevance prompt as correct.
            return Score(expected.id, category, outcome, True, (), ())
        extra = tuple(f"extra_call:{next(iter(call))}" for call in decoded or ())
        return Score(
            expected.id, category, "unwanted_call", False, extra, (),
            "irrelevance_error:decoder_success",
        )  # fmt: skip
    if made:
        return Score(expected.id, category, "correct", True, (), ())
    outcome = "unparseable" if decoded is None else "missed"
    return _failed(expected, category, outcome, "relevance_error:decoder_failed")


def _failed(expected: Expected, category: str, outcome: str, error_type: str) -> Score:
    return Score(expected.id, category, outcome, False, (), (), error_type)


def bfcl_answer(call: ExpectedCall) -> Answer:
    """An expected call as BFCL's possible answer: ``{name: {parameter: [values]}}``, a
    parameter that may be left out holding ``""``. A BFCL line's lists are kept as given."""
    parameters: dict[str, list[Any]] = {}
    for parameter, accept in call.arguments.items():
        if accept.raw:
            parameters[parameter] = list(accept.raw)
        else:
            parameters[parameter] = list(accept.values) + ([""] if accept.optional else [])
    return {call.name: parameters}


def _parameters(
    decoded: list[Decoded],
    answers: list[Answer],
    how: Checking,
    verdict: Verdict,
    category: str,
) -> tuple[tuple[str, str, bool], ...]:
    """``(tool, parameter, matched)`` for each expected parameter: given by the call paired
    with its expected call and passing BFCL's check of its value, or left out and
    allowed to be. The parameters of an expected call left unpaired are unmatched."""
    made_for = {expected: made for made, expected in verdict.pairing}
    rows: list[tuple[str, str, bool]] = []
    for index, answer in enumerate(answers):
        ((name, possible),) = answer.items()
        description = description_of(how, name)
        call = decoded[made_for[index]] if index in made_for else {}
        given = call.get(expected_name(description, how))
        properties = description["parameters"]["properties"]
        if (
            verdict.error_type is None
            and index in made_for
            and checked_description(category, answer, how) is description
        ):
            # The check passed this call against this very function: every parameter it
            # gave passed the value check below, every one it left out may be.
            rows.extend((name, parameter, True) for parameter in possible)
            continue
        for parameter, accepted in possible.items():
            if given is None:
                matched = False
            elif parameter in given:
                details = properties.get(parameter)
                matched = details is not None and (
                    value_error(given[parameter], details, accepted, how.language) is None
                )
            else:
                matched = any(is_optional_mark(a) for a in accepted)
            rows.append((name, parameter, matched))
    return tuple(rows)
