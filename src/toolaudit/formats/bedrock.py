"""AWS Bedrock Converse responses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import (
    ABSENT,
    CUT_OFF,
    OBJECT,
    PROVIDER,
    Call,
    Extracted,
    UnknownShape,
    as_dict,
    get_path,
)
from toolaudit.formats.declaration import Format
from toolaudit.formats.text_calls import append_calls_in_text

#: stopReason values that say the model tried to call a tool and failed.
FAILED_STOPS = ("malformed_tool_use", "malformed_model_output")


def converse(record: Mapping[str, Any]) -> Extracted:
    """``output.message.content[].toolUse`` ({toolUseId, name, input})."""
    content = get_path(record, "output", "message", "content")
    if not isinstance(content, list):
        raise UnknownShape("a Bedrock Converse response needs output.message.content")
    stop = record.get("stopReason")
    note = CUT_OFF.format('stopReason "max_tokens"') if stop == "max_tokens" else None
    failure = f'Bedrock reports stopReason "{stop}"' if stop in FAILED_STOPS else None
    calls: list[Call] = []
    for block in content:
        use = as_dict(block).get("toolUse")
        if isinstance(use, Mapping):
            calls.append(
                Call(
                    len(calls),
                    use.get("name"),
                    use.get("input", ABSENT),
                    id=use.get("toolUseId"),
                    encoding=OBJECT,
                    note=note,
                    failure=failure,
                    failure_kind=PROVIDER if failure else None,
                )
            )
    if not calls and failure:
        calls.append(Call(0, None, failure=failure, failure_kind=PROVIDER))
    elif not calls:
        # No structured call: the model may have written one into its text, unparsed.
        append_calls_in_text(calls, content, note)
    return Extracted("bedrock", calls)


def _recognises(record: Mapping[str, Any]) -> bool:
    return isinstance(get_path(record, "output", "message"), Mapping)


BEDROCK = Format(
    name="bedrock",
    summary="Bedrock Converse",
    recognises=_recognises,
    keys=("output",),
    extract=converse,
    family="Bedrock",
    typed_shape="bedrock",
    tool_result_messages="bedrock",
)
