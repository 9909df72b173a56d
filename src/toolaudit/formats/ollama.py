"""Ollama's native ``/api/chat`` responses (its OpenAI-compatible API is openai-chat)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import CUT_OFF, Call, Extracted, as_dict
from toolaudit.formats.declaration import Format
from toolaudit.formats.openai import chat_message_calls


def chat(record: Mapping[str, Any]) -> Extracted:
    """One ``message`` whose arguments are objects."""
    calls: list[Call] = []
    cut = record.get("done_reason") == "length"
    note = CUT_OFF.format('done_reason "length"') if cut else None
    chat_message_calls(as_dict(record.get("message")), calls, note)
    return Extracted("ollama", calls, model=record.get("model"))


def _recognises(record: Mapping[str, Any]) -> bool:
    return isinstance(record.get("message"), Mapping)


OLLAMA = Format(
    name="ollama",
    summary="Ollama /api/chat",
    recognises=_recognises,
    keys=("message",),
    extract=chat,
    family="Ollama",
    tool_result_messages="ollama",
)
