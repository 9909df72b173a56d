"""--format markdown: golden files for a grouped audit and a comparison, and names from logs
escaped so that they cannot break the table or become markup."""

from __future__ import annotations

from ..conftest import GOLDEN, SAMPLE, SAMPLE_SCHEMAS, invoke, update_golden


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
