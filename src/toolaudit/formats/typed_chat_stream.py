"""The typed shape of OpenAI Chat Completions chunks (see
:mod:`toolaudit.formats.typed_streams`): what openai_chat_stream.chunk() reads, decoded
by msgspec, and the lane or the step of a decoded chunk."""

from __future__ import annotations

import functools
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Struct, UnsetType

from toolaudit.formats import openai_chat_stream
from toolaudit.formats.openai_chat_stream import (
    chunk_step,
    function_call_fragment,
    length_note,
    tool_call_fragment,
)
from toolaudit.formats.registry import REGISTRY, Registry
from toolaudit.formats.stream_steps import Fragment, StreamStep
from toolaudit.formats.typed import _detection_agrees
from toolaudit.formats.typed_stream_shape import (
    ACCOMPANY,
    APPEND,
    BEGIN_CALL,
    END,
    Extra,
    Field,
    Index,
    Lane,
    Text,
    TypedStreamShape,
    full_record,
    quick_decoder,
)


class _FunctionDelta(Struct, gc=False):
    name: Text = None
    arguments: Text = None


class _ToolCallDelta(Struct, gc=False):
    index: Index | UnsetType = UNSET
    id: Text = None
    type: Text = None
    function: _FunctionDelta | None = None


class _Delta(Struct, gc=False):
    # Only whether these are null counts (see openai_chat_stream._CONTENT).
    role: Any = None
    content: Any = None
    refusal: Any = None
    tool_calls: list[_ToolCallDelta] | None = None
    function_call: _FunctionDelta | None = None


class _ChunkChoice(Struct, gc=False):
    index: Index = 0
    delta: _Delta | None = None
    finish_reason: Text = None


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


#: A chunk's keys in the order the API sends them, with those it is not read for (Extra).
_FIELDS: list[Field] = [
    # An integer id is a stream id too: the general path's, as are wrapped events.
    ("id", Text, None),
    ("object", Literal["chat.completion.chunk"]),
    ("created", Extra, UNSET),
    ("model", Text, None),
    ("service_tier", Extra, UNSET),
    ("system_fingerprint", Extra, UNSET),
    ("choices", list[_ChunkChoice]),
    ("usage", Extra, UNSET),
    ("obfuscation", Extra, UNSET),
]


@functools.cache
def _chunk_record(registry: Registry) -> type[Struct]:
    return full_record("ChatCompletionChunk", _FIELDS, registry)


def openai_chat_stream_shape(registry: Registry = REGISTRY) -> TypedStreamShape | None:
    struct = _chunk_record(registry)
    if not _detection_agrees(registry, _CHAT, struct, ()):
        return None
    quick = quick_decoder("ChatCompletionChunk", _FIELDS, registry)
    return TypedStreamShape(_CHAT, msgspec.json.Decoder(struct), _chat_lane, _chat_step, quick)
