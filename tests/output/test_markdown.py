"""--format markdown: golden files for a grouped audit and a comparison, and names from logs
escaped so that they cannot break the table or become markup; the ground truth of an audit
with expected calls."""

from __future__ import annotations

from ..conftest import GOLDEN, SAMPLE, SAMPLE_SCHEMAS, grouped, invoke, update_golden
from .scored import scored_summary


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if update_golden():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        f"{name} changed (TOOLAUDIT_UPDATE_GOLDEN=1 rewrites it)"
    )


def test_markdown_golden_files(in_repo, tmp_path, monkeypatch):
    check_golden(
        "sample_grouped.md",
        invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "-g", "model", "-f", "markdown").stdout,
    )
    invoke(
        "audit",
        SAMPLE,
        "-s",
        SAMPLE_SCHEMAS,
        "-g",
        "model",
        "--summary",
        str(tmp_path / "grouped.json"),
    )
    monkeypatch.chdir(tmp_path)  # so that the labels are the short names people type
    compared = invoke(
        "compare",
        "grouped.json",
        "grouped.json",
        "--base-group",
        "claude-sonnet-4-5",
        "--new-group",
        "gpt-4o-mini",
        "-f",
        "markdown",
    )
    check_golden("sample_compare.md", compared.stdout)


def test_markdown_escapes_names_from_logs():
    from toolaudit.output.markdown import cell

    assert cell("a|b") == "a\\|b"
    assert cell("<script>") == "\\<script\\>"
    assert cell("x\ny") == "x\\\\ny"  # the newline is escaped (printable), then its backslash
    assert "\n" not in cell("x\ny")


def test_markdown_of_two_score_files():
    from toolaudit.output.markdown import render_comparison_markdown
    from toolaudit.results.score_compare import compare_scores

    base = {f"q{i}": i < 40 for i in range(50)}
    new = {**base, "q0": False, "q45": True}
    comparison = compare_scores(
        base, new, base_label="main|x", new_label="pr", tolerance=0.05, fail_on_regression=True
    )
    assert render_comparison_markdown(comparison) == (
        "## toolaudit compare: main\\|x → pr\n"
        "\n"
        "Accuracy **80.0% → 80.0%** (0.0 pp; 95% CI -7.8 pp to +7.8 pp), exact McNemar, p = 1. "
        "ok: the accuracy changed by 0.0 pp (tolerance 5.0 pp; not significant at alpha 0.05, "
        "p = 1)\n"
        "\n"
        "| 50 shared ids | new right | new wrong |\n"
        "| --- | ---: | ---: |\n"
        "| base right | 39 | 1 |\n"
        "| base wrong | 1 | 9 |\n"
        "\n"
        "Note: 50 shared ids are too few to detect a drop of 5.0 pp at alpha 0.05 "
        "(the smallest it could detect is 12.0 pp).\n"
    )


def test_the_ground_truth_section_shows_its_figures():
    from toolaudit.output.markdown import render_markdown

    text = render_markdown(scored_summary())
    section = text[text.index("## Ground truth") :]
    assert section == (
        "## Ground truth\n"
        "\n"
        "**3/6 correct (50.0%, 95% CI 18.8-81.2%), macro 41.7%.** Outcomes: 2 correct, "
        "2 incorrect, 1 missed, 1 correct_abstention; "
        "2 records unscored (2 with no expected entry).\n"
        "\n"
        "| category | entries | correct | accuracy |\n"
        "| --- | ---: | ---: | ---: |\n"
        "| multiple | 1 | 0 | 0.0% |\n"
        "| parallel | 1 | 0 | 0.0% |\n"
        "| simple | 3 | 2 | 66.7% |\n"
        "| irrelevance | 1 | 1 | 100.0% |\n"
        "\n"
        "| tool (lowest accuracy) | entries | accuracy | precision | recall |\n"
        "| --- | ---: | ---: | ---: | ---: |\n"
        "| ping | 1 | 0.0% | - | 0.0% |\n"
        "| get\\_weather | 5 | 40.0% | 100.0% | 80.0% |\n"
        "\n"
        "| tool | parameter (most failures) | failures | accuracy | of incorrect |\n"
        "| --- | --- | ---: | ---: | ---: |\n"
        "| get\\_weather | city | 1 | 60.0% | 50.0% |\n"
        "\n"
        "Incorrect entries (sample):\n"
        "\n"
        "| id | model | mismatches |\n"
        "| --- | --- | --- |\n"
        "| simple\\_2 | m1 | value:city |\n"
        "| parallel\\_1 | m1 | missing\\_call:ping |\n"
        "| multiple\\_1 | m1 | missing\\_call:get\\_weather |\n"
    )


def test_the_ground_truth_section_is_all_that_an_ungrouped_summary_gains(in_repo):
    import toolaudit
    from toolaudit.output.markdown import render_markdown

    plain = toolaudit.audit([SAMPLE], SAMPLE_SCHEMAS).run()
    scored = render_markdown(scored_summary(plain))
    assert scored == render_markdown(plain) + "\n" + scored[scored.index("## Ground truth\n") :]


def test_groups_gain_their_accuracy_with_ground_truth(in_repo):
    from toolaudit.output.markdown import render_markdown

    text = render_markdown(scored_summary(grouped("model")))
    rows = text[text.index("### By model") :].splitlines()
    assert rows[2].endswith("| malformed | scored | accuracy |")
    assert rows[4].startswith("| claude-sonnet-4-5 |") and rows[4].endswith("| 6 | 50.0% |")
    assert rows[5].startswith("| gpt-4o-mini |") and rows[5].endswith("| 5 | 40.0% |")


def test_ground_truth_names_from_logs_are_escaped():
    from toolaudit.output.markdown import render_markdown
    from toolaudit.results.ground_truth import GroundTruth
    from toolaudit.results.summary import Summary
    from toolaudit.truth.match import Score

    section = GroundTruth()
    score = Score("a|b", "<c>", "incorrect", False, ("value:x|y",), ())
    section.add(score, ["t|u"], ["t|u"], row=score.to_dict())
    text = render_markdown(Summary("0", ground_truth=section))
    assert "| \\<c\\> | 1 | 0 | 0.0% |" in text
    assert "| t\\|u | 1 | 0.0% | 100.0% | 100.0% |" in text
    assert "| a\\|b | value:x\\|y |" in text
