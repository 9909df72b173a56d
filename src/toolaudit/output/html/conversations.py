"""The conversations section of the audit page: the histories checked, their problems by
code and by model, and the tools that fail at run time. What is shown, and in which
order, is decided in :mod:`toolaudit.output.conversations`, as for the table and Markdown.
"""

from __future__ import annotations

# Modules by their full names: the package's __init__ imports this module (see audit.py).
import toolaudit.output.html.parts as p
from toolaudit.output import conversations as talk
from toolaudit.output.html.audit import card
from toolaudit.results.conversations import Conversations
from toolaudit.results.summary import Summary


def conversations(summary: Summary) -> str:
    """The section, or nothing for an audit whose records carried no conversation."""
    section = summary.conversations
    if section is None:
        return ""
    return p.section(
        "conversations",
        "Conversations: every call answered, every result paired",
        _headline(section),
        _problems(section),
        _models(section),
        _tools(section),
        _history_calls(summary),
    )


def _headline(section: Conversations) -> str:
    histories = section.all
    share = talk.share_with_problems(section)
    cards = [
        card("conversations checked", p.num(histories.checked)),
        card("with problems", p.num(histories.with_problems)),
        card("share with problems", p.pct(share), "a provider refuses such a request", "main"),
    ]
    return f'<div class="cards">{"".join(cards)}</div>'


def _problems(section: Conversations) -> str:
    rows = talk.problems(section)
    if not rows:
        return p.note("No conversation had a pairing problem.")
    body = [
        p.tr([p.td(f"<code>{p.esc(code)}</code>", "name"), p.td(p.num(count), "num")])
        for code, count in rows
    ]
    return "<h3>Problems</h3>" + p.table([p.th("problem"), p.th("count", "num")], body)


def _models(section: Conversations) -> str:
    rows = talk.models_with_problems(section)
    if not rows:
        return ""
    head = [p.th("model"), p.th("checked", "num"), p.th("with problems", "num")]
    body = [
        p.tr(
            [
                p.td(p.name(name, 40), "name"),
                p.td(p.num(histories.checked), "num"),
                p.td(p.num(histories.with_problems), "num"),
            ]
        )
        for name, histories in rows
    ]
    return "<h3>Models with problems</h3>" + p.table(head, body)


def _tools(section: Conversations) -> str:
    summary_line = p.note(p.esc(talk.results_line(section).capitalize()) + ".")
    rows = talk.failing_tools(section)
    if not rows:
        return "<h3>Tool results</h3>" + summary_line
    head = [p.th("tool"), *(p.th(h, "num") for h in talk.TOOL_HEAD)]
    body = [
        p.tr(
            [
                p.td(p.name(name, 40), "name"),
                *(p.td(figure, "num") for figure in talk.tool_figures(outcomes)),
            ]
        )
        for name, outcomes in rows
    ]
    return (
        "<h3>Tools that failed at run time, most failures first</h3>"
        + summary_line
        + p.note(
            "Retried: failures the model called the tool again after; recovered: retried, "
            "and that call's result was not a failure."
        )
        + p.table(head, body)
    )


def _history_calls(summary: Summary) -> str:
    if summary.history_calls is None:
        return ""
    return p.note(p.esc(talk.history_calls_line(summary.history_calls).capitalize()) + ".")
