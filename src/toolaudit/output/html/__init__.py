"""The ``--html`` page: one self-contained file to open, share and print.

Two pure functions: :func:`render_html` for an audit's summary and
:func:`render_comparison_html` for ``toolaudit compare BASE NEW``. They return
the whole document as a string; the CLI decides where it goes.

The page needs nothing but itself: inline CSS (from :file:`style.css`, beside
this module), no script, no font, image or link to fetch, so it opens the same
offline, in a mail attachment or in a CI artifact viewer. A
Content-Security-Policy in the page forbids scripts and every fetch as well, so
even a bug in the escaping could not run a log's ``<script>``. The output is
deterministic (no time, no random id): the same summary gives the same bytes,
which keeps it testable and diffable.

The sections live in :mod:`~toolaudit.output.html.audit`,
:mod:`~toolaudit.output.html.ground_truth`, :mod:`~toolaudit.output.html.groups` and
:mod:`~toolaudit.output.html.compare`;
escaping and formatting in :mod:`~toolaudit.output.html.parts`.
"""

from __future__ import annotations

import functools
from importlib import resources

from toolaudit.output.html import accuracy as html_accuracy
from toolaudit.output.html import audit as html_audit
from toolaudit.output.html import compare as html_compare
from toolaudit.output.html import conversations as html_conversations
from toolaudit.output.html import ground_truth as html_ground_truth
from toolaudit.output.html import groups as html_groups
from toolaudit.output.html.parts import esc, pct
from toolaudit.results.score_compare import AccuracyComparison, AnyComparison
from toolaudit.results.summary import Summary

__all__ = ["render_comparison_html", "render_html"]

#: Scripts and fetches of any kind are refused; only the inline stylesheet applies.
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

#: The file beside this module (package data) that every page embeds in its ``<style>``.
STYLESHEET = "style.css"


@functools.cache
def stylesheet() -> str:
    """The pages' CSS, read once.

    Its colours: the kind palette is Okabe & Ito's, told apart with
    colour-blindness too; text colours keep a contrast of at least 4.5:1 on
    their backgrounds. ``.k0`` to ``.k6`` colour the error kinds (one fixed
    class per kind, see ``parts.KIND_CLASSES``), ``.kx0`` to ``.kx2`` any other.
    """
    return resources.files(__name__).joinpath(STYLESHEET).read_text(encoding="utf-8")


def render_html(summary: Summary) -> str:
    """An audit's summary as a self-contained HTML page."""
    sections = [
        html_audit.header(summary),
        html_audit.status(summary),
        html_audit.headline(summary),
        html_audit.tools(summary),
        html_ground_truth.ground_truth(summary),
        html_conversations.conversations(summary),
        html_groups.groups(summary),
        html_audit.params(summary),
        html_audit.samples(summary),
    ]
    title = f"toolaudit: error rate {pct(summary.error_rate)}"
    return _page(title, sections, html_audit.footer(summary))


def render_comparison_html(comparison: AnyComparison) -> str:
    """A comparison of two summaries (or of one group of each), or of two score files, as a
    self-contained HTML page."""
    word = "regressed" if comparison.regressed else "not regressed"
    title = f"toolaudit compare: {esc(comparison.new_label, 40)} {word}"
    if isinstance(comparison, AccuracyComparison):
        return _page(title, html_accuracy.accuracy_sections(comparison), "")
    sections = [
        html_compare.header(comparison),
        html_compare.verdict(comparison),
        html_compare.completeness(comparison),
        html_compare.schemas_note(comparison),
        html_compare.overall(comparison),
        html_compare.by_tool(comparison),
        html_compare.by_kind(comparison),
    ]
    return _page(title, sections, html_compare.footer(comparison))


def _page(title: str, sections: list[str], footer: str) -> str:
    """The document around the sections; ``title`` is already escaped."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>\n{stylesheet()}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(section for section in sections if section)
        + f"\n</main>\n<footer>{footer}</footer>\n</body>\n</html>\n"
    )
