"""What every output shows of a summary's ``conversations`` and ``tool_results``
sections, in one order: the headline, the problems by code, the models with problems,
and the tools that fail most at run time. The table, Markdown and HTML render these rows.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolaudit.output.text import percent
from toolaudit.results.conversations import Conversations, Histories, Outcomes
from toolaudit.results.tool_summary import ToolSummary, history_calls_section

#: Rows of models and of tools shown (the most problems, the most failures, first).
MAX_ROWS = 20


def share_with_problems(conversations: Conversations) -> float:
    """The share of the conversations checked that had a problem (0 with none checked)."""
    histories = conversations.all
    return histories.with_problems / histories.checked if histories.checked else 0.0


def headline(conversations: Conversations) -> str:
    """``120 conversations checked, 7 with problems (5.8%)``."""
    histories = conversations.all
    return (
        f"{histories.checked:,} conversations checked, {histories.with_problems:,} with "
        f"problems ({percent(share_with_problems(conversations))})"
    )


def problems(conversations: Conversations) -> list[tuple[str, int]]:
    """The problem codes and their counts, the most frequent first."""
    return sorted(conversations.all.problems.items(), key=lambda item: (-item[1], item[0]))


def models_with_problems(conversations: Conversations) -> list[tuple[str, Histories]]:
    """The models whose conversations had problems, the most first (at most MAX_ROWS)."""
    ranked = sorted(
        ((name, h) for name, h in conversations.by_model.items() if h.with_problems),
        key=lambda item: (-item[1].with_problems, item[0]),
    )
    return ranked[:MAX_ROWS]


def failing_tools(conversations: Conversations) -> list[tuple[str, Outcomes]]:
    """The tools whose results reported failures, the most first (at most MAX_ROWS)."""
    ranked = sorted(
        ((name, o) for name, o in conversations.by_tool.items() if o.failures),
        key=lambda item: (-item[1].failures, item[0]),
    )
    return ranked[:MAX_ROWS]


def tool_figures(outcomes: Outcomes) -> list[str]:
    """A tool's row: results, failures, failure rate, retried, recovered."""
    rate = outcomes.failures / outcomes.results if outcomes.results else 0.0
    return [
        f"{outcomes.results:,}",
        f"{outcomes.failures:,}",
        percent(rate),
        f"{outcomes.retried:,}",
        f"{outcomes.recovered:,}",
    ]


TOOL_HEAD = ["results", "failures", "failure rate", "retried", "recovered"]


def results_line(conversations: Conversations) -> str:
    """``tool results: 300, 12 failures, 9 retried, 7 recovered``."""
    total = Outcomes()
    for outcomes in conversations.by_tool.values():
        total.add(outcomes)
    return (
        f"tool results: {total.results:,}, {total.failures:,} failures, "
        f"{total.retried:,} retried, {total.recovered:,} recovered"
    )


def history_calls_line(history_calls: Mapping[str, ToolSummary]) -> str:
    """``calls held in conversations (--history): 11, 9 ok, 2 invalid (enum 1, type 1)``."""
    section = history_calls_section(history_calls)
    by_kind = ", ".join(f"{kind} {count:,}" for kind, count in section["by_kind"].items())
    return (
        f"calls held in conversations (--history): {section['calls']:,}, {section['ok']:,} ok, "
        f"{section['invalid']:,} invalid" + (f" ({by_kind})" if by_kind else "")
    )
