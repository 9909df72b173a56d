"""The README shows real output: the demo's table and the commands' --help, kept in step.

TOOLAUDIT_UPDATE_GOLDEN=1 rewrites the blocks from the current code.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from toolaudit.cli import app

from .conftest import REPO, update_golden

README = REPO / "README.md"


def block(name: str, text: str) -> str:
    return f"<!-- {name}:start -->\n```text\n{text}```\n<!-- {name}:end -->"


def check_block(name: str, text: str) -> None:
    readme = README.read_text(encoding="utf-8")
    pattern = re.compile(rf"<!-- {re.escape(name)}:start -->.*?<!-- {re.escape(name)}:end -->", re.S)
    assert pattern.search(readme), f"README.md has no {name} block"
    expected = block(name, text)
    if update_golden():
        README.write_text(pattern.sub(lambda _: expected, readme), encoding="utf-8")
        return
    assert pattern.search(readme).group(0) == expected, f"README.md's {name} block is stale (TOOLAUDIT_UPDATE_GOLDEN=1)"


def test_the_demo_output_in_the_readme_is_what_make_demo_prints(in_repo):
    result = CliRunner().invoke(app, ["audit", "sample_logs/calls.jsonl", "--schemas", "sample_logs/schemas.json"])
    check_block("demo", result.stdout)


@pytest.mark.parametrize("command", ["audit"])
def test_the_help_in_the_readme_is_the_commands_help(command):
    result = CliRunner().invoke(app, [command, "--help"], prog_name="toolaudit")
    check_block(f"help:{command}", result.stdout)


def test_the_evaluation_walkthrough_shows_real_output(in_repo, tmp_path, monkeypatch):
    runner = CliRunner()
    grouped = runner.invoke(app, ["audit", "sample_logs/calls.jsonl", "-s", "sample_logs/schemas.json", "--group-by", "model"]).stdout
    check_block("groups", grouped[grouped.index("by model"):])
    summary = tmp_path / "out" / "by-model.json"
    summary.parent.mkdir()
    runner.invoke(app, ["audit", "sample_logs/calls.jsonl", "-s", "sample_logs/schemas.json", "-g", "model", "--summary", str(summary)])
    monkeypatch.chdir(tmp_path)
    compared = runner.invoke(
        app, ["compare", "out/by-model.json", "out/by-model.json", "--base-group", "claude-sonnet-4-5", "--new-group", "gpt-4o-mini"]
    )
    assert compared.exit_code == 1
    check_block("compare", "$ toolaudit compare out/by-model.json out/by-model.json --base-group claude-sonnet-4-5 --new-group gpt-4o-mini\n" + compared.stdout)
