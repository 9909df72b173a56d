"""Anthropic Messages responses and Message Batches result lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import (
    ABSENT,
    CUT_OFF,
    OBJECT,
    Call,
    Extracted,
    UnknownShape,
    as_dict,
    ends_with,
    get_path,
    is_one_of,
)
from toolaudit.formats.declaration import Format
from toolaudit.formats.text_calls import append_calls_in_text

CUT_OFF_REASONS = frozenset({"max_tokens", "model_context_window_exceeded"})


def message(record: Mapping[str, Any]) -> Extracted:
    """``content[]`` blocks of type ``tool_use``; ``input`` is an object.

    ``server_tool_use`` blocks are Anthropic's own tools (web search...), with
    no user schema, so they are not audited.
    """
    content = record.get("content")
    if not isinstance(content, list):
        raise UnknownShape("an Anthropic message needs a content array")
    stop = record.get("stop_reason")
    note = CUT_OFF.format(f'stop_reason "{stop}"') if is_one_of(stop, CUT_OFF_REASONS) else None
    calls: list[Call] = []
    for block in content:
        block = as_dict(block)
        if block.get("type") == "tool_use":
            calls.append(
                Call(
                    len(calls),
                    block.get("name"),
                    block.get("input", ABSENT),
                    id=block.get("id"),
                    encoding=OBJECT,
                    note=note,
                )
            )
    if not any(ends_with(as_dict(block).get("type"), "tool_use") for block in content):
        # No call of any kind: the model may have written one into its text, unparsed.
        append_calls_in_text(calls, content, note)
    return Extracted("anthropic", calls, model=record.get("model"))


def batch_result(record: Mapping[str, Any]) -> Extracted:
    """A Message Batches result line: only a ``succeeded`` result holds a message."""
    key = record.get("custom_id")
    if get_path(record, "result", "type") != "succeeded":
        return Extracted("anthropic-batch", key=key)  # errored, canceled, expired: no call
    inner = message(as_dict(get_path(record, "result", "message")))
    return Extracted("anthropic-batch", inner.calls, model=inner.model, key=key)


def _is_message(record: Mapping[str, Any]) -> bool:
    return record.get("type") == "message"


def _is_batch_result(record: Mapping[str, Any]) -> bool:
    return "custom_id" in record and "result" in record


ANTHROPIC = Format(
    name="anthropic",
    summary="Anthropic Messages",
    recognises=_is_message,
    keys=("type",),
    extract=message,
    family="Anthropic",
    variant="message",
    typed_shape="anthropic",
    tool_result_messages="anthropic",
)
ANTHROPIC_BATCH = Format(
    name="anthropic-batch",
    summary="Anthropic Message Batches results",
    recognises=_is_batch_result,
    keys=("custom_id",),
    extract=batch_result,
    family="Anthropic",
    variant="batch",
    typed_shape="anthropic_batch",
    tool_result_messages="anthropic",
)
