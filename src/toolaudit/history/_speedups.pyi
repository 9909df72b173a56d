"""The commonest histories' pairing, in C (``_speedups.c``; see toolaudit.history.fast);
the ``_json`` functions (``_speedups_json.c``) read the history from its JSON text."""

from typing_extensions import Buffer

#: A call left without a result: its id, its name, its message's index, its index there.
Unanswered = tuple[str, object, int, int]

def chat(messages: list[object], no_name: str, /) -> tuple[list[Unanswered], dict[str, int]] | None:
    """An OpenAI Chat history's calls left unanswered and results per tool, or None."""

def responses(
    messages: list[object], no_name: str, /
) -> tuple[list[Unanswered], dict[str, int]] | None:
    """An OpenAI Responses history's calls left unanswered and results per tool, or None."""

def anthropic(
    messages: list[object], no_name: str, /
) -> tuple[list[Unanswered], dict[str, int]] | None:
    """An Anthropic history's calls left unanswered and results per tool, or None."""

def bedrock(
    messages: list[object], no_name: str, /
) -> tuple[list[Unanswered], dict[str, int]] | None:
    """A Bedrock Converse history's calls left unanswered and results per tool, or None."""

def gemini(
    messages: list[object], no_name: str, /
) -> tuple[list[tuple[object, ...]], dict[str, int]] | None:
    """A Gemini history's calls left unanswered (each with its part's field last) and
    results per tool, or None."""

def otel(messages: list[object], no_name: str, /) -> tuple[list[Unanswered], dict[str, int]] | None:
    """An OpenTelemetry GenAI history's calls left unanswered and results per tool, or None."""

#: What a ``_json`` function answers: ``(unanswered, results)`` as its dict function
#: answers of ``orjson.loads(text)``, and how many messages the history holds.
FromText = tuple[list[Unanswered], dict[str, int], int]

def chat_json(text: Buffer, no_name: str, /) -> FromText | None:
    """``chat(orjson.loads(text), no_name)`` and the count of messages, or None."""

def responses_json(text: Buffer, no_name: str, /) -> FromText | None:
    """``responses(orjson.loads(text), no_name)`` and the count of items, or None."""

def anthropic_json(text: Buffer, no_name: str, /) -> FromText | None:
    """``anthropic(orjson.loads(text), no_name)`` and the count of messages, or None."""

def bedrock_json(text: Buffer, no_name: str, /) -> FromText | None:
    """``bedrock(orjson.loads(text), no_name)`` and the count of messages, or None."""

def gemini_json(
    text: Buffer, no_name: str, /
) -> tuple[list[tuple[object, ...]], dict[str, int], int] | None:
    """``gemini(orjson.loads(text), no_name)`` and the count of contents, or None."""
