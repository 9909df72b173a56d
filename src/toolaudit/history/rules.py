"""Each provider's rule for where a call's results go, and the error text it answers a
broken history with (docs/conversations.md shows the same table)."""

from __future__ import annotations

from toolaudit.history.model import (
    ANTHROPIC,
    BEDROCK,
    DUPLICATE_CALL_ID,
    DUPLICATE_RESULT,
    GEMINI,
    MISPLACED_RESULT,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    ORPHAN_RESULT,
    UNANSWERED,
)

#: Shapes whose results must follow their calls' message at once: the results of one
#: message's calls are looked for in its window (the next message, or Chat's run of
#: tool messages); elsewhere they are misplaced. Other shapes pair by id, later.
WINDOWED = frozenset({OPENAI_CHAT, ANTHROPIC, BEDROCK, GEMINI})

#: Shapes whose every result names its call's id (one without is malformed): pairing
#: needs no queue by name or by order for them.
BY_ID_ONLY = frozenset({OPENAI_RESPONSES, ANTHROPIC, BEDROCK})

#: Where each windowed shape wants a call's results, as a problem's detail says it.
WHERE_RESULTS_GO = {
    OPENAI_CHAT: (
        "OpenAI Chat wants the tool messages right after the assistant message that made "
        "the calls, before any other message"
    ),
    ANTHROPIC: "Anthropic wants every tool_result first in the very next user message",
    BEDROCK: "Bedrock wants a toolResult for each toolUse in the next user message",
    GEMINI: "Gemini wants the functionResponse parts in the content right after the calls'",
}

_CHAT_UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding "
    "to each 'tool_call_id'"
)
_ANTHROPIC_UNANSWERED = "tool_use ids were found without tool_result blocks immediately after"
_BEDROCK_COUNT = (
    "the number of toolResult blocks must match the toolUse blocks of the previous turn"
)
_GEMINI_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn."
)

#: What a provider answers each problem with (a 400; Bedrock's ValidationException).
#: ``{id}`` is the call id. A pair not here is one no provider is known to refuse.
PROVIDER_SAYS = {
    (OPENAI_CHAT, UNANSWERED): _CHAT_UNANSWERED,
    (OPENAI_CHAT, MISPLACED_RESULT): _CHAT_UNANSWERED,
    (OPENAI_CHAT, ORPHAN_RESULT): (
        "messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
    ),
    (OPENAI_RESPONSES, UNANSWERED): "No tool output found for function call {id}.",
    (OPENAI_RESPONSES, ORPHAN_RESULT): (
        "No tool call found for function call output with call_id {id}."
    ),
    (ANTHROPIC, UNANSWERED): _ANTHROPIC_UNANSWERED,
    (ANTHROPIC, MISPLACED_RESULT): _ANTHROPIC_UNANSWERED,
    (ANTHROPIC, ORPHAN_RESULT): "unexpected `tool_use_id` found in `tool_result` blocks: {id}",
    (ANTHROPIC, DUPLICATE_CALL_ID): "`tool_use` ids must be unique",
    (BEDROCK, UNANSWERED): _BEDROCK_COUNT,
    (BEDROCK, MISPLACED_RESULT): _BEDROCK_COUNT,
    (BEDROCK, ORPHAN_RESULT): (
        "The number of toolResult blocks at {at}.content exceeds the number of toolUse "
        "blocks of previous turn."
    ),
    (BEDROCK, DUPLICATE_RESULT): _BEDROCK_COUNT,
    (GEMINI, UNANSWERED): _GEMINI_COUNT,
    (GEMINI, MISPLACED_RESULT): _GEMINI_COUNT,
    (GEMINI, ORPHAN_RESULT): _GEMINI_COUNT,
    (GEMINI, DUPLICATE_RESULT): _GEMINI_COUNT,
}

#: How a provider's name reads in a sentence.
PROVIDER_NAME = {
    OPENAI_CHAT: "OpenAI",
    OPENAI_RESPONSES: "OpenAI",
    ANTHROPIC: "Anthropic",
    BEDROCK: "Bedrock",
    GEMINI: "Gemini",
}


def provider_says(shape: str, code: str, call_id: object, at: str) -> str:
    """The sentence that quotes the provider's error for this problem ("" if none is
    known); ``at`` is the message the provider would name (Bedrock's "messages.2")."""
    text = PROVIDER_SAYS.get((shape, code))
    if text is None:
        return ""
    said = text.format(id=call_id, at=at)
    return f'; {PROVIDER_NAME[shape]} refuses such a request (400): "{said}"'
