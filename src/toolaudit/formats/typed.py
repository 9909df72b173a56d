"""Typed record shapes: the audit's fast path decodes a line straight into what a
format's extractor reads, with msgspec, and names the calls in it.

A shape takes only records its format's extractor would read into exactly these
calls, with no note and no failure: anything else (a field it does not model
with a value it does not expect, a cut-off signal, a message without calls whose
text might hold some, a record carrying its own tools) fails to decode, or makes
:meth:`TypedShape.calls` say None, and the line takes the general path, which alone
decides everything but "these calls, to be judged". So:

- every top-level key that detection looks at (the registry's gate keys) is either
  modelled or must be absent, so no other format can claim a record a shape takes;
  the formats detection would try before a shape's own, on the keys it allows, are
  the ones its required values rule out (checked when a shape is built: a new
  format among them turns the shape off until it is reviewed);
- a value the extractor would turn into something else (a non-string model, an id
  of another type) is refused, never converted.

msgspec is imported here only: the registry does not import this module.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, Literal

import msgspec
import orjson
from msgspec import UNSET, Raw, Struct, UnsetType

from toolaudit.formats.anthropic import CUT_OFF_REASONS
from toolaudit.formats.bedrock import FAILED_STOPS
from toolaudit.formats.registry import REGISTRY, Registry
from toolaudit.formats.request_shapes import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    HISTORY_FIELDS,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
)
from toolaudit.formats.requests import (
    ANTHROPIC_REQUEST,
    BEDROCK_REQUEST,
    GEMINI_REQUEST,
    OPENAI_CHAT_REQUEST,
    OPENAI_RESPONSES_REQUEST,
)
from toolaudit.formats.typed_requests import STRUCT_FIELDS, RequestHistories

#: A call as a shape names it: (its id, the tool's name, its arguments as JSON text).
TypedCall = tuple[object, str, "str | Raw"]
#: The fields of a record that may hold its tools, as JSON text (UNSET where absent).
RecordTools = tuple["Raw | UnsetType", ...]
#: What msgspec raises for a text it refuses, nesting beyond the recursion limit among it.
DECODE_FAILURES = (msgspec.DecodeError, RecursionError)

#: An id, or a model's name: absent reads as null (None), as the extractors read it;
#: a value of another type is refused (the extractor would not pass it on unchanged).
_Text = str | None


class TypedShape:
    """One format's typed record: its decoder, and the calls of a decoded record."""

    __slots__ = ("calls", "decoder", "format", "holds_calls", "record_tools", "request")

    def __init__(
        self,
        format: str,  # shadows the builtin: the format's name
        decoder: msgspec.json.Decoder[Any],
        calls: Callable[[Any], tuple[str | None, list[TypedCall]] | None],
        record_tools: Callable[[Any], RecordTools] | None = None,
        *,
        request: Callable[[Any], Any] | None = None,
        holds_calls: bool = True,
    ) -> None:
        self.format = format
        self.decoder = decoder
        #: (the model, the calls) of a decoded record; None: the general path decides.
        self.calls = calls
        #: For a format whose records may carry the tools that judge them (a logged
        #: request's): the fields that hold them, as JSON text, in a decoded record.
        self.record_tools = record_tools
        #: For a format whose records hold a logged request (a pair's): its decoded
        #: request, whose conversation formats/typed_requests.py reads.
        self.request = request
        #: False for a request logged alone: its record holds no call of its own, and
        #: :attr:`calls` names none where it takes one (it is counted as a record
        #: without calls, its conversation checked).
        self.holds_calls = holds_calls


#: A field of a struct, as msgspec.defstruct takes it: (name, type) or (name, type, default).
_Field = tuple[str, Any] | tuple[str, Any, Any]


def gated_record(
    name: str,
    fields: list[_Field],
    registry: Registry,
    also_forbidden: Iterable[str] = (),
) -> type[Struct]:
    """A top-level struct: ``fields``, and every other gate key of the registry
    forbidden (a record holding one is another format's, or ambiguous), with the
    other keys a recogniser tried before this format looks at, ``also_forbidden``."""
    own = {field[0] for field in fields}
    forbidden = sorted((registry.gate_keys | set(also_forbidden)) - own)
    columns = [*fields, *((f"g{i}", UnsetType, UNSET) for i, _ in enumerate(forbidden))]
    rename = {f"g{i}": key for i, key in enumerate(forbidden)}
    return msgspec.defstruct(name, columns, rename=rename, kw_only=True, gc=False)


#: An id the report echoes as it is (a JSON-RPC id, a batch line's custom_id): a
#: string, or an integer orjson reads exactly.
_AnyId = str | Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)] | None


# -- OpenAI Chat Completions -----------------------------------------------------------


class _Function(Struct, gc=False):
    name: str
    arguments: str


class _ToolCall(Struct, gc=False):
    function: _Function
    id: _Text = None
    # A custom tool's call (free text) is skipped by the extractor: refused here.
    type: Literal["function"] | UnsetType = UNSET


class _ChatMessage(Struct, gc=False):
    tool_calls: list[_ToolCall]
    function_call: UnsetType = UNSET  # a legacy call beside: the general path
    invalid_tool_calls: UnsetType = UNSET  # calls a server could not parse: the same


class _Choice(Struct, gc=False):
    message: _ChatMessage
    finish_reason: str | UnsetType | None = UNSET
    delta: UnsetType = UNSET  # a stream chunk's


def _chat_calls(record: Any) -> tuple[str | None, list[TypedCall]] | None:
    calls: list[TypedCall] = []
    for choice in record.choices:
        tool_calls = choice.message.tool_calls
        if not tool_calls or choice.finish_reason == "length":
            return None  # text to search for calls, or a cut-off note
        for tool_call in tool_calls:
            calls.append((tool_call.id, tool_call.function.name, tool_call.function.arguments))
    return (record.model, calls) if calls else None


# -- OpenAI Responses ------------------------------------------------------------------


class _OutputItem(Struct, gc=False):
    type: str
    name: str | UnsetType = UNSET
    arguments: str | UnsetType = UNSET
    call_id: _Text = None
    status: str | UnsetType | None = UNSET


def _responses_calls(record: Any) -> tuple[str | None, list[TypedCall]] | None:
    if record.status == "incomplete":
        return None  # a cut-off note
    calls: list[TypedCall] = []
    for item in record.output:
        if item.type != "function_call":
            continue
        if item.name is UNSET or item.arguments is UNSET or item.status == "incomplete":
            return None
        calls.append((item.call_id, item.name, item.arguments))
    return (record.model, calls) if calls else None


# -- Anthropic Messages ----------------------------------------------------------------


class _Block(Struct, gc=False):
    type: str
    name: str | UnsetType = UNSET
    id: _Text = None
    input: Raw | UnsetType = UNSET


def _anthropic_calls(record: Any) -> tuple[str | None, list[TypedCall]] | None:
    if record.stop_reason in CUT_OFF_REASONS:
        return None
    calls: list[TypedCall] = []
    for block in record.content:
        if block.type != "tool_use":
            continue
        if block.name is UNSET or block.input is UNSET:
            return None
        calls.append((block.id, block.name, block.input))
    return (record.model, calls) if calls else None


# -- Gemini ----------------------------------------------------------------------------


class _FunctionCall(Struct, gc=False):
    name: str
    args: Raw
    id: _Text = None


class _Part(Struct, gc=False):
    functionCall: _FunctionCall | UnsetType = UNSET
    function_call: UnsetType = UNSET  # snake_case dumps: the general path


class _Content(Struct, gc=False):
    parts: list[_Part]


class _Candidate(Struct, gc=False):
    content: _Content
    finishReason: str | UnsetType | None = UNSET
    finish_reason: UnsetType = UNSET


def _gemini_calls(record: Any) -> tuple[str | None, list[TypedCall]] | None:
    calls: list[TypedCall] = []
    for candidate in record.candidates:
        if candidate.finishReason == "MAX_TOKENS":
            return None
        found = [part.functionCall for part in candidate.content.parts if part.functionCall]
        if not found:
            return None  # a failure the provider reports, or text to search
        calls.extend((call.id, call.name, call.args) for call in found)
    return (record.modelVersion, calls) if calls else None


# -- Bedrock Converse ------------------------------------------------------------------


class _ToolUse(Struct, gc=False):
    name: str
    input: Raw
    toolUseId: _Text = None


class _ContentBlock(Struct, gc=False):
    toolUse: _ToolUse | UnsetType = UNSET


class _BedrockMessage(Struct, gc=False):
    content: list[_ContentBlock]


class _BedrockOutput(Struct, gc=False):
    message: _BedrockMessage


#: A cut-off note, or a failure the provider reports: the extractor's to word.
_BEDROCK_NOTED = frozenset({"max_tokens", *FAILED_STOPS})


def _bedrock_calls(record: Any) -> tuple[str | None, list[TypedCall]] | None:
    if record.stopReason in _BEDROCK_NOTED:
        return None
    calls: list[TypedCall] = [
        (block.toolUse.toolUseId, block.toolUse.name, block.toolUse.input)
        for block in record.output.message.content
        if block.toolUse
    ]
    return (None, calls) if calls else None


# -- Batches and MCP: a record wrapped, or a call of its own ----------------------------


class _CallParams(Struct, gc=False):
    name: str
    arguments: Raw


def _batch_calls(record: Any) -> tuple[str | None, list[TypedCall]] | None:
    return _chat_calls(record.response.body)


def _anthropic_batch_calls(record: Any) -> tuple[str | None, list[TypedCall]] | None:
    return _anthropic_calls(record.result.message)


def _mcp_calls(record: Any) -> tuple[str | None, list[TypedCall]] | None:
    return None, [(record.id, record.params.name, record.params.arguments)]


# -- Request/response pairs -----------------------------------------------------------


#: The fields of a logged request (a pair's, or one logged alone).
_REQUEST_FIELDS: list[_Field] = [
    # Where a logged request keeps its tools (REQUEST_TOOL_FIELDS, read by
    # formats/openai.py request_tools).
    ("tools", Raw | UnsetType, UNSET),
    ("functions", Raw | UnsetType, UNSET),
    ("toolConfig", Raw | UnsetType, UNSET),
    # Its model (a pair's when its response names none): the first of these present.
    ("model", str | UnsetType | None, UNSET),
    ("modelId", str | UnsetType | None, UNSET),
    # Its conversation, and what tells its API: text, parsed only when checked.
    *STRUCT_FIELDS,
]
_Request = msgspec.defstruct("_Request", _REQUEST_FIELDS, kw_only=True, gc=False)


#: The fields of a request its tools may be in, in the order _request_tools gives them.
REQUEST_TOOL_FIELDS = ("tools", "functions", "toolConfig")


def _request_tools(record: Any) -> RecordTools:
    request = record.request
    return request.tools, request.functions, request.toolConfig


#: A pair's request (a C getter: called on every pair's line while its history is checked).
_pair_request = operator.attrgetter("request")


def _pair_calls(
    inner: list[TypedShape],
) -> Callable[[Any], tuple[str | None, list[TypedCall]] | None]:
    """The calls of a pair: its response read as the first of ``inner`` that takes it
    (the one that took the last, tried first)."""

    def calls(record: Any) -> tuple[str | None, list[TypedCall]] | None:
        for position, shape in enumerate(inner):
            try:
                response = shape.decoder.decode(record.response)
            except DECODE_FAILURES:
                continue
            if position:
                inner.insert(0, inner.pop(position))
            named = shape.calls(response)
            if named is None:
                return None
            return named[0] or requested_model(record.request), named[1]
        return None

    return calls


def requested_model(request: Any) -> str | None:
    """The model a decoded request names: the first of its ``model`` and ``modelId``
    present, null too, as ``first_present`` reads it in the parsed request."""
    model = request.model
    if model is UNSET:
        model = request.modelId
    return None if model is UNSET else model


# -- the shapes ------------------------------------------------------------------------
#
# One builder per format, named by the format's ``typed_shape``: (the registry, the
# shapes built before it) -> its shape, or None where detection might give one of the
# records it takes to another format (a format added to the registry among those tried
# before it turns the shape off until the shape is reviewed).


#: A top-level "model" of a format that names its model elsewhere, or not at all: the
#: group --group-by model gives a record whose format names none. Absent here, so that
#: the shape's model is the record's group.
_NO_OTHER_MODEL: tuple[str, Any, Any] = ("model", UnsetType, UNSET)

_Builder = Callable[[Registry, Sequence[TypedShape]], "TypedShape | None"]


def _agreed(
    registry: Registry,
    name: str,
    struct: type[Struct],
    calls: Callable[[Any], tuple[str | None, list[TypedCall]] | None],
    ruled_out: Iterable[str] = (),
) -> TypedShape | None:
    """The shape of format ``name`` if detection agrees, given the formats tried before
    it that the struct's required values rule out."""
    if not _detection_agrees(registry, name, struct, ruled_out):
        return None
    return TypedShape(name, msgspec.json.Decoder(struct), calls)


@functools.cache
def _chat_record(registry: Registry) -> type[Struct]:
    return gated_record(
        "ChatCompletion",
        [
            # openai-chat-stream wants a chunk, openai-completions a text completion.
            ("object", Literal["chat.completion"]),
            ("choices", list[_Choice]),
            ("model", _Text, None),
        ],
        registry,
    )


@functools.cache
def _message_record(registry: Registry) -> type[Struct]:
    return gated_record(
        "Message",
        [
            # The stream formats want event types, never "message".
            ("type", Literal["message"]),
            ("content", list[_Block]),
            ("model", _Text, None),
            ("stop_reason", str | None | UnsetType, UNSET),
        ],
        registry,
    )


def flat_calls(registry: Registry, built: Sequence[TypedShape]) -> None:
    """Flat records have no shape of their own: the reader reads them with
    :class:`toolaudit.typed.flat.FlatCalls`, made from the tools' own decoders."""
    return None


def openai_chat(registry: Registry, built: Sequence[TypedShape]) -> TypedShape | None:
    ruled_out = {"openai-chat-stream", "openai-completions"}
    return _agreed(registry, "openai-chat", _chat_record(registry), _chat_calls, ruled_out)


def openai_responses(registry: Registry, built: Sequence[TypedShape]) -> TypedShape | None:
    fields: list[_Field] = [
        # openai-completions wants a text completion.
        ("object", Literal["response"]),
        ("output", list[_OutputItem]),
        ("model", _Text, None),
        ("status", str | None | UnsetType, UNSET),
    ]
    struct = gated_record("Response", fields, registry)
    return _agreed(registry, "openai-responses", struct, _responses_calls, {"openai-completions"})


def openai_batch(registry: Registry, built: Sequence[TypedShape]) -> TypedShape | None:
    response = msgspec.defstruct(
        "BatchResponse",
        [("body", _chat_record(registry)), ("status_code", Literal[200] | UnsetType, UNSET)],
        kw_only=True,
        gc=False,
    )
    struct = gated_record(
        "BatchOutput",
        [("custom_id", _AnyId), ("response", response), _NO_OTHER_MODEL],
        registry,
        # An input line has both; anthropic-batch wants a result.
        also_forbidden=("body", "method"),
    )
    ruled_out = {"anthropic-batch", "openai-batch-input"}
    return _agreed(registry, "openai-batch", struct, _batch_calls, ruled_out)


def anthropic(registry: Registry, built: Sequence[TypedShape]) -> TypedShape | None:
    ruled_out = {"openai-responses-stream", "anthropic-stream"}
    return _agreed(registry, "anthropic", _message_record(registry), _anthropic_calls, ruled_out)


def anthropic_batch(registry: Registry, built: Sequence[TypedShape]) -> TypedShape | None:
    result = msgspec.defstruct(
        "AnthropicResult",
        [("type", Literal["succeeded"]), ("message", _message_record(registry))],
        gc=False,
    )
    struct = gated_record(
        "AnthropicBatchResult",
        [("custom_id", _AnyId), ("result", result), _NO_OTHER_MODEL],
        registry,
    )
    return _agreed(registry, "anthropic-batch", struct, _anthropic_batch_calls)


def gemini(registry: Registry, built: Sequence[TypedShape]) -> TypedShape | None:
    fields: list[_Field] = [
        ("candidates", list[_Candidate]),
        ("modelVersion", _Text, None),
        ("model_version", UnsetType, UNSET),
        _NO_OTHER_MODEL,
    ]
    struct = gated_record("GenerateContentResponse", fields, registry)
    return _agreed(registry, "gemini", struct, _gemini_calls)


def mcp(registry: Registry, built: Sequence[TypedShape]) -> TypedShape | None:
    fields: list[_Field] = [
        ("jsonrpc", Literal["2.0"]),
        ("method", Literal["tools/call"]),
        ("params", _CallParams),
        ("id", _AnyId, None),
        _NO_OTHER_MODEL,
    ]
    return _agreed(registry, "mcp", gated_record("ToolsCall", fields, registry), _mcp_calls)


def bedrock(registry: Registry, built: Sequence[TypedShape]) -> TypedShape | None:
    fields: list[_Field] = [
        # openai-responses wants an output array; this one is an object.
        ("output", _BedrockOutput),
        ("stopReason", str | None | UnsetType, UNSET),
        _NO_OTHER_MODEL,
    ]
    struct = gated_record("ConverseResponse", fields, registry)
    return _agreed(registry, "bedrock", struct, _bedrock_calls, {"openai-responses"})


#: The formats a pair's response is read as (not a batch line or an MCP request, whose
#: tools come from elsewhere).
_PAIRED = frozenset({"openai-chat", "anthropic", "gemini", "openai-responses", "bedrock"})
#: The formats detection tries before envelope on a pair's keys, which its values rule
#: out: a Batch line needs a custom_id.
_PAIR_RULED_OUT = {"openai-batch", "anthropic-batch", "openai-batch-input"}


def envelope(registry: Registry, built: Sequence[TypedShape]) -> TypedShape | None:
    """A pair whose response is one of the provider responses built before it."""
    inner = [shape for shape in built if shape.format in _PAIRED]
    pair = gated_record(
        "Pair", [("request", _Request), ("response", Raw), _NO_OTHER_MODEL], registry
    )
    if not inner or not _detection_agrees(registry, "envelope", pair, _PAIR_RULED_OUT):
        return None
    decoder = msgspec.json.Decoder(pair)
    return TypedShape(
        "envelope", decoder, _pair_calls(inner), _request_tools, request=_pair_request
    )


# -- Requests logged alone -------------------------------------------------------------


#: The formats of requests logged alone, and the API each reads (formats/requests.py).
_REQUESTS_ALONE = {
    OPENAI_CHAT_REQUEST.name: OPENAI_CHAT,
    OPENAI_RESPONSES_REQUEST.name: OPENAI_RESPONSES,
    ANTHROPIC_REQUEST.name: ANTHROPIC,
    BEDROCK_REQUEST.name: BEDROCK,
    GEMINI_REQUEST.name: GEMINI,
}
#: The first byte of a JSON array, and of a string.
_LIST, _STRING = ord("["), ord('"')


@functools.cache
def _request_alone_record(registry: Registry, field: str) -> type[Struct]:
    """A request logged alone whose conversation is in ``field`` (required)."""
    fields: list[_Field] = [
        (field, Raw) if column[0] == field else column for column in _REQUEST_FIELDS
    ]
    return gated_record(f"RequestAlone_{field}", fields, registry)


@functools.cache
def _request_alone_decoder(
    registry: Registry, name: str, field: str
) -> msgspec.json.Decoder[Any] | None:
    """The decoder of the requests of format ``name`` logged alone, if detection agrees
    (found once: every audit's typed reader builds the shapes again)."""
    struct = _request_alone_record(registry, field)
    # The other request formats detection may try before this one take a request whose
    # API is told as theirs: calls() takes only one told as this one's.
    if not _detection_agrees(registry, name, struct, _REQUESTS_ALONE):
        return None
    return msgspec.json.Decoder(struct)


def _request_alone_calls(
    shape: str, field: str
) -> Callable[[Any], tuple[str | None, list[TypedCall]] | None]:
    """(its model, no call) of a request logged alone that the format reading ``shape``
    takes, as its recogniser does; None where the general path decides (its API told
    otherwise, or only by its messages, which are not read here)."""
    requests = RequestHistories()  # (it keeps the shape the last request's tools told)
    one_string = shape == OPENAI_RESPONSES

    def calls(record: Any) -> tuple[str | None, list[TypedCall]] | None:
        # Its conversation a list; a Responses input may be one string, in a request that
        # names its model (present, even null).
        opener = memoryview(getattr(record, field))[0]
        if opener != _LIST and not (one_string and opener == _STRING and record.model is not UNSET):
            return None
        try:
            told = requests.told(record)
        except orjson.JSONDecodeError:
            return None
        if told is None or told[0] != shape:
            return None  # another request format's (detection tells one), or untold
        return requested_model(record), []

    return calls


def _itself(record: Any) -> Any:
    return record


def _request_alone(name: str) -> _Builder:
    """The builder of the shape of the requests logged alone of format ``name``."""
    shape = _REQUESTS_ALONE[name]
    field = HISTORY_FIELDS[shape]

    def build(registry: Registry, built: Sequence[TypedShape]) -> TypedShape | None:
        decoder = _request_alone_decoder(registry, name, field)
        if decoder is None:
            return None
        calls = _request_alone_calls(shape, field)
        return TypedShape(name, decoder, calls, request=_itself, holds_calls=False)

    build.__name__ = name.replace("-", "_")
    return build


#: Each builder, by the name a format's ``typed_shape`` gives.
BUILDERS: dict[str, _Builder] = {
    builder.__name__: builder
    for builder in (
        flat_calls,
        openai_chat,
        openai_responses,
        openai_batch,
        anthropic,
        anthropic_batch,
        gemini,
        mcp,
        bedrock,
        envelope,
        *map(_request_alone, _REQUESTS_ALONE),
    )
}


def typed_shapes(registry: Registry = REGISTRY) -> list[TypedShape]:
    """The shapes of the formats that declare one (``Format.typed_shape``), in the
    registry's order, each only if detection would pick its format for every record
    it takes. (Flat records have none: see :func:`flat_calls`.)"""
    shapes: list[TypedShape] = []
    for fmt in registry.formats:
        if fmt.typed_shape is not None:
            shape = BUILDERS[fmt.typed_shape](registry, shapes)
            if shape is not None:
                shapes.append(shape)
    return shapes


def _detection_agrees(
    registry: Registry, name: str, struct: type[Struct], ruled_out: Iterable[str]
) -> bool:
    """Whether, on any set of the gate keys ``struct`` allows, detection tries no
    format before ``name`` but those its values rule out."""
    allowed = [
        field.encode_name
        for field in msgspec.structs.fields(struct)
        if field.encode_name in registry.gate_keys and field.type is not UnsetType
    ]
    required = {
        field.encode_name for field in msgspec.structs.fields(struct) if field.required
    } & registry.gate_keys
    optional = [key for key in allowed if key not in required]
    for mask in range(1 << len(optional)):
        present = required | {key for i, key in enumerate(optional) if mask >> i & 1}
        before = registry.candidates(frozenset(present))
        if name not in before:
            return False
        if not set(before[: before.index(name)]) <= set(ruled_out):
            return False
    return True
