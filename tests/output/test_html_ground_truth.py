"""The audit page of an audit with expected calls: a ground-truth section with its figures,
each group's accuracy, names from logs escaped; and nothing of it without expected calls."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

import toolaudit
from toolaudit.output.html import render_html
from toolaudit.results.ground_truth import GroundTruth
from toolaudit.results.summary import Summary
from toolaudit.truth.match import Score

from ..conftest import REPO
from .scored import scored_summary
from .test_html import DOM_MODEL, HOSTILE_TOOL, OWN_TAGS, SAMPLE, SAMPLE_SCHEMAS, Page


@pytest.fixture(scope="module")
def grouped() -> Summary:
    return toolaudit.audit(
        [str(REPO / SAMPLE)], str(REPO / SAMPLE_SCHEMAS), group_by=("model",)
    ).run()


def section_of(page: str) -> str:
    start = page.index('<section id="ground-truth">')
    return page[start : page.index("</section>", start) + len("</section>")]


def test_the_section_shows_the_accuracy_outcomes_categories_tools_parameters_and_samples():
    text = Page(section_of(render_html(scored_summary()))).text
    assert "entries scored 6 correct 3 accuracy 50.0%" in text
    assert "95% CI 18.8% to 81.2%; macro (mean of the categories) 41.7%" in text
    assert "correct 2 incorrect 2 missed 1 correct_abstention 1" in text
    assert "records unscored (2 with no expected entry) 2" in text
    # Categories lowest first, with their counts.
    categories = re.findall(r"(\w+) (\d) (\d) (\d+\.\d%)", text.split("lowest first")[1])
    assert categories == [
        ("multiple", "1", "0", "0.0%"),
        ("parallel", "1", "0", "0.0%"),
        ("simple", "3", "2", "66.7%"),
        ("irrelevance", "1", "1", "100.0%"),
    ]
    assert "ping 1 0.0% 0 1 \u2014 0.0%" in text  # never called: no precision
    assert "get_weather 5 40.0% 4 5 100.0% 80.0%" in text
    assert "get_weather city 1 60.0% 50.0%" in text
    assert "simple_2 m1 incorrect value:city" in text
    assert "multiple_1 m1 missed missing_call:get_weather" in text


def test_groups_show_their_accuracy(grouped: Summary) -> None:
    text = Page(render_html(scored_summary(grouped))).text
    assert "expected entries scored 6 5 4 accuracy 50.0% 40.0% 50.0%" in text


def test_without_expected_calls_the_page_is_as_it_was(grouped: Summary) -> None:
    ungrouped = replace(grouped, group_by=(), groups={})
    plain = render_html(ungrouped)
    assert "ground-truth" not in plain and "accuracy" not in plain
    # With the section, the page gains it and nothing else.
    scored = render_html(scored_summary(ungrouped))
    assert scored.replace(section_of(scored) + "\n", "") == plain
    page = render_html(grouped)
    assert "expected entries scored" not in page and "ground-truth" not in page


def test_names_from_logs_are_escaped() -> None:
    section = GroundTruth()
    score = Score("<b>id</b>", "<i>cat</i>", "incorrect", False, (f"value:{HOSTILE_TOOL}",), ())
    made, expected = [HOSTILE_TOOL], [HOSTILE_TOOL]
    section.add(score, made, expected, row={**score.to_dict(), "model": DOM_MODEL})
    raw = render_html(Summary("0", ground_truth=section))
    page = Page(raw)
    assert set(page.tags) <= OWN_TAGS
    assert "<script" not in raw and "<img" not in raw and "<b>" not in raw and "<i>" not in raw
    for shown in ("<b>id</b>", "<i>cat</i>", HOSTILE_TOOL, f"value:{HOSTILE_TOOL}", DOM_MODEL):
        assert shown in page.text
