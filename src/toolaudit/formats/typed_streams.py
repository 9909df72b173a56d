"""Typed stream shapes: chunk and event lines decoded by msgspec into exactly what the
stream formats read, for the audit's typed stream reader.

A shape's :meth:`~TypedStreamShape.lane` says what a decoded line does to its stream
in the terms of the assembler's lanes (:mod:`toolaudit.formats.stream_lanes`), or its
:meth:`~TypedStreamShape.step` gives the line's
:class:`~toolaudit.formats.stream_steps.StreamStep`, made by the same functions
the format modules make it with. A line the shape cannot read exactly (a value of a
type the extractor would treat otherwise, a wrapped event, a provider's error event)
fails to decode or gives None, and the general path reads it, as for whole responses
(:mod:`toolaudit.formats.typed`, whose gate-key rules these shapes follow).

msgspec is imported here only: the registry does not import this module.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, Literal

import msgspec
import orjson
from msgspec import UNSET, Raw, Struct, UnsetType

from toolaudit.formats import anthropic_stream, openai_chat_stream
from toolaudit.formats.anthropic_stream import (
    block_start_fragment,
    event_step,
    json_delta_fragment,
    stop_notes,
)
from toolaudit.formats.openai_chat_stream import (
    chunk_step,
    function_call_fragment,
    length_note,
    tool_call_fragment,
)
from toolaudit.formats.registry import REGISTRY, Registry
from toolaudit.formats.stream_steps import (
    ACCOMPANIES,
    BEGINS,
    CONTINUES,
    MOST_INDEX,
    Fragment,
    StreamStep,
)
from toolaudit.formats.typed import _detection_agrees, _record
from toolaudit.jsonutil import dumps_any, orjson_may_differ

#: The lanes, each the first item of its tuples, the rest the arguments of the
#: StreamLanes method it names, the line and its context left out:
APPEND = 0  # append(key, slot, group, text, model)
ACCOMPANY = 1  # touch(key, model, accompanies=True)
CONTINUE = 2  # touch(key, model, accompanies=False)
BEGIN_CALL = 3  # begin_call(key, slot, group, call_id, name, text, placeholder, model, may_begin)
BEGIN_STREAM = 4  # begin_stream(key, model)
END = 5  # end(key, group, model)
Lane = tuple[Any, ...]

#: A choice, call or block index, as :func:`~toolaudit.formats.stream_steps.is_index`
#: takes one (msgspec's strict ``int`` refuses booleans).
_Index = Annotated[int, msgspec.Meta(ge=0, le=MOST_INDEX)]
#: A text read as it is: any other type is refused, never converted.
_Text = str | None


class TypedStreamShape:
    """One stream format's typed line: its decoder, its lane, its step."""

    __slots__ = ("decoder", "format", "lane", "step")

    def __init__(
        self,
        format: str,  # shadows the builtin: the format's name
        decoder: msgspec.json.Decoder[Any],
        lane: Callable[[Any], Lane | None],
        step: Callable[[Any], StreamStep | None],
    ) -> None:
        self.format = format
        self.decoder = decoder
        #: The lane of a decoded line, or None: make its step.
        self.lane = lane
        #: The step of a decoded line, or None: the general path reads the line.
        self.step = step


# -- OpenAI Chat Completions chunks -----------------------------------------------------


class _FunctionDelta(Struct, gc=False):
    name: _Text = None
    arguments: _Text = None


class _ToolCallDelta(Struct, gc=False):
    index: _Index | UnsetType = UNSET
    id: _Text = None
    type: _Text = None
    function: _FunctionDelta | None = None


class _Delta(Struct, gc=False):
    # Only whether these are null counts (see openai_chat_stream._CONTENT).
    role: Any = None
    content: Any = None
    refusal: Any = None
    tool_calls: list[_ToolCallDelta] | None = None
    function_call: _FunctionDelta | None = None


class _ChunkChoice(Struct, gc=False):
    index: _Index = 0
    delta: _Delta | None = None
    finish_reason: _Text = None


_CHAT = openai_chat_stream.NAME


def _chat_lane(chunk: Any) -> Lane | None:
    """A chunk of no content (a usage-only chunk), or of one choice whose delta brings
    one tool call's delta or its finish_reason."""
    choices = chunk.choices
    key = (_CHAT, chunk.id)
    if not choices:
        return ACCOMPANY, key, chunk.model or None
    if len(choices) != 1:
        return None
    choice = choices[0]
    delta = choice.delta or _NO_DELTA
    if delta.function_call is not None:
        return None
    tool_calls = delta.tool_calls
    finish = choice.finish_reason
    group = choice.index
    if finish is not None:
        # (Content beside it speaks for the choice it ends: nothing more.)
        if tool_calls is not None or finish == "length":
            return None
        return END, key, group, chunk.model or None
    if tool_calls is None or len(tool_calls) != 1:
        return None
    tool_call = tool_calls[0]
    if tool_call.type == "custom":
        return None
    index = 0 if tool_call.index is UNSET else tool_call.index
    function = tool_call.function or _NO_FUNCTION
    call_id, name, text = tool_call.id, function.name, function.arguments
    if call_id is not None or name is not None:
        model = chunk.model or None
        return BEGIN_CALL, key, (group, 0, index), group, call_id, name, text, None, model, True
    if (
        text is None
        or delta.role is not None
        or delta.content is not None
        or delta.refusal is not None
    ):
        return None
    return APPEND, key, (group, 0, index), group, text, chunk.model or None


def _chat_step(chunk: Any) -> StreamStep:
    """What openai_chat_stream.chunk() reads the same chunk into."""
    fragments: list[Fragment] = []
    groups: list[int] = []
    ended: list[int] = []
    notes: list[tuple[int, str]] = []
    for choice in chunk.choices:
        group = choice.index
        delta = choice.delta
        if delta is not None:
            legacy = delta.function_call
            if (
                delta.role is not None
                or delta.content is not None
                or delta.refusal is not None
                or delta.tool_calls is not None
                or legacy is not None
            ):
                groups.append(group)
            for position, tool_call in enumerate(delta.tool_calls or ()):
                function = tool_call.function or _NO_FUNCTION
                fragments.append(
                    tool_call_fragment(
                        group,
                        position if tool_call.index is UNSET else tool_call.index,
                        custom=tool_call.type == "custom",
                        call_id=tool_call.id,
                        name=function.name,
                        arguments=function.arguments,
                    )
                )
            if legacy is not None:
                fragments.append(function_call_fragment(group, legacy.name, legacy.arguments))
        finish = choice.finish_reason
        if finish is not None:
            ended.append(group)
            if finish == "length":
                notes.append(length_note(group))
    return chunk_step(chunk.id, chunk.model or None, fragments, groups, ended, notes)


_NO_FUNCTION = _FunctionDelta()
_NO_DELTA = _Delta()


@functools.cache
def _chunk_record(registry: Registry) -> type[Struct]:
    return _record(
        "ChatCompletionChunk",
        [
            ("object", Literal["chat.completion.chunk"]),
            ("choices", list[_ChunkChoice]),
            # An integer id is a stream id too: the general path's, as are wrapped events.
            ("id", _Text, None),
            ("model", _Text, None),
        ],
        registry,
    )


def openai_chat_stream_shape(registry: Registry = REGISTRY) -> TypedStreamShape | None:
    struct = _chunk_record(registry)
    if not _detection_agrees(registry, _CHAT, struct, ()):
        return None
    return TypedStreamShape(_CHAT, msgspec.json.Decoder(struct), _chat_lane, _chat_step)


# -- Anthropic Messages events ----------------------------------------------------------


class _StartMessage(Struct, gc=False):
    model: _Text = None


class _StartBlock(Struct, gc=False):
    type: _Text = None
    id: _Text = None
    name: _Text = None
    input: Raw | UnsetType = UNSET


class _EventDelta(Struct, gc=False):
    type: _Text = None
    partial_json: _Text = None
    stop_reason: _Text = None


_ANTHROPIC = anthropic_stream.NAME
#: Its key: unwrapped, an event carries no stream id.
_ANTHROPIC_KEY = (_ANTHROPIC, None)
#: The events read here (an error event is the general path's to word).
_EventType: Any = Literal[tuple(sorted(anthropic_stream.EVENTS - {"error"}))]


def _anthropic_lane(event: Any) -> Lane | None:
    kind = event.type
    if kind == "content_block_delta":
        delta = event.delta
        if delta is None or delta.type != "input_json_delta":
            return CONTINUE, _ANTHROPIC_KEY, None
        if event.index is UNSET or delta.partial_json is None:
            return None
        return APPEND, _ANTHROPIC_KEY, (0, event.index), None, delta.partial_json, None
    if kind == "content_block_stop":
        return CONTINUE, _ANTHROPIC_KEY, None
    if kind == "content_block_start":
        block = event.content_block
        if event.index is UNSET or block is None or block.type != "tool_use":
            return None
        try:
            placeholder = _placeholder(block)
        except _Unread:
            return None
        slot, call_id, name = (0, event.index), block.id, block.name
        return BEGIN_CALL, _ANTHROPIC_KEY, slot, None, call_id, name, None, placeholder, None, False
    if kind == "message_start":
        model = event.message.model if event.message is not None else None
        return BEGIN_STREAM, _ANTHROPIC_KEY, model or None
    if kind == "message_stop":
        return END, _ANTHROPIC_KEY, None, None
    if kind == "ping":
        return ACCOMPANY, _ANTHROPIC_KEY, None
    if kind == "message_delta" and not stop_notes(event.delta and event.delta.stop_reason):
        return CONTINUE, _ANTHROPIC_KEY, None
    return None


def _anthropic_step(event: Any) -> StreamStep | None:
    """What anthropic_stream.stream_event() reads the same event into (None: the
    general path says what is wrong with it)."""
    kind = event.type
    if kind == "message_start":
        model = event.message.model if event.message is not None else None
        return event_step(None, BEGINS, kind, model or None)
    fragments: tuple[Fragment, ...] = ()
    if kind == "content_block_start":
        if event.index is UNSET:
            return None
        fragment = _block_start(event.index, event.content_block)
        if fragment is None:
            return None
        fragments = (fragment,)
    elif kind == "content_block_delta":
        delta = event.delta
        if delta is not None and delta.type == "input_json_delta":
            if event.index is UNSET:
                return None
            fragments = (json_delta_fragment(event.index, delta.partial_json),)
    elif kind == "message_delta":
        notes = stop_notes(event.delta.stop_reason if event.delta is not None else None)
        return event_step(None, CONTINUES, kind, None, notes=notes)
    role = ACCOMPANIES if kind == "ping" else CONTINUES
    return event_step(None, role, kind, None, fragments)


def _block_start(index: int, block: _StartBlock | None) -> Fragment | None:
    if block is None or block.type != "tool_use":
        return block_start_fragment(index, tool_use=False)
    try:
        placeholder = _placeholder(block)
    except _Unread:
        return None
    return block_start_fragment(
        index, tool_use=True, call_id=block.id, name=block.name, placeholder=placeholder
    )


class _Unread(Exception):
    """The general path must read the line."""


def _placeholder(block: _StartBlock) -> str | None:
    """A tool_use block's start input as the extractor writes it (None: none); raises
    _Unread for one holding a number orjson may read otherwise than the general path."""
    start_input = block.input
    if start_input is UNSET:
        return None
    text = bytes(start_input)
    if text == b"{}":
        return "{}"  # the commonest: read and written again as it is
    if text == b"null":
        return None
    if orjson_may_differ(text):
        raise _Unread
    try:
        return dumps_any(orjson.loads(text)).decode()
    except orjson.JSONDecodeError:
        raise _Unread from None


def anthropic_stream_shape(registry: Registry = REGISTRY) -> TypedStreamShape | None:
    struct = _record(
        "AnthropicStreamEvent",
        [
            ("type", _EventType),
            ("index", _Index | UnsetType, UNSET),
            ("message", _StartMessage | None, None),
            ("content_block", _StartBlock | None, None),
            ("delta", _EventDelta | None, None),
        ],
        registry,
    )
    # openai-responses-stream, tried first, wants "response." types (or an error).
    if not _detection_agrees(registry, _ANTHROPIC, struct, {"openai-responses-stream"}):
        return None
    return TypedStreamShape(
        _ANTHROPIC, msgspec.json.Decoder(struct), _anthropic_lane, _anthropic_step
    )


def typed_stream_shapes(registry: Registry = REGISTRY) -> dict[str, TypedStreamShape]:
    """The stream formats the typed path reads, by name, each only if detection would
    pick its format for every line it takes."""
    shapes = (openai_chat_stream_shape(registry), anthropic_stream_shape(registry))
    return {shape.format: shape for shape in shapes if shape is not None}
