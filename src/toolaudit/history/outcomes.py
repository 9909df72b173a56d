"""How each tool's calls ended: results, failures, and whether the model called the tool
again after a failure (retried) and that call then worked (recovered)."""

from __future__ import annotations

from heapq import merge

from toolaudit.history.model import NO_NAME, Item, ToolOutcome, Turn


def _tool(name: object) -> str:
    return name if isinstance(name, str) else NO_NAME


def outcomes(turns: list[Turn]) -> dict[str, ToolOutcome]:
    """Each tool's outcomes, in one pass over the calls and results in history order
    (the tool of a result is its call's, or its own name when it answers no call)."""
    found: dict[str, ToolOutcome] = {}
    waiting: dict[str, int] = {}  #: failures of a tool not yet followed by a call of it
    retries: dict[int, int] = {}  #: by id() of a call: how many failures it retries
    for turn in turns:
        # A turn holds calls or results, rarely both: merged in history order only then.
        items = (
            merge(turn.calls, turn.results, key=_seq)
            if turn.calls and turn.results
            else turn.calls or turn.results
        )
        for item in items:
            if item.is_call:
                tool = _tool(item.name)
                failures = waiting.pop(tool, 0)
                if failures:
                    found[tool].retried += failures
                    retries[id(item)] = failures
                continue
            call = item.answer
            tool = _tool(call.name if call is not None else item.name)
            outcome = found.setdefault(tool, ToolOutcome())
            outcome.results += 1
            if item.failed:
                outcome.failures += 1
                waiting[tool] = waiting.get(tool, 0) + 1
            elif call is not None:
                outcome.recovered += retries.pop(id(call), 0)
    return found


def _seq(item: Item) -> int:
    return item.seq
