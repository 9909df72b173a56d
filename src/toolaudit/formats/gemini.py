"""Google Gemini ``generateContent`` responses, camelCase (REST) or snake_case (SDK dumps)."""

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
    as_list,
    first_present,
    is_one_of,
)
from toolaudit.formats.declaration import Format
from toolaudit.formats.text_calls import append_calls_in_text

#: finishReason values that mean the model tried to call a tool and failed.
FAILED_CALL_REASONS = {
    "MALFORMED_FUNCTION_CALL": (
        "Gemini reports MALFORMED_FUNCTION_CALL: the model's call could not be parsed"
    ),
    "UNEXPECTED_TOOL_CALL": (
        "Gemini reports UNEXPECTED_TOOL_CALL: the model called a tool it was not offered"
    ),
    "TOO_MANY_TOOL_CALLS": "Gemini reports TOO_MANY_TOOL_CALLS: the model's calls were dropped",
}


def generate_content(record: Mapping[str, Any]) -> Extracted:
    """``candidates[].content.parts[].functionCall`` ({name, args, id?})."""
    candidates = record.get("candidates")
    if not isinstance(candidates, list):
        raise UnknownShape("a Gemini response needs a candidates array")
    calls: list[Call] = []
    for candidate in candidates:
        candidate = as_dict(candidate)
        finish = first_present(candidate, "finishReason", "finish_reason")
        note = CUT_OFF.format('finishReason "MAX_TOKENS"') if finish == "MAX_TOKENS" else None
        found = False
        for part in as_list(as_dict(candidate.get("content")).get("parts")):
            function_call = first_present(as_dict(part), "functionCall", "function_call")
            if isinstance(function_call, Mapping):
                found = True
                calls.append(
                    Call(
                        len(calls),
                        function_call.get("name"),
                        function_call.get("args", ABSENT),
                        id=function_call.get("id"),
                        encoding=OBJECT,
                        note=note,
                    )
                )
        if not found and is_one_of(finish, FAILED_CALL_REASONS):
            # No functionCall part, yet the model did try: count the failure.
            # (An SDK's enum of the reason, from a model_dump() of a google-genai
            # response, is a str whose str() is not its value: read the value.)
            reason = str(getattr(finish, "value", finish))
            failure = FAILED_CALL_REASONS[reason]
            calls.append(Call(len(calls), None, failure=failure, failure_kind=PROVIDER))
        elif not found:
            # No structured call: the model may have written one into its text, unparsed.
            append_calls_in_text(calls, as_dict(candidate.get("content")).get("parts"), note)
    return Extracted("gemini", calls, model=first_present(record, "modelVersion", "model_version"))


def _recognises(record: Mapping[str, Any]) -> bool:
    return "candidates" in record


GEMINI = Format(
    name="gemini",
    summary="Gemini generateContent, camelCase or snake_case",
    recognises=_recognises,
    keys=("candidates",),
    extract=generate_content,
    family="Gemini",
    typed_shape="gemini",
    tool_result_messages="gemini",
)
