"""OpenAI Chat Completions streams: ``chat.completion.chunk`` lines (vLLM and other
compatible servers send the same), keyed by the response's ``id``."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from toolaudit.formats.base import CUT_OFF, Extracted, UnknownShape, as_dict, as_list
from toolaudit.formats.declaration import Format
from toolaudit.formats.stream_steps import (
    ACCOMPANIES,
    BEGINS_OR_CONTINUES,
    Fragment,
    StreamStep,
    alone_or_wrapped,
    as_text,
    is_index,
    unwrap,
)

NAME = "openai-chat-stream"
#: What a delta may carry that makes its choice part of the stream; a chunk with
#: nothing else (a content filter's, a usage-only one) adds nothing.
_CONTENT = ("role", "content", "refusal", "tool_calls", "function_call")
_TOOL_CALLS, _FUNCTION_CALL = 0, 1  # a choice's calls, in that order (as unstreamed)


def chunk(record: Mapping[str, Any]) -> Extracted:
    """``choices[].delta.tool_calls[]``: the ``id`` and ``function.name`` on a call's
    first delta, ``function.arguments`` in pieces; legacy ``delta.function_call``."""
    event, stream_id, model = unwrap(record)
    choices = event.get("choices")
    if not isinstance(choices, list):
        raise UnknownShape("an OpenAI chat stream chunk needs a choices array")
    if stream_id is None:
        own_id = event.get("id")
        stream_id = own_id if isinstance(own_id, str) or is_index(own_id) else None
    fragments: list[Fragment] = []
    groups: list[int] = []
    ended: list[int] = []
    notes: list[tuple[int, str]] = []
    for choice in choices:
        choice = as_dict(choice)
        group = choice.get("index", 0)
        if not is_index(group):
            raise UnknownShape("an OpenAI chat stream chunk's choice index must be an integer")
        delta = as_dict(choice.get("delta"))
        for field in _CONTENT:
            if delta.get(field) is not None:
                groups.append(group)
                break
        for position, tool_call in enumerate(as_list(delta.get("tool_calls"))):
            fragments.append(_tool_call(group, position, as_dict(tool_call)))
        legacy = delta.get("function_call")
        if legacy is not None and isinstance(legacy, Mapping):  # (None first: most chunks)
            fragments.append(_function_call(group, legacy))
        finish = choice.get("finish_reason")
        if finish is not None:
            ended.append(group)
            if finish == "length":
                notes.append(length_note(group))
    model = event.get("model") or model
    step = chunk_step(stream_id, model, fragments, groups, ended, notes)
    return Extracted(NAME, model=model, stream=step)


def chunk_step(
    stream_id: Hashable | None,
    model: object,
    fragments: list[Fragment],
    groups: list[int],
    ended: list[int],
    notes: list[tuple[int, str]],
) -> StreamStep:
    """The step of a chunk, from what its choices bring (its typed reading shares it)."""
    return StreamStep(
        NAME,
        stream_id,
        BEGINS_OR_CONTINUES if fragments or groups or ended else ACCOMPANIES,
        "chunk",
        label="OpenAI chat",
        model=model,
        fragments=tuple(fragments),
        groups=tuple(groups),
        ended_groups=tuple(ended),
        notes=tuple(notes),
    )


def length_note(group: int) -> tuple[int, str]:
    """The note on the calls of a choice that finished for its length limit."""
    return (group, CUT_OFF.format('finish_reason "length"'))


def _tool_call(group: int, position: int, tool_call: Mapping[str, Any]) -> Fragment:
    # Some compatible servers leave the index out, sending each call whole.
    index = tool_call.get("index", position)
    if not is_index(index):
        raise UnknownShape("an OpenAI chat stream chunk's tool call index must be an integer")
    function = as_dict(tool_call.get("function"))
    return tool_call_fragment(
        group,
        index,
        custom=tool_call.get("type") == "custom",
        call_id=tool_call.get("id"),
        name=function.get("name"),
        arguments=as_text(function.get("arguments")),
    )


def tool_call_fragment(
    group: int, index: int, *, custom: bool, call_id: object, name: object, arguments: str | None
) -> Fragment:
    """What a tool call delta adds to the call at ``index`` of choice ``group``."""
    label = f"tool call index {index}" + (f" of choice {group}" if group else "")
    slot = (group, _TOOL_CALLS, index)
    if custom:
        # A custom tool takes free text, not JSON: nothing to validate.
        return Fragment(slot, label, skipped=True)
    return Fragment(
        slot,
        label,
        begins=call_id is not None or name is not None,
        id=call_id,
        name=name,
        arguments=arguments,
    )


def _function_call(group: int, legacy: Mapping[str, Any]) -> Fragment:
    return function_call_fragment(group, legacy.get("name"), as_text(legacy.get("arguments")))


def function_call_fragment(group: int, name: object, arguments: str | None) -> Fragment:
    """What a legacy ``function_call`` delta adds to choice ``group``'s call."""
    return Fragment(
        (group, _FUNCTION_CALL, 0),
        "the function_call" + (f" of choice {group}" if group else ""),
        begins=name is not None,
        name=name,
        arguments=arguments,
    )


def _is_chunk(record: Mapping[str, Any]) -> bool:
    choices = record.get("choices")
    return isinstance(choices, list) and (
        record.get("object") == "chat.completion.chunk"
        or any("delta" in as_dict(choice) for choice in choices)
    )


OPENAI_CHAT_STREAM = Format(
    name=NAME,
    summary="OpenAI Chat Completions stream chunks",
    recognises=alone_or_wrapped(_is_chunk),
    keys=("choices", "event"),
    extract=chunk,
    family="OpenAI",
    variant="stream",
)
