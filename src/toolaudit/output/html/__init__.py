"""The ``--html`` page: one self-contained file to open, share and print.

Two pure functions: :func:`render_html` for an audit's summary and
:func:`render_comparison_html` for ``toolaudit compare BASE NEW``. They return
the whole document as a string; the CLI decides where it goes.

The page needs nothing but itself: inline CSS, no script, no font, image or
link to fetch, so it opens the same offline, in a mail attachment or in a CI
artifact viewer. A Content-Security-Policy in the page forbids scripts and
every fetch as well, so even a bug in the escaping could not run a log's
``<script>``. The output is deterministic (no time, no random id): the same
summary gives the same bytes, which keeps it testable and diffable.

The sections live in :mod:`~toolaudit.output.html.audit`,
:mod:`~toolaudit.output.html.groups` and :mod:`~toolaudit.output.html.compare`;
escaping and formatting in :mod:`~toolaudit.output.html.parts`.
"""

from __future__ import annotations

from toolaudit.results.compare import Comparison
from toolaudit.output.html import audit as html_audit, compare as html_compare, groups as html_groups
from toolaudit.output.html.parts import esc, pct
from toolaudit.results.summary import Summary

__all__ = ["render_comparison_html", "render_html"]

#: Scripts and fetches of any kind are refused; only the inline stylesheet applies.
CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

# Colours: the kind palette is Okabe & Ito's, told apart with colour-blindness
# too; text colours keep a contrast of at least 4.5:1 on their backgrounds.
CSS = """
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #d8dee4; --soft: #f6f8fa;
  --bad: #b42318; --bad-bg: #fef3f2; --good: #1a7f37; --good-bg: #eefbf1; --warn: #7a4d00; --warn-bg: #fff8e6; }
* { box-sizing: border-box; }
html { background: #fff; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans",
    "Liberation Sans", sans-serif; }
main, body > footer { max-width: 1240px; margin: 0 auto; padding: 0 24px; }
h1 { font-size: 1.6rem; margin: 28px 0 2px; }
h2 { font-size: 1.15rem; margin: 36px 0 6px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono", monospace;
  font-size: .88em; }
.sub { margin: 0 0 14px; color: var(--muted); overflow-wrap: anywhere; }
.note { margin: 4px 0 10px; color: var(--muted); font-size: .9rem; }
.small { color: var(--muted); font-size: .78rem; font-weight: normal; }
.status { margin: 10px 0; padding: 8px 14px; border-radius: 6px; border: 1px solid; }
.status p { margin: 0; } .status ul { margin: 6px 0 0; padding-left: 20px; overflow-wrap: anywhere; }
.status.good { color: var(--good); background: var(--good-bg); border-color: #aceebb; }
.status.bad { color: var(--bad); background: var(--bad-bg); border-color: #fda29b; }
.status.warn { color: var(--warn); background: var(--warn-bg); border-color: #f5d48a; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 12px; margin: 16px 0 10px; }
.card { padding: 10px 16px; border: 1px solid var(--line); border-radius: 8px; background: var(--soft); }
.card .label { color: var(--muted); font-size: .78rem; font-weight: 600; letter-spacing: .05em; text-transform: uppercase; }
.card .value { font-size: 1.9rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.card.main { grid-column: span 2; border-color: #9aa4af; background: #fff; }
.card .explain { color: var(--muted); font-size: .8rem; }
.facts { display: flex; flex-wrap: wrap; gap: 4px 28px; margin: 8px 0; }
.facts div { display: flex; gap: 6px; } .facts dt { color: var(--muted); } .facts dd { margin: 0; font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 4px 0; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: middle; }
thead th { color: var(--muted); font-size: .8rem; font-weight: 600; vertical-align: bottom; white-space: nowrap; }
th.rowhead { font-weight: normal; }
.num { text-align: right; white-space: nowrap; }
/* Names are cut to 60 characters already; keeping them on one line keeps rows short. */
td.name, th.rowhead, td.kind { white-space: nowrap; }
.zero, td.zero { color: #8c959f; }
tr.total td { font-weight: 650; border-top: 2px solid var(--fg); border-bottom: none; }
tr.more td { font-style: italic; color: var(--muted); }
tr.rate th, tr.rate td { background: var(--soft); }
tr.subhead th { padding-top: 16px; color: var(--muted); font-size: .8rem; font-weight: 600;
  text-transform: uppercase; letter-spacing: .04em; }
thead th.side { color: var(--fg); font-size: .9rem; text-align: center; border-bottom: 1px solid var(--line); }
thead th.group { color: var(--fg); font-size: .9rem; white-space: normal; overflow-wrap: anywhere; max-width: 14em; }
.sw { display: inline-block; width: 10px; height: 10px; margin-right: 5px; border-radius: 2px; vertical-align: -1px; }
.barcell { width: 100%; min-width: 200px; }
.small-bar { min-width: 160px; width: 40%; }
.bar { display: flex; gap: 1px; height: 14px; }
.seg { display: block; height: 100%; min-width: 3px; }
.meter { display: inline-block; width: 48px; height: 7px; margin-left: 6px; vertical-align: 1px;
  background: #e4e8ec; border-radius: 4px; overflow: hidden; }
.meter span { display: block; height: 100%; background: #57606a; }
.k0 { background: #d55e00; } .k1 { background: #e69f00; } .k2 { background: #0072b2; }
.k3 { background: #cc79a7; } .k4 { background: #009e73; } .k5 { background: #3d4550; }
.kx0 { background: #56b4e9; } .kx1 { background: #f0e442; } .kx2 { background: #999999; }
code.err { display: inline-block; margin: 1px 2px; padding: 0 5px; border-radius: 4px; background: var(--bad-bg); color: var(--bad); }
td.where { white-space: nowrap; } td.detail { color: var(--muted); font-size: .85rem; overflow-wrap: anywhere; min-width: 16em; }
.verdict { margin: 16px 0 8px; padding: 12px 18px;
  border: 2px solid; border-radius: 8px; }
.verdict .word { font-size: 1.5rem; font-weight: 700; } .verdict p { margin: 4px 0 0; font-size: 1.05rem; }
.verdict.bad { color: var(--bad); background: var(--bad-bg); } .verdict.good { color: var(--good); background: var(--good-bg); }
.worse { color: var(--bad); font-weight: 600; } .better { color: var(--good); font-weight: 600; } .same { color: var(--muted); }
.pair { min-width: 180px; width: 100%; }
.pairbars { display: flex; flex-direction: column; gap: 2px; }
.pairbar { display: block; height: 6px; min-width: 1px; }
.pairbar.base, .sw.base { background: #a8b1ba; } .pairbar.new, .sw.new { background: #0b5cad; }
body > footer { margin-top: 40px; padding-top: 10px; padding-bottom: 24px; border-top: 1px solid var(--line);
  color: var(--muted); font-size: .8rem; overflow-wrap: anywhere; }
@media print {
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  body { font-size: 10pt; } main, body > footer { max-width: none; padding: 0; }
  .scroll { overflow: visible; } tr, .card, .verdict, .status { break-inside: avoid; } h2 { break-after: avoid; }
}
"""


def render_html(summary: Summary) -> str:
    """An audit's summary as a self-contained HTML page."""
    sections = [
        html_audit.header(summary),
        html_audit.status(summary),
        html_audit.headline(summary),
        html_audit.tools(summary),
        html_groups.groups(summary),
        html_audit.params(summary),
        html_audit.samples(summary),
    ]
    title = f"toolaudit: error rate {pct(summary.error_rate)}"
    return _page(title, sections, html_audit.footer(summary))


def render_comparison_html(comparison: Comparison) -> str:
    """A comparison of two summaries (or of one group of each) as a self-contained HTML page."""
    sections = [
        html_compare.header(comparison),
        html_compare.verdict(comparison),
        html_compare.completeness(comparison),
        html_compare.schemas_note(comparison),
        html_compare.overall(comparison),
        html_compare.by_tool(comparison),
        html_compare.by_kind(comparison),
    ]
    word = "regressed" if comparison.regressed else "not regressed"
    title = f"toolaudit compare: {esc(comparison.new_label, 40)} {word}"
    return _page(title, sections, html_compare.footer(comparison))


def _page(title: str, sections: list[str], footer: str) -> str:
    """The document around the sections; ``title`` is already escaped."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(section for section in sections if section)
        + f"\n</main>\n<footer>{footer}</footer>\n</body>\n</html>\n"
    )
