"""The --format registry: the CLI offers its choices, and each one renders both a summary
and a comparison; listing the choices imports no renderer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import toolaudit
from toolaudit.cli import app
from toolaudit.cli.app import OutputFormat
from toolaudit.output import FORMATS, RENDERERS, render_comparison, render_summary
from toolaudit.output.registry import load
from toolaudit.results.compare import Comparison, compare
from toolaudit.results.summary import Summary

SAMPLE = "sample_logs/calls.jsonl"
SAMPLE_SCHEMAS = "sample_logs/schemas.json"


@pytest.fixture
def summary(in_repo: Path) -> Summary:
    return toolaudit.audit([SAMPLE], SAMPLE_SCHEMAS, group_by=("model",)).run()


@pytest.fixture
def comparison(summary: Summary) -> Comparison:
    return compare(summary, summary, base_group="gpt-4o-mini", new_group="claude-sonnet-4-5")


def test_the_cli_offers_the_registered_formats_and_no_other() -> None:
    assert [choice.value for choice in OutputFormat] == list(FORMATS) == list(RENDERERS)
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    for command in ("audit", "compare"):
        (option,) = [param for param in commands[command].params if "--format" in param.opts]
        # The help's list of choices follows the registry; for these three, as it always read.
        assert option.help == "How to print the result on stdout: table, json or markdown."


def test_every_renderer_named_in_the_registry_exists() -> None:
    for renderers in RENDERERS.values():
        for target in renderers:
            assert callable(load(target)), target


@pytest.mark.parametrize("name", FORMATS)
def test_every_format_renders_a_summary(name: str, summary: Summary) -> None:
    text = render_summary(name, summary)
    assert text.endswith("\n")
    for figure in ("361", "claude-sonnet-4-5", "gpt-4o-mini"):
        assert figure in text, (name, figure)


@pytest.mark.parametrize("name", FORMATS)
def test_every_format_renders_a_comparison(name: str, comparison: Comparison) -> None:
    text = render_comparison(name, comparison)
    assert text.endswith("\n")
    assert "search" in text and "unexpected" in text, name


def test_the_formats_render_differently(summary: Summary, comparison: Comparison) -> None:
    assert len({render_summary(name, summary) for name in FORMATS}) == len(FORMATS)
    assert len({render_comparison(name, comparison) for name in FORMATS}) == len(FORMATS)


@pytest.mark.parametrize("name", FORMATS)
def test_each_choice_on_the_command_line_prints_its_renderer_output(
    name: str, summary: Summary, tmp_path: Path
) -> None:
    runner = CliRunner()
    summary_file = tmp_path / "summary.json"
    args = ["audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "-g", "model", "--summary", str(summary_file)]
    audited = runner.invoke(app, [*args, "-f", name])
    assert audited.exit_code == 1  # the sample holds invalid calls on purpose
    assert audited.stdout == render_summary(name, summary)

    path = str(summary_file)
    compared = runner.invoke(app, ["compare", path, path, "-f", name])
    assert compared.exit_code == 0
    read_back = Summary.from_dict(json.loads(summary_file.read_text(encoding="utf-8")))
    expected = compare(read_back, read_back, base_label=path, new_label=path)
    assert compared.stdout == render_comparison(name, expected)


def test_a_format_that_is_not_registered_is_refused(in_repo: Path) -> None:
    result = CliRunner().invoke(app, ["audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "-f", "html"])
    assert result.exit_code == 2
    assert "'html' is not one of 'table', 'json', 'markdown'" in result.output


def test_listing_the_formats_imports_no_renderer() -> None:
    # The CLI reads FORMATS at startup: `toolaudit --version` must not pay for orjson or the
    # renderers. A fresh interpreter, since this one has imported them all already.
    code = (
        "import sys, toolaudit; before = set(sys.modules); import toolaudit.output; "
        "new = set(sys.modules) - before; "
        "print(sorted(m for m in new if m.startswith('toolaudit') or m == 'orjson'))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "['toolaudit.output', 'toolaudit.output.registry']"
