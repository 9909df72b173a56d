"""OpenAI Responses streams: ``response.*`` events. After ``response.created`` they
carry no response id, so a stream's events follow one another in the log, unless
each line wraps its event with a stream id (see :mod:`toolaudit.formats.streams`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import CUT_OFF, Extracted, UnknownShape, as_dict, as_list
from toolaudit.formats.declaration import Format
from toolaudit.formats.stream_steps import (
    ACCOMPANIES,
    BEGINS,
    BEGINS_OR_CONTINUES,
    CONTINUES,
    Fragment,
    StreamStep,
    Whole,
    alone_or_wrapped,
    as_text,
    is_index,
    reported,
    unwrap,
)

NAME = "openai-responses-stream"
#: The events that end a stream; their ``response.output`` repeats every item.
_FINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


def event(record: Mapping[str, Any]) -> Extracted:
    """``response.output_item.added`` (a ``function_call`` item) begins a call,
    ``response.function_call_arguments.delta`` adds to its arguments, the ``.done``
    events and the final ``response.output`` repeat it whole: each call counts once."""
    event, stream_id, model = unwrap(record)
    kind = event.get("type")
    if not _is_event(event) or not isinstance(kind, str):
        raise UnknownShape("an OpenAI Responses stream event needs a type response.*")
    role = CONTINUES
    fragments: tuple[Fragment, ...] = ()
    ends, cut = False, None
    notes: tuple[tuple[int, str], ...] = ()
    response = as_dict(event.get("response"))
    if kind == "response.created":
        role = BEGINS
    elif kind in ("response.output_item.added", "response.output_item.done"):
        fragments = (_item(event.get("output_index"), event.get("item"), kind.endswith("done")),)
    elif kind == "response.function_call_arguments.delta":
        slot, label = _slot(event.get("output_index"))
        fragments = (Fragment(slot, label, arguments=as_text(event.get("delta"))),)
    elif kind == "response.function_call_arguments.done":
        slot, label = _slot(event.get("output_index"))
        fragments = (Whole(slot, label, arguments=as_text(event.get("arguments"))),)
    elif kind in _FINAL:
        role, ends = BEGINS_OR_CONTINUES, True
        output = as_list(response.get("output"))
        fragments = tuple(_item(index, item, True) for index, item in enumerate(output))
        if response.get("status") == "incomplete":
            reason = _reason(response)
            notes = ((0, CUT_OFF.format(f'status "incomplete", {reason}')),)
        elif kind == "response.failed":
            error = as_dict(response.get("error"))
            cut = reported("OpenAI reported the response failed", error, "code", "message")
    elif kind == "error":
        role, cut = ACCOMPANIES, reported("OpenAI reported an error", event, "code", "message")
    else:  # text, reasoning, the provider's own tools: nothing to assemble
        role = ACCOMPANIES
    model = response.get("model") or model
    step = StreamStep(
        NAME,
        stream_id,
        role,
        kind,
        label="OpenAI Responses",
        begins_with="response.created",
        model=model,
        fragments=fragments,
        ends=ends,
        notes=notes,
        cut=cut,
    )
    return Extracted(NAME, model=model, stream=step)


def _slot(index: object) -> tuple[tuple[int, ...], str]:
    if not is_index(index):
        raise UnknownShape("an OpenAI Responses stream event's output_index must be an integer")
    return (0, index), f"output item {index}"


def _item(index: object, item: object, whole: bool) -> Fragment:
    """An output item: a function call begins (or, whole, replaces) the call at its
    index; any other item is skipped."""
    slot, label = _slot(index)
    item = as_dict(item)
    if item.get("type") != "function_call":
        return Fragment(slot, label, skipped=True)
    fragment = Whole if whole else Fragment
    return fragment(
        slot,
        label,
        begins=True,
        id=item.get("call_id"),
        name=item.get("name"),
        arguments=as_text(item.get("arguments")),
    )


def _reason(response: Mapping[str, Any]) -> str:
    reason = as_dict(response.get("incomplete_details")).get("reason")
    return reason if isinstance(reason, str) else "no reason given"


def _is_event(record: Mapping[str, Any]) -> bool:
    kind = record.get("type")
    if not isinstance(kind, str):
        return False
    # An Anthropic error event has an "error" object instead of a sequence number.
    return kind.startswith("response.") or (kind == "error" and "sequence_number" in record)


OPENAI_RESPONSES_STREAM = Format(
    name=NAME,
    summary="OpenAI Responses stream events",
    recognises=alone_or_wrapped(_is_event),
    keys=("type", "event"),
    extract=event,
    family="OpenAI",
    variant="stream",
)
