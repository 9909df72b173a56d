"""The commonest histories' pairing, in C (``_speedups.c``; see toolaudit.history.fast);
the ``_json`` functions (``_speedups_json.c``) read the history from its JSON text."""

from typing_extensions import Buffer

#: A call left without a result: its id, its name, its message's index, its index there.
Unanswered = tuple[str, object, int, int]

def know_tables(conversations: type, histories: type, outcomes: type, /) -> None:
    """The classes of the audit's tables (``toolaudit.results.conversations``): given them
    and a model, a dict reader counts a history whose every call was answered and no
    result failed straight into them, as ``Conversations.count_all_answered`` would, and
    answers True, where every entry it adds to is there already and its name is its own
    key (else it answers as without them)."""

def chat(
    messages: list[object], no_name: str, tables: object = ..., model: object = ..., /
) -> tuple[list[Unanswered], dict[str, int]] | bool | None:
    """An OpenAI Chat history's calls left unanswered and results per tool, or None; True where
    it was counted in ``tables`` (see :func:`know_tables`)."""

def responses(
    messages: list[object], no_name: str, tables: object = ..., model: object = ..., /
) -> tuple[list[Unanswered], dict[str, int]] | bool | None:
    """An OpenAI Responses history's calls left unanswered and results per tool, or None; True where
    it was counted in ``tables`` (see :func:`know_tables`)."""

def anthropic(
    messages: list[object], no_name: str, tables: object = ..., model: object = ..., /
) -> tuple[list[Unanswered], dict[str, int]] | bool | None:
    """An Anthropic history's calls left unanswered and results per tool, or None; True where
    it was counted in ``tables`` (see :func:`know_tables`)."""

def bedrock(
    messages: list[object], no_name: str, tables: object = ..., model: object = ..., /
) -> tuple[list[Unanswered], dict[str, int]] | bool | None:
    """A Bedrock Converse history's calls left unanswered and results per tool, or None; True where
    it was counted in ``tables`` (see :func:`know_tables`)."""

def gemini(
    messages: list[object], no_name: str, tables: object = ..., model: object = ..., /
) -> tuple[list[tuple[object, ...]], dict[str, int]] | bool | None:
    """A Gemini history's calls left unanswered (each with its part's field last) and
    results per tool, or None; True where it was counted in ``tables``."""

def otel(
    messages: list[object], no_name: str, tables: object = ..., model: object = ..., /
) -> tuple[list[Unanswered], dict[str, int]] | bool | None:
    """An OpenTelemetry GenAI history's calls left unanswered and results per tool, or
    None; True where it was counted in ``tables`` (see :func:`know_tables`)."""

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
