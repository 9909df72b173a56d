"""What one OpenTelemetry span's attributes say about tool calls, in the three
conventions that record them: the model's calls, the tools it was offered, the model.

- OTel GenAI semantic conventions: ``gen_ai.output.messages`` parts of type
  ``tool_call``, ``gen_ai.tool.definitions``, ``execute_tool`` spans.
- OpenLLMetry (Traceloop): ``gen_ai.completion.N.tool_calls.M.*`` (``llm.completions``
  in older releases), ``llm.request.functions.N.*``.
- OpenInference (Arize): ``llm.output_messages.N.message.tool_calls.M.tool_call.*``,
  ``llm.tools.N.tool.json_schema``, also as the nested lists Phoenix exports.

Attribute values arrive as plain values (see :mod:`toolaudit.formats.otel`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from toolaudit.formats.base import (
    ABSENT,
    CUT_OFF,
    JSON_STRING,
    OBJECT,
    Call,
    UnknownShape,
    as_dict,
    as_list,
)
from toolaudit.jsonutil import loads_exact
from toolaudit.values import kind_phrase

OPERATION = "gen_ai.operation.name"
EXECUTE_TOOL = "execute_tool"
OUTPUT_MESSAGES = "gen_ai.output.messages"
INPUT_MESSAGES = "gen_ai.input.messages"
TOOL_DEFINITIONS = "gen_ai.tool.definitions"

#: Where each convention names the model, the response's before the request's.
MODEL_KEYS = (
    "gen_ai.response.model",
    "gen_ai.request.model",
    "llm.model_name",
    "llm.response.model",
    "llm.request.model",
)
#: Finish reasons that mean the output hit its length limit (the GenAI enum's,
#: then the raw provider values instrumentations copy).
CUT_REASONS = frozenset({"length", "max_tokens", "MAX_TOKENS"})

_OPENLLMETRY_PREFIXES = ("gen_ai.completion.", "llm.completions.")
_OPENLLMETRY_CALL = re.compile(
    r"(gen_ai\.completion|llm\.completions)\.(\d+)\.tool_calls\.(\d+)\.(name|arguments|id)"
)
_OPENLLMETRY_TOOL = re.compile(r"llm\.request\.functions\.(\d+)\.(\w+)")
_OPENINFERENCE_CALL = re.compile(
    r"llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\."
    r"(id|function\.name|function\.arguments)"
)
_OPENINFERENCE_TOOL = re.compile(r"llm\.tools\.(\d+)\.tool\.(json_schema|name|description)")
#: Keys a provider-native tool definition names its tool under (OpenAI, Anthropic,
#: MCP, Bedrock, Gemini): an OpenInference json_schema without one is a bare schema.
_NATIVE_TOOL_KEYS = (
    "name",
    "function",
    "toolSpec",
    "functionDeclarations",
    "function_declarations",
)
#: Values kept whole when nested lists are flattened into indexed keys: JSON in
#: their own right, not more attributes.
_WHOLE_VALUES = frozenset({"arguments", "json_schema", "parameters", "input_schema"})
#: Deeper than any indexed key goes: below this, values are kept whole.
_FLATTEN_DEPTH = 12


class SpanReading:
    """What one span says: the calls in the model's output, the call an
    ``execute_tool`` span ran, the model, and the tools the model was offered."""

    __slots__ = ("calls", "executed", "model", "tools", "tools_unrecorded")

    def __init__(
        self,
        calls: list[Call],
        executed: Call | None,
        model: str | None,
        tools: list[object],
        tools_unrecorded: bool,
    ) -> None:
        self.calls = calls
        self.executed = executed
        self.model = model
        #: Tool definitions in shapes ``normalize_tools`` reads.
        self.tools = tools
        #: Some definition left its schema out: content capture was off, and the
        #: definitions do not say what the tools accept.
        self.tools_unrecorded = tools_unrecorded


def read_span(attributes: Mapping[str, Any], where: str) -> SpanReading:
    """The calls, tools and model one span's attributes record.

    A span records its output once, in one convention: the first that finds
    calls in it gives them. Raises :class:`UnknownShape` for tool definitions
    that cannot be read, since no call of the line could be judged fairly.
    """
    view = _indexed_view(attributes)
    model = next((value for key in MODEL_KEYS if isinstance(value := view.get(key), str)), None)
    tools, unrecorded = _tools(attributes, view, where)
    if attributes.get(OPERATION) == EXECUTE_TOOL:
        return SpanReading([], _executed(attributes), model, tools, unrecorded)
    calls = (
        _genai_calls(attributes, where) or _openllmetry_calls(view) or _openinference_calls(view)
    )
    span_cut = _cut_note(attributes.get("gen_ai.response.finish_reasons"))
    for call in calls:
        call.note = call.note or span_cut
    return SpanReading(calls, None, model, tools, unrecorded)


def input_messages(attributes: Mapping[str, Any]) -> object:
    """The conversation a span's model was given, ``gen_ai.input.messages``, decoded
    from its JSON text when it is text (text that is not JSON is kept as it is, for
    the history check to say so); None when the span records none."""
    raw = attributes.get(INPUT_MESSAGES)
    messages, error = _json_value(raw)
    return raw if error is not None else messages


def _encoding(arguments: object) -> str:
    # The GenAI conventions expect an object but allow the model's JSON text as
    # is: a string is the text the model wrote, not a double encoding.
    return JSON_STRING if isinstance(arguments, str) else OBJECT


def _executed(attributes: Mapping[str, Any]) -> Call | None:
    """The call an ``execute_tool`` span ran. Its arguments are opt-in: without
    them there is nothing to check, which is not the same as no arguments."""
    if "gen_ai.tool.call.arguments" not in attributes:
        return None
    arguments = attributes["gen_ai.tool.call.arguments"]
    return Call(
        0,
        attributes.get("gen_ai.tool.name"),
        arguments,
        id=attributes.get("gen_ai.tool.call.id"),
        encoding=_encoding(arguments),
    )


def _genai_calls(attributes: Mapping[str, Any], where: str) -> list[Call]:
    """``tool_call`` parts of ``gen_ai.output.messages`` (a JSON string or an array)."""
    raw = attributes.get(OUTPUT_MESSAGES)
    if raw is None:
        return []
    messages, error = _json_value(raw)
    if isinstance(messages, Mapping):
        messages = [messages]
    if not isinstance(messages, list):
        why = error or f"it is {kind_phrase(messages)}, not an array of messages"
        if isinstance(raw, str) and '"tool_call"' in raw:
            # Cut by a backend's attribute length limit, typically: the calls are
            # in there, unreadable, and must not pass as a record without calls.
            failure = f"{where}: {OUTPUT_MESSAGES} holds a tool call but cannot be read ({why})"
            return [Call(0, None, failure=failure)]
        return []
    calls: list[Call] = []
    for message in messages:
        message = as_dict(message)
        note = _cut_note([message.get("finish_reason")])
        for part in as_list(message.get("parts")):
            part = as_dict(part)
            if part.get("type") != "tool_call":
                continue
            arguments = part.get("arguments")
            calls.append(
                Call(
                    len(calls),
                    part.get("name"),
                    # The schema's default for arguments is null: none given.
                    ABSENT if arguments is None else arguments,
                    id=part.get("id"),
                    encoding=_encoding(arguments),
                    note=note,
                )
            )
    return calls


def _openllmetry_calls(view: Mapping[str, Any]) -> list[Call]:
    """``gen_ai.completion.N.tool_calls.M.{name, arguments, id}``, arguments a JSON string."""
    found: dict[tuple[int, int], dict[str, object]] = {}
    prefixes: dict[int, str] = {}
    for key, value in view.items():
        if not key.startswith(_OPENLLMETRY_PREFIXES):
            continue
        match = _OPENLLMETRY_CALL.fullmatch(key)
        if match is not None:
            prefix, completion, position, field = match.groups()
            found.setdefault((int(completion), int(position)), {})[field] = value
            prefixes[int(completion)] = prefix
    return _indexed_calls(
        found,
        "name",
        "arguments",
        lambda completion: _cut_note(
            [view.get(f"{prefixes[completion]}.{completion}.finish_reason")]
        ),
    )


def _openinference_calls(view: Mapping[str, Any]) -> list[Call]:
    """``llm.output_messages.N.message.tool_calls.M.tool_call.{id, function.name,
    function.arguments}``, arguments a JSON string."""
    found: dict[tuple[int, int], dict[str, object]] = {}
    for key, value in view.items():
        if not key.startswith("llm.output_messages."):
            continue
        match = _OPENINFERENCE_CALL.fullmatch(key)
        if match is not None:
            message, position, field = match.groups()
            found.setdefault((int(message), int(position)), {})[field] = value
    return _indexed_calls(found, "function.name", "function.arguments")


def _indexed_calls(
    found: Mapping[tuple[int, int], Mapping[str, object]],
    name: str,
    arguments: str,
    note_of: Callable[[int], str | None] | None = None,
) -> list[Call]:
    """The calls of flattened attributes, (message, position) -> {field: value}, in
    order; ``name`` and ``arguments`` name their fields, ``note_of`` a message's note."""
    calls: list[Call] = []
    for (message, _), fields in sorted(found.items()):
        given = fields.get(arguments, ABSENT)
        calls.append(
            Call(
                len(calls),
                fields.get(name),
                given,
                id=fields.get("id"),
                encoding=_encoding(given),
                note=None if note_of is None else note_of(message),
            )
        )
    return calls


def _tools(
    attributes: Mapping[str, Any], view: Mapping[str, Any], where: str
) -> tuple[list[object], bool]:
    """The span's tool definitions in every convention, and whether some left
    their schema out."""
    tools: list[object] = []
    unrecorded = False
    if TOOL_DEFINITIONS in attributes:
        definitions, error = _json_value(attributes[TOOL_DEFINITIONS])
        if isinstance(definitions, Mapping):
            definitions = [definitions]
        if not isinstance(definitions, list):
            why = error or f"it is {kind_phrase(definitions)}, not an array of tool definitions"
            raise UnknownShape(f"{where}: {TOOL_DEFINITIONS} cannot be read ({why})")
        for definition in definitions:
            # The conventions advise against recording parameters by default, so a
            # function without them says nothing of what it accepts.
            unrecorded = unrecorded or (
                isinstance(definition, Mapping)
                and definition.get("type", "function") == "function"
                and "parameters" not in definition
            )
        tools.extend(definitions)
    openllmetry, openllmetry_unrecorded = _openllmetry_tools(view, where)
    tools.extend(openllmetry)
    tools.extend(_openinference_tools(view, where))
    return tools, unrecorded or openllmetry_unrecorded


def _openllmetry_tools(view: Mapping[str, Any], where: str) -> tuple[list[object], bool]:
    """``llm.request.functions.N.{name, description, parameters}`` (``input_schema``
    for Anthropic's tools), the schema a JSON string."""
    found = _indexed_fields(view, "llm.request.functions.", _OPENLLMETRY_TOOL)
    tools: list[object] = []
    unrecorded = False
    for position, fields in found:
        schema_key = "parameters" if "parameters" in fields else "input_schema"
        if schema_key not in fields:
            unrecorded = True
            continue
        schema, error = _json_value(fields[schema_key])
        if error is not None:
            key = f"llm.request.functions.{position}.{schema_key}"
            raise UnknownShape(f"{where}: {key} cannot be read ({error})")
        tool = {"type": "function", "name": fields.get("name"), "parameters": schema}
        if "description" in fields:
            tool["description"] = fields["description"]
        tools.append(tool)
    return tools, unrecorded


def _openinference_tools(view: Mapping[str, Any], where: str) -> list[object]:
    """``llm.tools.N.tool.json_schema``: the provider's own definition as JSON
    text, or only its parameters' schema, named then by ``llm.tools.N.tool.name``."""
    tools: list[object] = []
    for position, fields in _indexed_fields(view, "llm.tools.", _OPENINFERENCE_TOOL):
        if "json_schema" not in fields:
            continue
        key = f"llm.tools.{position}.tool.json_schema"
        definition, error = _json_value(fields["json_schema"])
        if not isinstance(definition, Mapping):
            why = error or f"it is {kind_phrase(definition)}, not a tool definition"
            raise UnknownShape(f"{where}: {key} cannot be read ({why})")
        if not any(name in definition for name in _NATIVE_TOOL_KEYS):
            name = fields.get("name")
            if not isinstance(name, str):
                raise UnknownShape(
                    f"{where}: {key} names no tool, and llm.tools.{position} no name"
                )
            definition = {"type": "function", "name": name, "parameters": definition}
        tools.append(definition)
    return tools


def _indexed_fields(
    view: Mapping[str, Any], prefix: str, pattern: re.Pattern[str]
) -> list[tuple[int, dict[str, object]]]:
    """Attributes ``<prefix>N.<field>`` gathered per ``N``, in the order of ``N``."""
    found: dict[int, dict[str, object]] = {}
    for key, value in view.items():
        if key.startswith(prefix):
            match = pattern.fullmatch(key)
            if match is not None:
                found.setdefault(int(match[1]), {})[match[2]] = value
    return sorted(found.items())


def _indexed_view(attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    """The attributes, with lists and objects under ``llm`` also flattened into
    indexed keys: Phoenix exports ``llm.output_messages`` as a list of
    ``{"message.tool_calls": [...]}`` (or ``llm`` as one nested object), which
    then reads as ``llm.output_messages.0.message.tool_calls.0...``."""
    nested = [
        (key, value)
        for key, value in attributes.items()
        if isinstance(value, (Mapping, list)) and (key == "llm" or key.startswith("llm."))
    ]
    if not nested:
        return attributes
    view = dict(attributes)
    for key, value in nested:
        _flatten(key, value, view, 0)
    return view


def _flatten(key: str, value: object, into: dict[str, Any], depth: int) -> None:
    if depth > _FLATTEN_DEPTH or key.rpartition(".")[2] in _WHOLE_VALUES:
        into.setdefault(key, value)
    elif isinstance(value, Mapping):
        for inner, item in value.items():
            _flatten(f"{key}.{inner}", item, into, depth + 1)
    elif isinstance(value, list):
        for position, item in enumerate(value):
            _flatten(f"{key}.{position}", item, into, depth + 1)
    else:
        into.setdefault(key, value)


def _json_value(value: object) -> tuple[object, str | None]:
    """An attribute that holds JSON: decoded when it is text, as it is otherwise;
    with why the text is not JSON."""
    if not isinstance(value, str):
        return value, None
    import orjson  # here: format modules load with the command line, even for --version

    try:
        return orjson.loads(value), None
    except orjson.JSONDecodeError as error:
        try:
            return loads_exact(value), None  # what orjson refuses: 1e400, lone surrogates
        except (ValueError, RecursionError):
            return None, f"not JSON: {error}"


def _cut_note(reasons: object) -> str | None:
    for reason in as_list(reasons):
        if isinstance(reason, str) and reason in CUT_REASONS:
            return CUT_OFF.format(f'finish_reason "{reason}"')
    return None
