"""``check``: one history, read in its shape, its results paired with its calls, its
tools' outcomes counted. Linear in the messages; bad data is a Problem, never raised."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from toolaudit.errors import OptionError
from toolaudit.formats.base import is_one_of
from toolaudit.history.blocks import anthropic, bedrock, gemini, otel
from toolaudit.history.detect import detect
from toolaudit.history.fast import FAST, AllAnswered, LeftUnanswered, counted_in_c
from toolaudit.history.messages import chat, langchain, responses
from toolaudit.history.model import (
    ANTHROPIC,
    BEDROCK,
    GEMINI,
    LANGCHAIN,
    MALFORMED_HISTORY,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    OTEL,
    SHAPES,
    Checked,
    Problem,
    Turn,
)
from toolaudit.history.outcomes import outcomes
from toolaudit.history.pairing import Pairing
from toolaudit.history.reader import Reader
from toolaudit.values import kind_phrase

if TYPE_CHECKING:
    from toolaudit.results.conversations import Conversations

#: How each shape's messages are read into turns.
READERS: dict[str, Callable[[Reader, int, Mapping[str, Any]], Turn]] = {
    OPENAI_CHAT: chat,
    OPENAI_RESPONSES: responses,
    LANGCHAIN: langchain,
    ANTHROPIC: anthropic,
    BEDROCK: bedrock,
    GEMINI: gemini,
    OTEL: otel,
}


def check(
    messages: object, shape: str | None = None, *, path: str = "messages", calls: bool = True
) -> Checked:
    """Check one history: ``messages`` as the request holds them, in ``shape`` (one of
    :data:`SHAPES`; None: read from the messages), found at ``path`` in its record
    (problems' paths begin with it). An unknown ``shape`` is an :class:`OptionError`;
    anything in ``messages`` is data, and what cannot be read is a ``malformed:history``
    problem. LangSmith's batched form, a list of message lists, is checked list by list.
    ``calls`` False leaves :attr:`Checked.calls` empty (nobody judges them)."""
    _known(shape)
    checked = _fast(messages, shape, path, calls)
    if checked is not None:
        return checked  # the common history; anything unusual is read in full below
    return examine(messages, shape, path, calls=calls)[0]


def check_counted(
    messages: object,
    shape: str | None,
    path: str,
    tables: Conversations | None = None,
    model: object = None,
    worded: bool = True,
) -> Checked | AllAnswered | LeftUnanswered | Literal[True]:
    """``check(messages, shape, path=path, calls=False)``, as the audit counts it: a
    history whose every call was answered and whose results report no failure, where the
    C speedups read it, counted in ``tables`` (the audit's, for ``model``) at once (True)
    where they can, else given as its results per tool alone
    (:data:`~toolaudit.history.fast.AllAnswered`): no Checked built for the commonest
    history. Not ``worded`` (no report rows to write), one whose only problems are calls
    left unanswered is given as :data:`~toolaudit.history.fast.LeftUnanswered` there."""
    if type(messages) is list and messages and type(messages[0]) is dict:
        # (a shape C does not read, known or not, is answered, or refused, by check)
        found = counted_in_c(messages, shape or detect(messages), path, tables, model, worded)
        if found is not None:
            return found
    return check(messages, shape, path=path, calls=False)


def _one_batch(batch: object, shape: str | None, path: str, calls: bool) -> Checked:
    checked = _fast(batch, shape, path, calls)
    if checked is not None:
        return checked
    return examine(batch, shape, path, batches=False, calls=calls)[0]


def _fast(messages: object, shape: str | None, path: str, calls: bool) -> Checked | None:
    """The history read by its shape's fast path, or None where it is not sure (or has
    none)."""
    if isinstance(messages, list) and messages and type(messages[0]) is dict:
        fast = FAST.get(shape or detect(messages))
        return fast(messages, path, calls) if fast is not None else None
    return None


def examine(
    messages: object, shape: str | None, path: str, *, batches: bool = True, calls: bool = True
) -> tuple[Checked, list[Turn]]:
    """:func:`check` in full, with the turns read (what a repair works from); ``batches``
    False reads a list of lists as messages (one level of batching, never a recursion)."""
    _known(shape)
    if not isinstance(messages, list):
        detail = f"a history must be a list of messages, got {kind_phrase(messages)}"
        problem = Problem(MALFORMED_HISTORY, path, None, None, detail)
        return Checked(shape or OPENAI_CHAT, 0, [problem], {}, []), []
    if batches and messages and all(isinstance(batch, list) for batch in messages):
        return _batched(messages, shape, path, calls), []
    chosen = shape or detect(messages)
    reader = Reader(path, calls=calls)
    read = READERS[chosen]
    for index, message in enumerate(messages):
        if isinstance(message, Mapping):
            reader.turns.append(read(reader, index, message))
        else:
            reader.not_an_object(reader.at(index), "a message", message)
            reader.turns.append(Turn("other"))
    pairing = Pairing(chosen)
    pairing.read(reader.turns)
    found = sorted([*reader.problems, *pairing.problems], key=lambda pair: pair[0])
    problems = [problem for _, problem in found]
    checked = Checked(chosen, len(messages), problems, outcomes(reader.turns), reader.calls)
    return checked, reader.turns


def _known(shape: str | None) -> None:
    if shape is not None and not is_one_of(shape, SHAPES):
        known = ", ".join(sorted(SHAPES))
        raise OptionError(f"unknown history shape {shape!r}: expected one of {known}")


def _batched(batches: list[Any], shape: str | None, path: str, calls: bool) -> Checked:
    """Each list of a batch as its own history (LangSmith's ``inputs.messages``)."""
    parts = [_one_batch(batch, shape, f"{path}[{j}]", calls) for j, batch in enumerate(batches)]
    total = Checked(parts[0].shape, 0, [], {}, [])
    for part in parts:
        total.messages += part.messages
        total.problems.extend(part.problems)
        total.calls.extend(part.calls)
        for tool, outcome in part.outcomes.items():
            into = total.outcomes.setdefault(tool, type(outcome)())
            into.results += outcome.results
            into.failures += outcome.failures
            into.retried += outcome.retried
            into.recovered += outcome.recovered
    return total
