"""One call found in a record -> its verdict: the tool it counts under, its problems, a detail.

Arguments arrive as a JSON string (OpenAI), an object (Anthropic, Gemini,
MCP) or an object parsed upstream (LangChain); each way of going wrong gets
its own words in the report's ``detail``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson

from toolaudit.contract import (
    MALFORMED,
    UNKNOWN_TOOL,
    Problem,
    ToolValidator,
    Validator,
    explain_malformed_name,
    kind_phrase,
)
from toolaudit.formats import ABSENT, JSON_STRING, OBJECT, Call
from toolaudit.formats.base import TRUNCATED, is_cut_off
from toolaudit.jsonutil import is_beyond_exact_reading, loads_exact, may_be_misread_by_orjson
from toolaudit.results.tally import IN_TEXT

Problems = tuple[Problem, ...] | list[Problem]

_NOTHING: Mapping[str, Any] = {}
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError


#: What makes the reasons of a failing call's errors (its report row's ``why``): the
#: reasons themselves, or a function and what to give it, called only when a row or
#: a sample needs them (a summary-only run never words a reason).
Why = Mapping[str, str] | tuple[Callable[[Any], Mapping[str, str]], Any] | None

#: What one call comes to: (the tool it counts under, its problems, a detail for the
#: report row, what gives the reasons). The tool is a declared tool's own name (through
#: aliases), the name called for an unknown tool, or None when the call gave no usable
#: name. A plain tuple: a NamedTuple costs ten times as much to make, on every call judged.
Verdict = tuple[str | None, Problems, str | None, Why]


def judge(call: Call, validator: Validator, context: str | None, *, exact: bool) -> Verdict:
    """The verdict on one call.

    ``context`` explains an unknown tool (no question with that id...);
    ``exact`` decodes argument strings with the standard library (see jsonutil).
    """
    return judge_decoding(call, validator, context, exact=exact)[0]


def judge_decoding(
    call: Call, validator: Validator, context: str | None, *, exact: bool
) -> tuple[Verdict, Mapping[str, Any] | None]:
    """The verdict on one call, and its arguments as decoded (None when they could
    not be: no tool to decode them for, or not an object)."""
    decoded: Mapping[str, Any] | None = None
    name = call.name
    details = []
    problems: Problems
    why: Why = None
    tool_key: str | None = None
    if call.in_text is not None and name is None:  # markup found, but unreadable
        problems = [(MALFORMED, IN_TEXT)]
        details.append(call.failure or f"the {call.in_text} markup holds no tool name")
        why = {f"{MALFORMED}:{IN_TEXT}": details[0]}
    elif call.failure is not None and name is None:
        kind = call.failure_kind or "call"
        problems = [(MALFORMED, kind)]
        details.append(call.failure)
        why = {f"{MALFORMED}:{kind}": call.failure}
    elif not isinstance(name, str):
        problems = [(MALFORMED, "name")]
        details.append(f"the call's name is {kind_phrase(name)}, not a string")
        why = explain_malformed_name(name)
    else:
        tool = validator.tools.get(name)
        if tool is None:
            tool_key = name
            problems = [(UNKNOWN_TOOL, name)]
            why = (validator.explain_unknown, name)
            if context:
                details.append(context)
        else:
            tool_key = tool.name
            if call.failure is not None:
                kind = call.failure_kind or (TRUNCATED if is_cut_off(call.note) else "arguments")
                problems = [(MALFORMED, kind)]
                details.append(call.failure)
                why = {f"{MALFORMED}:{kind}": call.failure}
            else:
                decoded, note = decode_call_arguments(call, tool, exact=exact)
                if note:
                    details.append(note)
                if decoded is None:
                    kind = TRUNCATED if _cut_short(call) else "arguments"
                    problems = [(MALFORMED, kind)]
                    why = {f"{MALFORMED}:{kind}": note or "the arguments cannot be read"}
                else:
                    problems = tool.check(decoded)
                    if problems:
                        why = (tool.explain_problems, (decoded, problems))
    if call.in_text is not None and name is not None:
        found = (
            f"found in the message text as {call.in_text} markup: the call never reached the tool"
        )
        details.insert(0, found)
        problems = sorted([*problems, (MALFORMED, IN_TEXT)])
        why = (_with_reason, (why, f"{MALFORMED}:{IN_TEXT}", found))
    if call.note:
        details.append(call.note)
    return (tool_key, problems, "; ".join(details) or None, why), decoded


def _cut_short(call: Call) -> bool:
    """Whether a call whose arguments cannot be used was cut by its response's length
    limit: the response hit it, and the arguments are text that does not parse (JSON
    that parses to the wrong thing was written so, not cut)."""
    arguments = call.arguments
    if not is_cut_off(call.note) or not isinstance(arguments, str):
        return False
    return not arguments.strip() or _decode(arguments, True)[1] is not None


def _with_reason(subject: tuple[Why, str, str]) -> Mapping[str, str]:
    """The reasons of ``why`` and one more, in the order of their errors."""
    why, error, reason = subject
    return dict(sorted({**reasons(why), error: reason}.items()))


def judge_apart(
    call: Call, validator: Validator, context: str | None
) -> tuple[Verdict, Mapping[str, Any] | None]:
    """:func:`judge_decoding` for a call judged apart from any line (assembled from a
    stream, checked at the agent boundary): with orjson, or exactly when its arguments
    may hold an integer orjson reads as a float (which may fail or pass the call) or a
    number below a double's range, which it reads as 0 (refused past 1e-10000)."""
    arguments = call.arguments
    exact = isinstance(arguments, str) and may_be_misread_by_orjson(arguments)
    return judge_decoding(call, validator, context, exact=exact)


def reasons(why: Why) -> Mapping[str, str]:
    """The reasons a verdict's ``why`` stands for."""
    if why is None:
        return {}
    if isinstance(why, tuple):
        explain, subject = why
        return explain(subject)
    return why


def decode_call_arguments(
    call: Call, tool: ToolValidator, *, exact: bool = False
) -> tuple[Mapping[str, Any] | None, str | None]:
    """A call's arguments as logged -> (the object, a note or None) or (None, why not)."""
    arguments = call.arguments
    if arguments is ABSENT:
        return _NOTHING, None
    if isinstance(arguments, Mapping):
        return arguments, None
    if not isinstance(arguments, str) or call.encoding == JSON_STRING:
        return decode_arguments(arguments, tool, exact=exact)
    if call.encoding == OBJECT:
        decoded, why = decode_arguments(arguments, tool, exact=exact)
        if why is None:
            return (
                decoded,
                "arguments were logged as a JSON string, though this format sends an object",
            )
        # Every reason decode_arguments gives starts "arguments ...": what a string is
        # not, said after what it should have been.
        return decoded, (
            "arguments were logged as a string, though this format sends an object, and "
            + why.removeprefix("arguments ")
        )
    return (
        None,
        "arguments are a string, though they should have been parsed into an object "
        "(double-encoded?)",
    )


def decode_arguments(
    arguments: object, tool: ToolValidator, *, exact: bool = False
) -> tuple[Mapping[str, Any] | None, str | None]:
    """Arguments as logged -> (the object, None) or (None, why not).

    Providers log arguments as a JSON string; decode it (with orjson, or, when
    ``exact``, with the standard library, which keeps integers beyond 64 bits).
    An empty string is an empty object only for a tool with no required
    parameter (some models send "" for parameterless tools).
    """
    if isinstance(arguments, Mapping):
        return arguments, None
    if not isinstance(arguments, str):
        return None, f"arguments are {kind_phrase(arguments)}, not an object"
    if not arguments.strip():
        if tool.required:
            return None, "arguments are an empty string, but the tool has required parameters"
        return _NOTHING, None
    decoded, error = _decode(arguments, exact)
    if error is not None:
        return None, f"arguments are not valid JSON: {error}"
    if isinstance(decoded, dict):
        return decoded, None
    if isinstance(decoded, str):
        inner, _ = _decode(decoded, exact)
        if isinstance(inner, dict):
            return None, "arguments are double-encoded: a JSON string holding a JSON object"
    return None, f"arguments decode to {kind_phrase(decoded)}, not an object"


def _decode(text: str, exact: bool) -> tuple[Any, str | None]:
    """(the value, None) or (None, the parser's complaint), with orjson or, when
    orjson refuses valid JSON or ``exact`` asks for it, the standard library."""
    if not exact:
        try:
            return _loads(text), None
        except _JSONDecodeError as error:
            complaint = f"{error.msg} (column {error.colno})"
    try:
        return loads_exact(text), None
    except RecursionError:
        return None, "nested too deeply"
    except ValueError as error:
        # A number past what is read exactly (1e10001, which orjson refuses too): the
        # exact parse's reason, as a line holding one is told (docs/guarantees.md).
        if exact or is_beyond_exact_reading(error):
            return None, str(error)
        return None, complaint


def object_verdict(
    tool: ToolValidator, arguments: Mapping[str, Any], problems: Problems
) -> Verdict:
    """The verdict judge() gives a call of ``tool`` whose arguments, an object, hold
    ``problems`` by the contract's check, with no detail: its reasons are worded from the
    problems when a row asks for them. The inline and typed paths judge most failing
    calls so, without making a Call."""
    why: Why = (tool.explain_problems, (arguments, problems)) if problems else None
    return (tool.name, problems, None, why)
