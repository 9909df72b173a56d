"""The sections of the comparison page (``toolaudit compare BASE NEW``), one function each.

A change is NEW's rate minus BASE's: positive is worse. It is shown with a
sign, an arrow and a word in its tooltip as well as a colour, so it reads the
same in grey print and to people who do not see red and green apart.
"""

from __future__ import annotations

# The module by its full name: `from toolaudit.output.html import parts` would depend on
# the package, whose __init__ imports this module (a cycle).
import toolaudit.output.html.parts as p
from toolaudit.results.compare import Comparison, RateChange
from toolaudit.results.score_compare import AnyComparison
from toolaudit.results.significance import Test

#: Rows of a change table; beyond it the smallest changes are left out (and counted).
MAX_CHANGE_ROWS = 100
#: Labels (often paths of summary files) are cut to this in column headers.
LABEL_WIDTH = 40


def header(comparison: AnyComparison) -> str:
    base = _side(comparison.base_label, comparison.base_group)
    new = _side(comparison.new_label, comparison.new_group)
    return (
        "<header><h1>Tool-call audit: comparison</h1>"
        f'<p class="sub">base {base} \u2192 new {new}</p></header>'
    )


def _side(label: str, group: str | None) -> str:
    where = f" (group <code>{p.name(group, LABEL_WIDTH)}</code>)" if group is not None else ""
    return f"<strong>{p.name(label, 120)}</strong>{where}"


def sides(comparison: AnyComparison) -> tuple[str, str]:
    """Short names of the two sides for column headers: what tells them apart.

    ``compare summary.json summary.json --base-group a --new-group b`` has one
    label twice, and two groups; two runs of one group have two labels.
    """
    base_label, new_label = comparison.base_label, comparison.new_label
    base_group, new_group = comparison.base_group, comparison.new_group
    if base_group == new_group:
        names = (base_label, new_label) if base_label != new_label else ("base", "new")
    elif base_label == new_label:
        names = (base_group or "all", new_group or "all")
    else:
        names = (f"{base_label} [{base_group or 'all'}]", f"{new_label} [{new_group or 'all'}]")
    return p.name(names[0], LABEL_WIDTH), p.name(names[1], LABEL_WIDTH)


def verdict(comparison: Comparison) -> str:
    """The answer first: did NEW regress, against the tolerance, in words and numbers."""
    overall, tolerance = comparison.overall, comparison.tolerance
    base, new = sides(comparison)
    rates = f"{new} {p.pct(overall.new_rate)} against {base} {p.pct(overall.base_rate)}"
    within = f"tolerance {p.tolerance_points(tolerance)}"
    if comparison.regressed:
        return (
            '<div class="verdict bad" role="alert"><div class="word">\u2717 Regressed</div>'
            f"<p>The error rate rose by {magnitude(overall.change)}: {rates}; "
            f"more than the {within}.</p></div>"
        )
    if overall.change > 0:
        how = f"rose by {magnitude(overall.change)}, within the {within}"
    elif overall.change < 0:
        how = f"fell by {magnitude(overall.change)}"
    else:
        how = "did not change"
    return (
        '<div class="verdict good"><div class="word">\u2713 Not regressed</div>'
        f"<p>The error rate {how}: {rates}.</p></div>"
    )


def magnitude(change: float) -> str:
    """A change in words ("rose by 1.5 pp"): the verb carries the sign."""
    return p.points(abs(change)).lstrip("+")


def completeness(comparison: Comparison) -> str:
    """An incomplete audit on either side makes the verdict provisional: say so next to it."""
    pairs = (("base", comparison.base), ("new", comparison.new))
    incomplete = [label for label, summary in pairs if not summary.complete]
    if not incomplete:
        return ""
    which = " and ".join(incomplete)
    return (
        '<div class="status bad" role="alert"><p><strong>\u26a0 Incomplete:</strong> '
        f"the {which} audit "
        "did not read all its input, so its figures cover only what was read.</p></div>"
    )


def schemas_note(comparison: Comparison) -> str:
    if comparison.same_schemas:
        return ""
    base, new = comparison.base.schemas_digest, comparison.new.schemas_digest
    return (
        '<div class="status warn"><p><strong>\u26a0 Different schemas:</strong> '
        "the two audits judged the calls against different tool schemas, "
        "so a change may come from the schemas, not the model "
        f"(base <code>{p.esc(base or 'none')}</code>, "
        f"new <code>{p.esc(new or 'none')}</code>).</p></div>"
    )


def overall(comparison: Comparison) -> str:
    base, new = comparison.base, comparison.new
    base_name, new_name = sides(comparison)
    head = [p.th(""), p.th(base_name, "num"), p.th(new_name, "num"), p.th("change", "num")]
    rate, rate_test = comparison.overall, comparison.overall_test
    first = [
        p.th("<strong>error rate</strong>", "rowhead", "row"),
        rate_cell(rate.base_rate),
        rate_cell(rate.new_rate),
    ]
    body = [
        p.tr([*first, _change(rate.change)], "rate"),
        _count_row("failed (invalid calls + malformed records)", rate.base_count, rate.new_count),
        _count_row("audited (calls + malformed records)", rate.base_calls, rate.new_calls),
        _count_row("calls", base.calls, new.calls),
        _count_row("invalid calls", base.invalid, new.invalid),
        _count_row("malformed records", base.malformed_records, new.malformed_records),
    ]
    return p.section("overall", "Overall", p.table(head, body, "overall"), test_note(rate_test))


def test_note(test: Test) -> str:
    """A test's figures under its table: name, p-value, and the interval of the change."""
    p_value = "p &lt; 0.0001" if test.p_value < 0.0001 else f"p = {test.p_value:.3g}"
    return p.note(
        f"{p.esc(test.name)}: {p_value}; 95% interval of the change "
        f"{p.points(test.low)} to {p.points(test.high)}."
    )


def rate_cell(rate: float) -> str:
    return p.td(f"{p.pct(rate)} {p.meter(rate)}", "num")


def _count_row(label: str, base: int, new: int) -> str:
    diff = new - base
    sign = "+" if diff > 0 else (p.MINUS if diff < 0 else "\u00b1")
    cells = [
        p.td(p.num(base), "num"),
        p.td(p.num(new), "num"),
        p.td(f"{sign}{p.num(abs(diff))}", "num"),
    ]
    return p.tr([p.th(label, "rowhead", "row"), *cells])


def _change(change: float) -> str:
    """A signed change with an arrow; colour only repeats what the sign says."""
    if change > 0:
        arrow, css, words = "\u25b2", "num worse", "worse: the new rate is higher"
    elif change < 0:
        arrow, css, words = "\u25bc", "num better", "better: the new rate is lower"
    else:
        arrow, css, words = "=", "num same", "unchanged"
    return p.td(f'<span aria-hidden="true">{arrow}</span> {p.points(change)}', css, words)


def by_tool(comparison: Comparison) -> str:
    return _changes(
        comparison,
        comparison.by_tool,
        section_id="tools",
        heading="By tool",
        explain="Invalid calls over calls to the tool. "
        "The tools that weigh most in the change of the error rate come first.",
        noun="tools",
    )


def by_kind(comparison: Comparison) -> str:
    return _changes(
        comparison,
        comparison.by_kind,
        section_id="kinds",
        heading="By error kind",
        explain="Errors of the kind over all calls (a call can have several errors); "
        "worst change first.",
        noun="kinds",
    )


def _changes(
    comparison: Comparison,
    rows: list[RateChange],
    *,
    section_id: str,
    heading: str,
    explain: str,
    noun: str,
) -> str:
    """A table of changes, one row per tool or per error kind (``noun``)."""
    if not rows:
        return p.section(section_id, heading, p.note(f"No {noun} in either audit."))
    shown = rows
    left_out = ""
    if len(rows) > MAX_CHANGE_ROWS:
        # Worst-first order puts the best improvements last: keep the largest
        # changes either way, not the first rows.
        largest = sorted(range(len(rows)), key=lambda i: (-abs(rows[i].change), rows[i].name))
        keep = set(largest[:MAX_CHANGE_ROWS])
        shown = [row for i, row in enumerate(rows) if i in keep]
        hidden = p.num(len(rows) - MAX_CHANGE_ROWS)
        left_out = p.note(f"{hidden} {noun} with the smallest changes are not shown.")
    classes = p.kind_classes(row.name for row in rows) if noun == "kinds" else {}
    base, new = sides(comparison)
    scale = max(max(row.base_rate, row.new_rate) for row in shown) or 1.0
    # Two header rows: the side names over their two columns each, then what the columns hold.
    above = (
        '<tr><td></td><th scope="colgroup" colspan="2" class="num side">' + base + "</th>"
        '<th scope="colgroup" colspan="2" class="num side">' + new + "</th><td></td><td></td></tr>"
    )
    head = [
        p.th(noun.removesuffix("s")),
        p.th("count / calls", "num"),
        p.th("rate", "num"),
        p.th("count / calls", "num"),
        p.th("rate", "num"),
        p.th("change", "num"),
        p.th(
            f"{p.swatch('base')}base {p.swatch('new')}new"
            f'<div class="small">bars from 0 to {p.pct(scale)}</div>'
        ),
    ]
    body = [_change_row(row, classes.get(row.name), scale) for row in shown]
    return p.section(
        section_id, heading, p.note(explain), p.table(head, body, "changes", above), left_out
    )


def _change_row(row: RateChange, kind_class: str | None, scale: float) -> str:
    if kind_class:
        label = p.kind_label(row.name, kind_class)
    else:
        # The change of a tool called on one side only is its whole rate: say why.
        only = (
            "only in new" if not row.base_calls else ("only in base" if not row.new_calls else "")
        )
        label = p.name(row.name) + (f' <span class="small">{only}</span>' if only else "")
    return p.tr(
        [
            p.td(label, "kind" if kind_class else "name"),
            p.td(_fraction(row.base_count, row.base_calls), "num"),
            _side_rate(row.base_rate, row.base_calls),
            p.td(_fraction(row.new_count, row.new_calls), "num"),
            _side_rate(row.new_rate, row.new_calls),
            _change(row.change),
            p.td(_pair(row, scale), "pair"),
        ]
    )


def _fraction(count: int, calls: int) -> str:
    return f"{p.num(count)} / {p.num(calls)}" if calls else f'<span class="zero">{p.DASH}</span>'


def _side_rate(rate: float, calls: int) -> str:
    if not calls:
        return p.td('<span class="zero" title="no calls">not called</span>', "num")
    return p.td(p.pct(rate), "num")


def _pair(row: RateChange, scale: float) -> str:
    """Base and new rates as two thin bars to one scale: the gap is visible at a glance."""
    bars = (
        f'<span class="pairbar base" style="width:{p.width(row.base_rate, scale)}"></span>'
        f'<span class="pairbar new" style="width:{p.width(row.new_rate, scale)}"></span>'
    )
    words = f"base {p.pct(row.base_rate)}, new {p.pct(row.new_rate)}"
    return f'<div class="pairbars" role="img" aria-label="{words}">{bars}</div>'


def footer(comparison: Comparison) -> str:
    base, new = comparison.base, comparison.new
    return " \u00b7 ".join(
        f"{side}: toolaudit {p.esc(summary.toolaudit_version)}, "
        f"schemas <code>{p.esc(summary.schemas_digest or 'none')}</code>"
        for side, summary in (("base", base), ("new", new))
    )
