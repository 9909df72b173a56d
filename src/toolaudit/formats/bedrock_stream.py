"""AWS Bedrock ConverseStream events, one a line as boto3 yields them
(``{"contentBlockDelta": {...}}``). They carry no id, so a stream's events follow
one another in the log, unless each line wraps its event with a stream id (see
:mod:`toolaudit.formats.streams`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import CUT_OFF, Extracted, UnknownShape, as_dict
from toolaudit.formats.bedrock import FAILED_STOPS
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

NAME = "bedrock-stream"
#: The members of ConverseStreamOutput (botocore's bedrock-runtime service model).
EVENTS = (
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
)
EXCEPTIONS = (
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "serviceUnavailableException",
)
ALL_EVENTS = EVENTS + EXCEPTIONS


def stream_event(record: Mapping[str, Any]) -> Extracted:
    """``contentBlockStart.start.toolUse`` ({toolUseId, name}) begins a call, its
    ``contentBlockDelta.delta.toolUse.input`` pieces are the input as JSON text,
    ``messageStop`` ends the stream (``metadata``, with usage, comes after it)."""
    event, stream_id, model = unwrap(record)
    kind = _kind(event)
    if kind is None:
        raise UnknownShape("a Bedrock ConverseStream event needs a key such as contentBlockDelta")
    body = as_dict(event[kind])
    role = CONTINUES
    fragments: tuple[Fragment, ...] = ()
    notes: tuple[tuple[int, str], ...] = ()
    failure = cut = None
    if kind == "messageStart":
        role = BEGINS
    elif kind == "contentBlockStart":
        slot, label = _slot(body)
        use = as_dict(body.get("start")).get("toolUse")
        if use is not None and isinstance(use, Mapping):
            start = Fragment(
                slot, label, begins=True, id=use.get("toolUseId"), name=use.get("name")
            )
        else:
            start = Fragment(slot, label, skipped=True)  # a tool result, an image
        fragments = (start,)
    elif kind == "contentBlockDelta":
        # Text and reasoning deltas have no start event: only a tool use's are placed.
        use = as_dict(body.get("delta")).get("toolUse")
        if use is not None and isinstance(use, Mapping):
            slot, label = _slot(body)
            fragments = (Fragment(slot, label, arguments=as_text(use.get("input"))),)
    elif kind == "messageStop":
        stop = body.get("stopReason")
        if stop == "max_tokens":
            notes = ((0, CUT_OFF.format('stopReason "max_tokens"')),)
        if stop in FAILED_STOPS:
            failure = f'Bedrock reports stopReason "{stop}"'
    elif kind in EXCEPTIONS:
        role, cut = ACCOMPANIES, reported(f"Bedrock reported {kind}", body, "message")
    elif kind == "metadata":
        role = ACCOMPANIES
    step = StreamStep(
        NAME,
        stream_id,
        role,
        kind,
        label="Bedrock",
        begins_with="messageStart",
        model=model,
        fragments=fragments,
        ends=kind == "messageStop",
        notes=notes,
        failure=failure,
        cut=cut,
    )
    return Extracted(NAME, model=model, stream=step)


def _slot(body: Mapping[str, Any]) -> tuple[tuple[int, ...], str]:
    index = body.get("contentBlockIndex")
    if not is_index(index):
        raise UnknownShape("a Bedrock ConverseStream event's contentBlockIndex must be an integer")
    return (0, index), f"content block {index}"


def _kind(event: Mapping[str, Any]) -> str | None:
    for kind in ALL_EVENTS:
        body = event.get(kind)
        if body is not None and isinstance(body, Mapping):  # (None first: the ABC is slow)
            return kind
    return None


def _is_event(record: Mapping[str, Any]) -> bool:
    kind = _kind(record)
    if kind != "metadata":
        return kind is not None
    # "metadata" is a common word in logs: a stream's holds usage and metrics.
    metadata = record[kind]
    return "usage" in metadata or "metrics" in metadata


BEDROCK_STREAM = Format(
    name=NAME,
    summary="Bedrock ConverseStream events",
    recognises=alone_or_wrapped(_is_event),
    keys=(*ALL_EVENTS, "event"),
    extract=stream_event,
    family="Bedrock",
)
