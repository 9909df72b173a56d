"""docs/targets.md holds the rules table the rules make, and lists every target."""

from __future__ import annotations

import json

from toolaudit.targets import TARGETS
from toolaudit.targets.table import rules_table

from ..conftest import REPO, invoke

PAGE = REPO / "docs" / "targets.md"


def test_the_page_holds_the_table_the_rules_make() -> None:
    assert rules_table() in PAGE.read_text(encoding="utf-8"), (
        "regenerate the table in docs/targets.md from toolaudit.targets.table.rules_table()"
    )


def test_the_page_lists_every_target() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert all(f"| `{name}` |" in text for name in TARGETS)


def test_the_pages_examples_print_what_the_page_shows(tmp_path, monkeypatch) -> None:
    text = PAGE.read_text(encoding="utf-8")
    tools = text.split("```json\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools.json").write_text(tools)
    commands = ("--target gemini --target openai-strict", "--target gemini --convert for-gemini")
    for command in commands:
        result = invoke("schemas", "tools.json", *command.split())
        assert f"$ toolaudit schemas tools.json {command}\n{result.stdout}```" in text, command
    assert f"```\n{result.stderr}```" in text
    written = json.loads((tmp_path / "for-gemini" / "tools.json").read_text())
    days = written[0]["function"]["parameters"]["properties"]["days"]
    assert f'`"days": {json.dumps(days)}`' in text
