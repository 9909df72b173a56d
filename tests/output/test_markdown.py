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
