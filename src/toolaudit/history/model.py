"""What checking a conversation yields: its problems, each tool's outcomes, the calls it
holds. Plain values, built by :mod:`toolaudit.history.check` and read by the audit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The shapes a history comes in, by the API that takes it.
OPENAI_CHAT = "openai-chat"
OPENAI_RESPONSES = "openai-responses"
ANTHROPIC = "anthropic"
BEDROCK = "bedrock"
GEMINI = "gemini"
LANGCHAIN = "langchain"
OTEL = "otel"
SHAPES: frozenset[str] = frozenset(
    {OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, BEDROCK, GEMINI, LANGCHAIN, OTEL}
)

#: The problem codes, stable: reports and summaries count them by these names.
UNANSWERED = "pairing:unanswered"
ORPHAN_RESULT = "pairing:orphan_result"
DUPLICATE_CALL_ID = "pairing:duplicate_call_id"
DUPLICATE_RESULT = "pairing:duplicate_result"
MISPLACED_RESULT = "pairing:misplaced_result"
NAME_MISMATCH = "pairing:name_mismatch"
MALFORMED_HISTORY = "malformed:history"
PAIRING_CODES = (
    UNANSWERED,
    ORPHAN_RESULT,
    DUPLICATE_CALL_ID,
    DUPLICATE_RESULT,
    MISPLACED_RESULT,
    NAME_MISMATCH,
)

#: The tool of a result whose call and own name are both unknown.
NO_NAME = "<no name>"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a history, where it is, and why a provider would refuse it."""

    code: str
    #: Where, as report paths write it: "messages[4].content[1]".
    path: str
    call_id: str | None
    tool: str | None
    #: A plain sentence; where a provider answers it with a 400, its error text.
    detail: str


@dataclass(slots=True)
class ToolOutcome:
    """How one tool's calls ended, as the results in a history tell."""

    results: int = 0  #: results of this tool in the history
    failures: int = 0  #: results that report a failure
    retried: int = 0  #: failures followed later in the history by another call of the tool
    recovered: int = 0  #: retried, and that later call's result is not a failure


@dataclass(frozen=True, slots=True)
class HistoryCall:
    """A call the history holds (the audit judges these with ``--history``)."""

    name: object
    arguments: object  #: formats.base.ABSENT when the call has no arguments field
    id: object
    path: str
    encoding: str  #: formats.base JSON_STRING, OBJECT or OBJECT_ONLY


@dataclass(slots=True)
class Checked:
    """What checking one history found."""

    shape: str
    messages: int  #: how many messages were read
    problems: list[Problem]
    outcomes: dict[str, ToolOutcome]  #: by tool name (NO_NAME when unknown)
    calls: list[HistoryCall]


@dataclass(slots=True)
class Item:
    """A call or a result inside a history, as the readers find it (internal).

    ``where`` is the way from the message to the element: () for a whole message (a
    Chat ``tool`` message), ("content", 2) for a block. ``id_at`` and ``name_at`` lead
    from the element to its id and its name, so that a repair can rewrite them.
    """

    is_call: bool
    message: int
    where: tuple[Any, ...]
    path: str
    id: object
    key: object  #: the id as pairing compares it; None without a usable id
    name: object
    id_at: tuple[Any, ...] = ()
    name_at: tuple[Any, ...] | None = None
    arguments: object = None
    encoding: str = ""
    failed: bool = False
    #: A result before any other content of its message (Anthropic wants them first).
    leading: bool = True
    #: A result paired with its call, but not where the provider wants it.
    misplaced: bool = False
    answer: Item | None = field(default=None, repr=False)
    seq: int = 0


@dataclass(slots=True)
class Turn:
    """One message of a history: who speaks, and the calls and results it holds."""

    role: str  #: "assistant", "user", "tool" or "other"
    calls: list[Item] = field(default_factory=list)
    results: list[Item] = field(default_factory=list)
