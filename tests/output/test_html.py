"""The --html pages: what they show, that nothing in a log becomes markup, and how a browser
sees them.

Summaries come from real audits (the sample, or small logs written here), so the
pages are tested on what the library really produces.
"""

from __future__ import annotations

import gzip
import html
import json
import re
import shutil
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

import toolaudit
from toolaudit import __version__
from toolaudit.contract import KINDS
from toolaudit.output.html import render_comparison_html, render_html, stylesheet
from toolaudit.output.html.parts import KIND_CLASSES, points
from toolaudit.results.compare import compare
from toolaudit.results.summary import Summary

from ..conftest import REPO

SAMPLE = "sample_logs/calls.jsonl"
SAMPLE_SCHEMAS = "sample_logs/schemas.json"
SAMPLE_TOOLS = (
    "set_thermostat",
    "search_web",
    "get_weather",
    "convert_currency",
    "create_event",
    "send_email",
    "web_search",
    "<no name>",
    "browse",
    "get_forecast",
)

HOSTILE_TOOL = "<script>alert(1)</script>"
HOSTILE_PARAM = '"><img src=x onerror=alert(1)>'
# Would change the page if it ever ran or became markup: the browser test looks for its effects.
DOM_TOOL = "<script>document.title='pwned'</script>"
DOM_MODEL = "<img src onerror=document.title='pwned'>"
BIDI_TOOL = "evil\u202etxt.exe"
ANSI_TOOL = "red\x1b[31mtool"

#: Every element the pages are made of: anything else came from the data.
OWN_TAGS = {
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "main",
    "header",
    "footer",
    "section",
    "h1",
    "h2",
    "h3",
    "p",
    "div",
    "span",
    "strong",
    "code",
    "ul",
    "li",
    "dl",
    "dt",
    "dd",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
}
VOID_TAGS = {"meta"}
#: Elements that separate words when a page is read as text (cells, paragraphs...).
BLOCK_TAGS = OWN_TAGS - {"span", "strong", "code"}


class Page(HTMLParser):
    """A page walked as a browser's parser would: its tags (checked balanced), attributes, text."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.text_parts: list[str] = []
        self.stack: list[str] = []
        self.feed(page)
        self.close()
        assert not self.stack, f"unclosed elements: {self.stack}"

    def handle_starttag(self, tag, attrs):
        if tag in BLOCK_TAGS:
            self.text_parts.append(" ")
        self.tags.append(tag)
        self.attributes.extend(attrs)
        if tag not in VOID_TAGS:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        raise AssertionError(f"self-closing <{tag}/>: not HTML")

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (
            f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        )
        self.stack.pop()
        if tag in BLOCK_TAGS:
            self.text_parts.append(" ")

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "style":
            return
        self.text_parts.append(data)

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", "".join(self.text_parts))

    def titles(self) -> list[str]:
        return [value or "" for name, value in self.attributes if name == "title"]


@pytest.fixture(scope="module")
def grouped() -> Summary:
    return toolaudit.audit(
        [str(REPO / SAMPLE)], str(REPO / SAMPLE_SCHEMAS), group_by=("model",)
    ).run()


@pytest.fixture
def sample(in_repo: Path) -> Summary:
    return toolaudit.audit([SAMPLE], SAMPLE_SCHEMAS).run()


def write_jsonl(path: Path, records: list[object]) -> str:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return str(path)


def hostile_audit(tmp_path: Path) -> Summary:
    """A log whose names, ids, group values and path are all attempts at markup."""
    schemas = {
        HOSTILE_TOOL: {
            "parameters": {
                "type": "object",
                "properties": {HOSTILE_PARAM: {"type": "string"}},
                "required": [HOSTILE_PARAM],
            }
        },
        BIDI_TOOL: {"parameters": {"type": "object", "properties": {}}},
    }
    log = tmp_path / 'log<i>&".jsonl'
    records = [
        {"id": "<b>id</b>", "model": DOM_MODEL, "name": HOSTILE_TOOL, "arguments": {}},
        {"id": "c2", "model": "m\u202e1", "name": HOSTILE_TOOL, "arguments": {HOSTILE_PARAM: 1}},
        {"id": "c3", "model": DOM_MODEL, "name": DOM_TOOL, "arguments": {}},
        {"id": "c4", "model": DOM_MODEL, "name": BIDI_TOOL, "arguments": {"x": 1}},
        {"id": "c5", "model": DOM_MODEL, "name": ANSI_TOOL, "arguments": {}},
        {"id": "c6", "model": DOM_MODEL, "name": HOSTILE_TOOL, "arguments": {HOSTILE_PARAM: "ok"}},
    ]
    return toolaudit.audit([write_jsonl(log, records)], schemas, group_by=("model",)).run()


# --- the audit page -------------------------------------------------------------------------------


def test_the_audit_page_shows_the_headline_every_tool_and_the_footer(sample: Summary) -> None:
    page = Page(render_html(sample))
    text = page.text
    for figure in ("361", "310", "51", "14.8%", "365 (1 blank)", "364"):
        assert figure in text
    assert "54 failed of 364" in text and "a malformed record counts as a failure" in text
    assert "malformed records 3 (2 malformed:json, 1 malformed:record)" in text
    assert "records without calls 0" in text
    assert "Complete: the input was read to the end." in text
    for tool in SAMPLE_TOOLS:
        assert tool in text
    # The tool table: its total row, and the kinds in the contract's order.
    assert "total 361 310 51 14.1%" in text
    table = text[text.index("Errors by tool") :]
    kinds = [
        table.index(f" {kind} ")
        for kind in ("missing", "unexpected", "type", "enum", "unknown_tool", "malformed")
    ]
    assert kinds == sorted(kinds)
    assert f"toolaudit {__version__}" in text and sample.schemas_digest in text
    assert "By model" not in text  # not grouped


def test_the_audit_page_shows_the_failing_parameters_and_the_samples(sample: Summary) -> None:
    text = Page(render_html(sample)).text
    assert "the top 15 of 19" in text
    assert "search_web num_results unexpected 5" in text
    assert "convert_currency amount type 4" in text
    for row in sample.samples:
        assert f"{row['source']}:{row['line']}" in text
        for error in row["errors"]:
            assert error in text
    assert (
        "sample_logs/calls.jsonl:14 0 call_0013 send_email gpt-4o-mini malformed:arguments "
        "arguments are not valid JSON: unexpected character, expected a string key (column 2)"
    ) in text
    # Each error is followed by its reason, unless the detail already says it (once).
    assert (
        "call_0009 create_event gpt-4o-mini unexpected:end not a parameter of this tool "
        "(parameters: title, start, duration_minutes, attendees, reminder_minutes)"
    ) in text
    assert text.count("expected a string key (column 2)") == sum(
        row.get("detail") == "arguments are not valid JSON: unexpected character, expected a "
        "string key (column 2)"
        for row in sample.samples
    )


def test_the_groups_stand_side_by_side(grouped: Summary) -> None:
    text = Page(render_html(grouped)).text
    assert "By model" in text and "grouped by model" in text
    # Columns in order of size, then each group's totals and error rate, row by row.
    assert "claude-sonnet-4-5 gpt-4o-mini null calls 185 176 0" in text
    assert "invalid calls 12 39 0 malformed records 0 0 3 error rate 6.5% 22.2% 100.0%" in text
    assert "set_thermostat 4 / 35 11.4% 8 / 35 22.9%" in text
    assert "unexpected 3 (1.6%) 10 (5.7%)" in text
    assert "null: records without the field" in text


def test_numbers_have_thousands_separators(tmp_path: Path) -> None:
    schemas = {"t": {"parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}}
    records = [{"name": "t", "arguments": {"a": "x"} if i % 4 else {"a": 1}} for i in range(2_345)]
    summary = toolaudit.audit([write_jsonl(tmp_path / "big.jsonl", records)], schemas).run()
    text = Page(render_html(summary)).text
    assert "2,345" in text and "1,758" in text and "587" in text and "25.0%" in text


def test_the_page_is_self_contained_and_deterministic(grouped: Summary) -> None:
    page = render_html(grouped)
    assert page.startswith("<!DOCTYPE html>\n")
    for outside in ("<script", "http://", "https://", "<link", "src=", "url(", "@import"):
        assert outside not in page.lower()
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert render_html(grouped) == page
    # A summary read back from its JSON (as `toolaudit compare` reads them) gives the same page.
    assert render_html(Summary.from_dict(json.loads(json.dumps(grouped.to_dict())))) == page


def test_the_stylesheet_is_package_data_embedded_as_it_is(grouped: Summary) -> None:
    css = (REPO / "src/toolaudit/output/html/style.css").read_text(encoding="utf-8")
    assert stylesheet() == css and stylesheet() is stylesheet()  # read once
    assert f"<style>\n{css}</style>" in render_html(grouped)
    assert f"<style>\n{css}</style>" in render_comparison_html(compare(grouped, grouped))
    # Each of the contract's kinds has its own colour class, defined by the stylesheet.
    assert set(KIND_CLASSES) == set(KINDS)
    for css_class in KIND_CLASSES.values():
        assert f".{css_class} {{" in css
    assert f".k{len(KINDS)} " not in css


def test_an_incomplete_audit_says_so_and_where_reading_stopped(tmp_path: Path) -> None:
    schemas = {"t": {"parameters": {"type": "object", "properties": {}}}}
    lines = "".join(
        json.dumps({"name": "t", "arguments": {}}) + "\n" for _ in range(2_000)
    ).encode()
    broken = tmp_path / "cut.jsonl.gz"
    broken.write_bytes(gzip.compress(lines)[:-200])
    whole = write_jsonl(tmp_path / "whole.jsonl", [{"name": "t", "arguments": {}}])
    summary = toolaudit.audit([str(broken), whole], schemas).run()
    assert not summary.complete
    page = Page(render_html(summary))
    assert "Incomplete audit" in page.text and "Complete:" not in page.text
    assert f"Tool-call audit {broken}, {whole} " in page.text
    assert (
        f"{broken} (read {summary.sources[0].lines:,} lines): {summary.sources[0].error}"
        in page.text
    )
    assert "whole.jsonl (read" not in page.text


def test_an_empty_log_gives_a_page_too(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    summary = toolaudit.audit([str(empty)], {}).run()
    text = Page(render_html(summary)).text
    assert "No tool calls in the input." in text and "No failing calls." in text and "0.0%" in text


def test_long_lists_are_cut_and_say_what_they_left_out(
    grouped: Summary, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolaudit.output.html import audit as html_audit
    from toolaudit.output.html import compare as html_compare
    from toolaudit.output.html import groups as html_groups

    monkeypatch.setattr(html_audit, "MAX_TOOL_ROWS", 3)
    monkeypatch.setattr(html_groups, "MAX_GROUP_COLUMNS", 2)
    text = Page(render_html(grouped)).text
    # The other tools are added up into one row, so the columns still sum to the total.
    assert "7 more tools 179 156 23 12.8%" in text and "total 361 310 51 14.1%" in text
    assert "convert_currency" not in text.split("Errors by tool")[1].split("total")[0]
    assert "1 smaller groups are not shown." in text and "null calls" not in text
    monkeypatch.setattr(html_compare, "MAX_CHANGE_ROWS", 3)
    comparison = compare(grouped, grouped, base_group="gpt-4o-mini", new_group="claude-sonnet-4-5")
    text = Page(render_comparison_html(comparison)).text
    # The largest changes either way are kept: here the three tools called once, on one side only.
    assert "7 tools with the smallest changes are not shown." in text
    assert "get_forecast only in new" in text and "browse only in base" in text
    assert "get_weather" not in text


# --- nothing in a log becomes markup --------------------------------------------------------------


def test_hostile_names_are_shown_as_text_and_never_become_markup(tmp_path: Path) -> None:
    summary = hostile_audit(tmp_path)
    assert (
        HOSTILE_TOOL in summary.by_tool and HOSTILE_PARAM in summary.by_tool[HOSTILE_TOOL].by_param
    )
    raw = render_html(summary)
    page = Page(raw)
    assert set(page.tags) <= OWN_TAGS
    assert {name for name, _ in page.attributes} <= {
        "lang",
        "charset",
        "http-equiv",
        "content",
        "name",
        "id",
        "class",
        "style",
        "title",
        "role",
        "aria-label",
        "aria-hidden",
        "scope",
        "colspan",
    }
    for shown in (HOSTILE_TOOL, HOSTILE_PARAM, DOM_TOOL, DOM_MODEL, "<b>id</b>", 'log<i>&".jsonl'):
        assert shown in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in raw
    assert "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;" in raw
    assert "<script" not in raw and "<img" not in raw and "<b>" not in raw and "<i>" not in raw
    # Control and bidi characters are shown escaped, as on the terminal, never raw.
    assert "\u202e" not in raw and "\x1b" not in raw
    assert (
        "evil\\u202etxt.exe" in page.text
        and "red\\x1b[31mtool" in page.text
        and "m\\u202e1" in page.text
    )


def test_a_long_name_is_cut_and_kept_whole_in_its_tooltip(tmp_path: Path) -> None:
    # Tooltips are attributes: log content in them is escaped like the rest.
    long_name = HOSTILE_PARAM + "x" * 200
    schemas = {"known": {"parameters": {"type": "object", "properties": {}}}}
    summary = toolaudit.audit(
        [write_jsonl(tmp_path / "l.jsonl", [{"name": long_name, "arguments": {}}])], schemas
    ).run()
    raw = render_html(summary)
    page = Page(raw)
    assert long_name not in page.text and long_name[:59] + "\u2026" in page.text
    assert long_name in page.titles() and f"unknown_tool:{long_name}" in page.titles()
    assert "<img" not in raw and 'title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;xxx' in raw


def test_hostile_labels_and_groups_in_a_comparison_are_escaped(tmp_path: Path) -> None:
    summary = hostile_audit(tmp_path)
    comparison = compare(
        summary,
        summary,
        base_label=HOSTILE_TOOL,
        new_label=HOSTILE_PARAM,
        base_group=DOM_MODEL,
        new_group="m\u202e1",
    )
    raw = render_comparison_html(comparison)
    page = Page(raw)
    assert set(page.tags) <= OWN_TAGS
    assert HOSTILE_TOOL in page.text and HOSTILE_PARAM in page.text and DOM_MODEL in page.text
    assert "<script" not in raw and "<img" not in raw and "\u202e" not in raw
    assert "m\\u202e1" in page.text


# --- the comparison page --------------------------------------------------------------------------


def test_a_regression_is_named_with_its_numbers(grouped: Summary) -> None:
    comparison = compare(
        grouped,
        grouped,
        base_label="summary.json",
        new_label="summary.json",
        base_group="claude-sonnet-4-5",
        new_group="gpt-4o-mini",
    )
    assert comparison.regressed
    raw = render_comparison_html(comparison)
    text = Page(raw).text
    assert "\u2717 Regressed" in text and "Not regressed" not in text
    assert (
        "The error rate rose by 15.7 pp: gpt-4o-mini 22.2% against claude-sonnet-4-5 6.5%" in text
    )
    assert "more than the tolerance 0.0 pp" in text
    assert (
        "base summary.json (group claude-sonnet-4-5) \u2192 new summary.json (group gpt-4o-mini)"
        in text
    )
    # Columns are named after the groups (the labels are the same file); a change has an arrow
    # and a sign.
    assert "error rate 6.5% 22.2% \u25b2 +15.7 pp" in text
    assert "get_weather 0 / 23 0.0% 7 / 29 24.1% \u25b2 +24.1 pp" in text
    assert "get_forecast only in base 1 / 1 100.0% \u2014 not called \u25bc \u2212100.0 pp" in text
    assert "browse only in new" in text
    assert "unexpected 3 / 185 1.6% 10 / 176 5.7% \u25b2 +4.1 pp" in text
    assert (
        'class="num worse" title="worse: the new rate is higher">'
        '<span aria-hidden="true">\u25b2</span> +15.7 pp' in raw
    )
    assert "Different schemas" not in text


def test_an_improvement_is_not_a_regression(grouped: Summary) -> None:
    comparison = compare(
        grouped,
        grouped,
        base_label="a.json",
        new_label="b.json",
        base_group="gpt-4o-mini",
        new_group="claude-sonnet-4-5",
    )
    raw = render_comparison_html(comparison)
    text = Page(raw).text
    assert "\u2713 Not regressed" in text and "Regressed" not in text.replace("Not regressed", "")
    # Labels and groups both differ: each side is named by both.
    assert (
        "The error rate fell by 15.7 pp: "
        "b.json [claude-sonnet-4-5] 6.5% against a.json [gpt-4o-mini] 22.2%." in text
    )
    assert "\u25bc \u221215.7 pp" in text
    assert 'class="num better"' in raw


def test_a_rise_within_the_tolerance_is_not_a_regression(grouped: Summary) -> None:
    comparison = compare(
        grouped, grouped, base_group="claude-sonnet-4-5", new_group="gpt-4o-mini", tolerance=0.2
    )
    text = Page(render_comparison_html(comparison)).text
    assert "Not regressed" in text and "rose by 15.7 pp, within the tolerance 20.0 pp" in text


def test_the_same_group_of_two_runs_is_named_once_per_side(grouped: Summary) -> None:
    comparison = compare(
        grouped,
        grouped,
        base_label="monday.json",
        new_label="tuesday.json",
        base_group="gpt-4o-mini",
        new_group="gpt-4o-mini",
    )
    text = Page(render_comparison_html(comparison)).text
    assert "monday.json (group gpt-4o-mini) \u2192 new tuesday.json (group gpt-4o-mini)" in text
    assert "did not change: tuesday.json 22.2% against monday.json 22.2%" in text
    assert "error rate 22.2% 22.2% = \u00b10.0 pp" in text


def test_different_schemas_are_pointed_out(sample: Summary, tmp_path: Path) -> None:
    schemas = json.loads((REPO / SAMPLE_SCHEMAS).read_text())
    schemas.pop("browse", None)
    schemas["extra_tool"] = {"parameters": {"type": "object", "properties": {}}}
    other = toolaudit.audit([SAMPLE], schemas).run()
    assert other.schemas_digest != sample.schemas_digest
    text = Page(render_comparison_html(compare(sample, other))).text
    assert (
        "Different schemas" in text
        and sample.schemas_digest in text
        and other.schemas_digest in text
    )


def test_changes_too_small_for_one_decimal_keep_their_direction() -> None:
    assert points(0.157) == "+15.7 pp"
    assert points(-0.157) == "\u221215.7 pp"
    assert points(0.0) == "\u00b10.0 pp"
    assert points(0.0001) == "+<0.1 pp" and points(-0.0001) == "\u2212<0.1 pp"


# --- in a real browser ----------------------------------------------------------------------------


def find_browser() -> str | None:
    for candidate in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(candidate)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def run_browser(browser: str, page: Path, profile: Path, *extra: str) -> str:
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        *extra,
        page.as_uri(),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=90, check=False)
    except subprocess.TimeoutExpired:
        # A headless browser waits forever on a dialog: an alert() from the log would end here.
        pytest.fail(f"the browser did not finish with {page.name}: did a script open a dialog?")
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def title_of(page: str) -> str:
    return html.unescape(re.search(r"<title>(.*?)</title>", page, re.DOTALL).group(1))


def png_is_a_picture(path: Path, width: int) -> bool:
    """A PNG of the given width whose pixels are not all one colour (a blank page)."""
    data = path.read_bytes()
    if not data.startswith(b"\x89PNG\r\n\x1a\n") or int.from_bytes(data[16:20], "big") != width:
        return False
    pixels, offset = b"", 8
    while offset < len(data):
        length = int.from_bytes(data[offset : offset + 4], "big")
        if data[offset + 4 : offset + 8] == b"IDAT":
            pixels += data[offset + 8 : offset + 8 + length]
        offset += 12 + length
    return len(set(zlib.decompress(pixels))) > 32


@pytest.mark.slow
def test_a_browser_shows_hostile_names_as_text_and_runs_nothing(tmp_path: Path) -> None:
    browser = find_browser()
    if browser is None:
        pytest.skip("no chromium on this machine: the browser test needs one")
    pages = {
        "audit.html": render_html(hostile_audit(tmp_path)),
        "compare.html": render_comparison_html(
            compare(
                hostile_audit(tmp_path),
                hostile_audit(tmp_path),
                base_label=DOM_TOOL,
                new_label=HOSTILE_TOOL,
            )
        ),
    }
    for name, html_text in pages.items():
        path = tmp_path / name
        path.write_text(html_text, encoding="utf-8")
        dumped = run_browser(browser, path, tmp_path / "profile", "--dump-dom")
        dom = Page(dumped)
        # The escaped names are text in the live DOM; no element or attribute came from them,
        # and neither payload ran: the title is still the page's own.
        assert HOSTILE_TOOL in dom.text and DOM_TOOL in dom.text, name
        assert name == "compare.html" or DOM_MODEL in dom.text
        assert set(dom.tags) <= OWN_TAGS, name
        assert title_of(dumped) == title_of(html_text) != "pwned"
    shot = tmp_path / "page.png"
    run_browser(
        browser,
        tmp_path / "audit.html",
        tmp_path / "profile",
        f"--screenshot={shot}",
        "--window-size=1280,2000",
        "--hide-scrollbars",
    )
    assert shot.exists() and shot.stat().st_size > 20_000
    assert png_is_a_picture(shot, 1280)


def test_a_comparison_of_score_files_escapes_its_labels_and_shows_the_test() -> None:
    from toolaudit.results.score_compare import compare_scores

    base = {f"q{i}": i < 8 for i in range(10)}
    comparison = compare_scores(
        base, {**base, "q0": False}, base_label=HOSTILE_TOOL, new_label=HOSTILE_PARAM
    )
    raw = render_comparison_html(comparison)
    page = Page(raw)
    assert set(page.tags) <= OWN_TAGS
    assert HOSTILE_TOOL in page.text and HOSTILE_PARAM in page.text
    assert "<script" not in raw and "<img" not in raw
    assert "Not regressed" not in page.text and "Regressed" in page.text
    assert "10 shared ids" in page.text and "exact McNemar: p = 1" in page.text
    # Ten ids cannot show a drop at alpha 0.05 unless six go one way: said, not hidden.
    passed = compare_scores(base, base, tolerance=0.05)
    assert "too few to detect a drop of 5.0 pp" in Page(render_comparison_html(passed)).text
