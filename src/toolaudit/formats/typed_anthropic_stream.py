"""The typed shape of Anthropic Messages stream events (see
:mod:`toolaudit.formats.typed_streams`): what anthropic_stream.stream_event() reads of an
unwrapped event, decoded by msgspec, and the lane or the step of a decoded event."""

from __future__ import annotations

from typing import Any, Literal

import msgspec
import orjson
from msgspec import UNSET, Raw, Struct, UnsetType

from toolaudit.formats import anthropic_stream
from toolaudit.formats.anthropic_stream import (
    block_start_fragment,
    event_step,
    json_delta_fragment,
    stop_notes,
)
from toolaudit.formats.registry import REGISTRY, Registry
from toolaudit.formats.stream_steps import ACCOMPANIES, BEGINS, CONTINUES, Fragment, StreamStep
from toolaudit.formats.typed import _detection_agrees
from toolaudit.formats.typed_stream_shape import (
    ACCOMPANY,
    APPEND,
    BEGIN_CALL,
    BEGIN_STREAM,
    CONTINUE,
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
from toolaudit.jsonutil import dumps_any, orjson_may_differ


class _StartMessage(Struct, gc=False):
    model: Text = None


class _StartBlock(Struct, gc=False):
    type: Text = None
    id: Text = None
    name: Text = None
    input: Raw | UnsetType = UNSET


class _EventDelta(Struct, gc=False):
    type: Text = None
    partial_json: Text = None
    stop_reason: Text = None


_ANTHROPIC = anthropic_stream.NAME
#: Its key: unwrapped, an event carries no stream id.
_ANTHROPIC_KEY = (_ANTHROPIC, None)
#: The lanes that carry nothing of their event (made once: a third of the events).
_CONTINUE_LANE = (CONTINUE, _ANTHROPIC_KEY, None)
_END_LANE = (END, _ANTHROPIC_KEY, None, None)
_PING_LANE = (ACCOMPANY, _ANTHROPIC_KEY, None)
#: The events read here (an error event is the general path's to word).
_EventType: Any = Literal[tuple(sorted(anthropic_stream.EVENTS - {"error"}))]


def _anthropic_lane(event: Any) -> Lane | None:
    kind = event.type
    if kind == "content_block_delta":
        delta = event.delta
        if delta is None or delta.type != "input_json_delta":
            return _CONTINUE_LANE
        if event.index is UNSET or delta.partial_json is None:
            return None
        return APPEND, _ANTHROPIC_KEY, (0, event.index), None, delta.partial_json, None
    if kind == "content_block_stop":
        return _CONTINUE_LANE
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
        return _END_LANE
    if kind == "ping":
        return _PING_LANE
    if kind == "message_delta" and not stop_notes(event.delta and event.delta.stop_reason):
        return _CONTINUE_LANE
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


#: An event's keys in the order the API sends them, with those it is not read for (Extra).
_FIELDS: list[Field] = [
    ("type", _EventType),
    ("index", Index | UnsetType, UNSET),
    ("message", _StartMessage | None, None),
    ("content_block", _StartBlock | None, None),
    ("delta", _EventDelta | None, None),
    ("usage", Extra, UNSET),
]


def anthropic_stream_shape(registry: Registry = REGISTRY) -> TypedStreamShape | None:
    struct = full_record("AnthropicStreamEvent", _FIELDS, registry)
    # openai-responses-stream, tried first, wants "response." types (or an error).
    if not _detection_agrees(registry, _ANTHROPIC, struct, {"openai-responses-stream"}):
        return None
    quick = quick_decoder("AnthropicStreamEvent", _FIELDS, registry)
    return TypedStreamShape(
        _ANTHROPIC, msgspec.json.Decoder(struct), _anthropic_lane, _anthropic_step, quick
    )
