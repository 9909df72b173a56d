"""The commonest histories' pairing, in C (``_speedups.c``; see toolaudit.history.fast)."""

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
