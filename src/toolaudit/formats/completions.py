"""Raw completion text, where a model served without a tool parser writes its calls:
OpenAI legacy Completions (and vLLM's, and other compatible servers') and Hugging
Face Text Generation Inference ``generate`` responses. No structured call exists
in either: every call is one found in the text (see
:mod:`~toolaudit.formats.text_calls`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import CUT_OFF, Call, Extracted, UnknownShape, as_dict, get_path
from toolaudit.formats.declaration import Format
from toolaudit.formats.text_calls import append_calls_in_text


def completion(record: Mapping[str, Any]) -> Extracted:
    """``choices[].text``. A choice with ``finish_reason`` null is a stream chunk's
    fragment of a text (streamed completions share the object's name), not read."""
    choices = record.get("choices")
    if not isinstance(choices, list):
        raise UnknownShape("an OpenAI completion needs a choices array")
    calls: list[Call] = []
    for choice in choices:
        choice = as_dict(choice)
        finish = choice.get("finish_reason")
        if finish is None and "finish_reason" in choice:
            continue
        note = CUT_OFF.format('finish_reason "length"') if finish == "length" else None
        append_calls_in_text(calls, choice.get("text"), note)
    return Extracted("openai-completions", calls, model=record.get("model"))


def generated(record: Mapping[str, Any]) -> Extracted:
    """``generated_text``; ``details.best_of_sequences`` are the candidates not
    returned, so not read. A ``generate_stream`` event carries the text only in its
    last event (the others: null)."""
    finish = get_path(record, "details", "finish_reason")
    note = CUT_OFF.format('details.finish_reason "length"') if finish == "length" else None
    calls: list[Call] = []
    append_calls_in_text(calls, record.get("generated_text"), note)
    return Extracted("tgi", calls)


def _is_completion(record: Mapping[str, Any]) -> bool:
    if record.get("object") == "text_completion":
        return True
    # Written without "object" (some servers and loggers): choices holding text.
    choices = record.get("choices")
    first = as_dict(choices[0]) if isinstance(choices, list) and choices else {}
    return "text" in first and "message" not in first and "delta" not in first


def _is_generated(record: Mapping[str, Any]) -> bool:
    return "generated_text" in record


OPENAI_COMPLETIONS = Format(
    name="openai-completions",
    summary="OpenAI legacy Completions, vLLM and other compatible servers",
    recognises=_is_completion,
    keys=("object", "choices"),
    extract=completion,
    # Its calls were written in its text: their results go back as chat messages,
    # as the OpenAI-compatible servers that serve completions take them.
    tool_result_messages="openai-chat",
)
TGI = Format(
    name="tgi",
    summary="Hugging Face Text Generation Inference generate",
    recognises=_is_generated,
    keys=("generated_text",),
    extract=generated,
    tool_result_messages="openai-chat",
)
