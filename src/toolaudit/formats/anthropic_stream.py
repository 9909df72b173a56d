"""Anthropic Messages streams: ``message_start`` ... ``message_stop`` events. After
``message_start`` they carry no message id, so a stream's events follow one another
in the log, unless each line wraps its event with a stream id (see
:mod:`toolaudit.formats.streams`)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from toolaudit.formats.anthropic import CUT_OFF_REASONS
from toolaudit.formats.base import CUT_OFF, Extracted, UnknownShape, as_dict, is_one_of
from toolaudit.formats.declaration import Format
from toolaudit.formats.stream_steps import (
    ACCOMPANIES,
    BEGINS,
    CONTINUES,
    Fragment,
    StreamStep,
    alone_or_wrapped,
    as_text,
    is_index,
    reported,
    unwrap,
)
from toolaudit.jsonutil import dumps_any

NAME = "anthropic-stream"
EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    }
)


def stream_event(record: Mapping[str, Any]) -> Extracted:
    """A ``tool_use`` block's ``content_block_start`` begins a call (its ``input``
    is a placeholder, ``{}``); its ``input_json_delta`` events carry the input as
    JSON text in pieces, passed on as text (a cut stream's does not parse)."""
    event, stream_id, model = unwrap(record)
    kind = event.get("type")
    if not is_one_of(kind, EVENTS) or not isinstance(kind, str):
        raise UnknownShape("an Anthropic stream event needs a type such as message_start")
    role = CONTINUES
    fragments: tuple[Fragment, ...] = ()
    notes: tuple[tuple[int, str], ...] = ()
    cut = None
    if kind == "message_start":
        role = BEGINS
        model = as_dict(event.get("message")).get("model") or model
    elif kind == "content_block_start":
        fragments = (_block_start(event),)
    elif kind == "content_block_delta":
        delta = as_dict(event.get("delta"))
        if delta.get("type") == "input_json_delta":
            index = _index(event)
            fragments = (json_delta_fragment(index, as_text(delta.get("partial_json"))),)
    elif kind == "message_delta":
        notes = stop_notes(as_dict(event.get("delta")).get("stop_reason"))
    elif kind == "ping":
        role = ACCOMPANIES
    elif kind == "error":
        error = as_dict(event.get("error"))
        role, cut = ACCOMPANIES, reported("Anthropic reported an error", error, "type", "message")
    step = event_step(stream_id, role, kind, model, fragments, notes, cut)
    return Extracted(NAME, model=model, stream=step)


def event_step(
    stream_id: Hashable | None,
    role: str,
    kind: str,
    model: object,
    fragments: tuple[Fragment, ...] = (),
    notes: tuple[tuple[int, str], ...] = (),
    cut: str | None = None,
) -> StreamStep:
    """The step of an event of type ``kind`` (its typed reading shares it)."""
    return StreamStep(
        NAME,
        stream_id,
        role,
        kind,
        label="Anthropic",
        begins_with="message_start",
        model=model,
        fragments=fragments,
        ends=kind == "message_stop",
        notes=notes,
        cut=cut,
    )


def stop_notes(stop: object) -> tuple[tuple[int, str], ...]:
    """The note a ``message_delta``'s stop reason puts on the calls: one if it cut them off."""
    if is_one_of(stop, CUT_OFF_REASONS):
        return ((0, CUT_OFF.format(f'stop_reason "{stop}"')),)
    return ()


def json_delta_fragment(index: int, partial: str | None) -> Fragment:
    """What an ``input_json_delta`` adds to the call of content block ``index``."""
    return Fragment((0, index), f"content block {index}", arguments=partial)


def _index(event: Mapping[str, Any]) -> int:
    index = event.get("index")
    if not is_index(index):
        raise UnknownShape("an Anthropic stream event's index must be an integer")
    return index


def _block_start(event: Mapping[str, Any]) -> Fragment:
    index = _index(event)
    block = as_dict(event.get("content_block"))
    if block.get("type") != "tool_use":
        return block_start_fragment(index, tool_use=False)
    start_input = block.get("input")
    return block_start_fragment(
        index,
        tool_use=True,
        call_id=block.get("id"),
        name=block.get("name"),
        placeholder=None if start_input is None else dumps_any(start_input).decode(),
    )


def block_start_fragment(
    index: int,
    *,
    tool_use: bool,
    call_id: object = None,
    name: object = None,
    placeholder: str | None = None,
) -> Fragment:
    """What a ``content_block_start`` begins at content block ``index``: a call when the
    block is a ``tool_use`` (``placeholder``: its start input as JSON text, if any)."""
    slot, label = (0, index), f"content block {index}"
    if not tool_use:
        # Text, thinking, and Anthropic's own tools (server_tool_use: no user schema).
        return Fragment(slot, label, skipped=True)
    # A block with no input deltas keeps its start input (a tool with no parameters).
    return Fragment(slot, label, begins=True, id=call_id, name=name, placeholder=placeholder)


def _is_event(record: Mapping[str, Any]) -> bool:
    kind = record.get("type")
    if kind == "error":  # OpenAI Responses has an error event too, without this object
        return isinstance(record.get("error"), Mapping)
    return is_one_of(kind, EVENTS)


ANTHROPIC_STREAM = Format(
    name=NAME,
    summary="Anthropic Messages stream events",
    recognises=alone_or_wrapped(_is_event),
    keys=("type", "event"),
    extract=stream_event,
    family="Anthropic",
    variant="stream",
)
