"""``tool_result_messages``: what goes back to the model, in its provider's own shape.

For each failing call, a short plain-text note that names each problem ("`city`
is required", "`days` must be an integer, got true") and asks for a corrected
call, wrapped as the provider expects a tool's result: OpenAI Chat's ``tool``
message, a Responses ``function_call_output``, Anthropic's ``tool_result`` with
``is_error``, Gemini's ``functionResponse``, Bedrock's ``toolResult`` with status
``error``. The machine-readable errors stay in the results; the words here are
for the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson

from toolaudit.boundary.check import CallCheck, Finding
from toolaudit.deep.reasons import listed
from toolaudit.errors import OptionError
from toolaudit.formats.anthropic import ANTHROPIC
from toolaudit.formats.bedrock import BEDROCK
from toolaudit.formats.gemini import GEMINI
from toolaudit.formats.langchain import LANGCHAIN
from toolaudit.formats.mcp import MCP
from toolaudit.formats.ollama import OLLAMA
from toolaudit.formats.openai import OPENAI_CHAT, OPENAI_RESPONSES
from toolaudit.values import shown

#: (the call, the text of its result, whether it is an error), in order.
Contents = list[tuple[CallCheck, str, bool]]

#: How many tool names an unknown tool's note lists, at most (in characters).
_NAMES_SHOWN = 300


def tool_result_messages(
    results: Iterable[CallCheck],
    *,
    outputs: Mapping[Any, object] | Sequence[object] | None = None,
    shape: str | None = None,
) -> list[dict[str, Any]]:
    """The messages that tell the model what was wrong with its failing calls.

    ``results`` come from :func:`~toolaudit.check_response`. ``outputs`` holds
    what the tools you ran returned, by call id (a mapping) or in the order of
    ``results`` (a list, None where a call did not run): those results go in
    too, so that the messages answer every call (Anthropic, Gemini and Bedrock
    want all of a turn's results in one message). ``shape`` overrides the
    provider shape taken from the response (one of :data:`SHAPES`).
    """
    results = list(results)
    if shape is not None and shape not in SHAPES:
        known = ", ".join(SHAPES)
        raise OptionError(f"unknown tool-result shape {shape!r}: expected one of {known}")
    ran = _outputs_by_position(results, outputs)
    by_shape: dict[str, Contents] = {}
    for position, result in enumerate(results):
        if result.ok and position not in ran:
            continue  # a valid call you did not run (or ran without saying): nothing to answer
        chosen = shape or result.reply_shape
        if result.ok:
            entry = (result, _as_text(ran[position]), False)
        else:
            entry = (result, feedback(result), True)
        by_shape.setdefault(chosen, []).append(entry)
    messages: list[dict[str, Any]] = []
    for chosen, contents in by_shape.items():
        messages.extend(_WRAP[chosen](contents))
    return messages


def _outputs_by_position(
    results: list[CallCheck], outputs: Mapping[Any, object] | Sequence[object] | None
) -> dict[int, object]:
    """What each call that ran returned, by its position among ``results``."""
    if outputs is None:
        return {}
    if isinstance(outputs, Mapping):
        return {i: outputs[r.id] for i, r in enumerate(results) if r.ok and r.id in outputs}
    if isinstance(outputs, (str, bytes)) or len(outputs) != len(results):
        raise OptionError("outputs given as a list must hold one entry per result (None: not run)")
    return {i: output for i, output in enumerate(outputs) if output is not None}


def feedback(result: CallCheck) -> str:
    """The note for one failing call: every problem, plainly, and what to do."""
    tool = result.tool
    if result.findings and result.findings[0][0] == "unknown_tool":
        _, name, reason = result.findings[0]
        tools = reason[1] if len(reason) > 1 else ()
        known = (
            f"; the tools are {listed(tools, _NAMES_SHOWN)}" if tools else "; no tools are defined"
        )
        return f"Error: there is no tool `{name}`{known}. Call one of the tools instead."
    problems = [_problem(finding, tool) for finding in result.findings] or list(result.errors)
    target = f"`{tool}`" if tool else "the tool"
    return (
        f"Error: the call to {target} was not run: {'; '.join(problems)}. "
        f"Call {target} again with corrected arguments."
    )


def _problem(finding: Finding, tool: str | None) -> str:
    kind, subject, reason = finding
    name = f"`{subject}`"
    how = reason[0]
    if how == "missing":
        return f"{name} is required"
    if how == "unexpected_parameter":
        declared = reason[1]
        of = f" of `{tool}`" if tool else ""
        return f"{name} is not a parameter{of}" + (
            f" (its parameters are {listed(declared)})" if declared else " (it takes none)"
        )
    if how == "unexpected":
        return f"{name} is not allowed here"
    if how == "type":
        return f"{name} must be {_a_type(reason[1])}, got {shown(reason[2])}"
    if how == "never":
        return f"{name} must not be given"
    if how == "enum":
        allowed = listed(shown(value, 20) for value in reason[1])
        return f"{name} must be one of {allowed}, got {shown(reason[2])}"
    if how == "const":
        return f"{name} must be {shown(reason[1])}, got {shown(reason[2])}"
    if how == "constraint":
        return f"{name} {_rule(reason[1], reason[2])}, got {_got(reason[1], reason[3])}"
    if kind == "malformed":
        detail = reason[1] if len(reason) > 1 and reason[1] else "they cannot be read"
        if subject == "arguments":
            return f"its arguments must be one JSON object ({detail})"
        return f"the call cannot be read ({detail})"
    return f"{kind}:{subject}"


_ARTICLE_TYPE = {
    "string": "a string",
    "integer": "an integer",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _a_type(kinds: frozenset[str]) -> str:
    names = [
        phrase
        for kind, phrase in _ARTICLE_TYPE.items()
        if kind in kinds and not (kind == "integer" and "float" in kinds)
    ]
    if "float" in kinds:
        names.insert(0, "a number")
    return " or ".join(names) if names else "absent (no value is allowed)"


_RULES = {
    "minimum": "must be at least {}",
    "maximum": "must be at most {}",
    "exclusiveMinimum": "must be greater than {}",
    "exclusiveMaximum": "must be less than {}",
    "multipleOf": "must be a multiple of {}",
    "minLength": "must be at least {} characters long",
    "maxLength": "must be at most {} characters long",
    "minItems": "must have at least {} items",
    "maxItems": "must have at most {} items",
    "minProperties": "must have at least {} properties",
    "maxProperties": "must have at most {} properties",
}


def _rule(keyword: str, limit: Any) -> str:
    if keyword == "pattern":
        return f"must match the regular expression {shown(limit)}"
    if keyword == "uniqueItems":
        return "must not repeat an item"
    return _RULES[keyword].format(shown(limit))


def _got(keyword: str, value: Any) -> str:
    if keyword in ("minLength", "maxLength"):
        return f"{len(value)} characters"
    if keyword in ("minItems", "maxItems", "uniqueItems"):
        return f"{len(value)} items" if keyword != "uniqueItems" else shown(value)
    if keyword in ("minProperties", "maxProperties"):
        return f"{len(value)} properties"
    return shown(value)


def _as_text(output: object) -> str:
    """A tool's output as message text: a string as it is, anything else as JSON."""
    if isinstance(output, str):
        return output
    return orjson.dumps(output, option=orjson.OPT_NON_STR_KEYS).decode()


def _openai_chat(contents: Contents) -> list[dict[str, Any]]:
    # A call without an id is a legacy function_call: answered by a "function" message.
    return [
        {"role": "tool", "tool_call_id": result.id, "content": text}
        if result.id is not None
        else {"role": "function", "name": result.tool or "", "content": text}
        for result, text, _ in contents
    ]


def _openai_responses(contents: Contents) -> list[dict[str, Any]]:
    return [
        {"type": "function_call_output", "call_id": result.id, "output": text}
        for result, text, _ in contents
    ]


def _anthropic(contents: Contents) -> list[dict[str, Any]]:
    blocks = []
    for result, text, is_error in contents:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.id, "content": text}
        if is_error:
            block["is_error"] = True
        blocks.append(block)
    return [{"role": "user", "content": blocks}]


def _gemini(contents: Contents) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for result, text, is_error in contents:
        if result.tool is None:  # no function call to answer (MALFORMED_FUNCTION_CALL): say it
            parts.append({"text": text})
            continue
        response = {"error": text} if is_error else {"output": text}
        function_response: dict[str, Any] = {"name": result.tool, "response": response}
        if result.id is not None:
            function_response["id"] = result.id
        parts.append({"functionResponse": function_response})
    return [{"role": "user", "parts": parts}]


def _bedrock(contents: Contents) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for result, text, is_error in contents:
        if result.id is None:  # no tool use to answer (a malformed_tool_use stop): say it
            blocks.append({"text": text})
            continue
        tool_result: dict[str, Any] = {"toolUseId": result.id, "content": [{"text": text}]}
        if is_error:
            tool_result["status"] = "error"
        blocks.append({"toolResult": tool_result})
    return [{"role": "user", "content": blocks}]


def _ollama(contents: Contents) -> list[dict[str, Any]]:
    return [
        {"role": "tool", "tool_name": result.tool, "content": text} for result, text, _ in contents
    ]


def _langchain(contents: Contents) -> list[dict[str, Any]]:
    return [
        {
            "role": "tool",
            "tool_call_id": result.id,
            "name": result.tool,
            "content": text,
            "status": "error" if is_error else "success",
        }
        for result, text, is_error in contents
    ]


def _mcp(contents: Contents) -> list[dict[str, Any]]:
    # The answer to a tools/call request: the server's result, isError for a tool error.
    return [
        {
            "jsonrpc": "2.0",
            "id": result.id,
            "result": {"content": [{"type": "text", "text": text}], "isError": is_error},
        }
        for result, text, is_error in contents
    ]


#: Each tool-result shape, named after the format whose replies it is (a format says
#: which one answers its calls: ``Format.tool_result_messages``), and its wrapper.
_WRAP = {
    OPENAI_CHAT.name: _openai_chat,
    OPENAI_RESPONSES.name: _openai_responses,
    ANTHROPIC.name: _anthropic,
    GEMINI.name: _gemini,
    BEDROCK.name: _bedrock,
    OLLAMA.name: _ollama,
    LANGCHAIN.name: _langchain,
    MCP.name: _mcp,
}
#: The tool-result shapes, for ``tool_result_messages(shape=...)``.
SHAPES = tuple(_WRAP)
