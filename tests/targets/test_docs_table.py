"""docs/targets.md holds the rules table the rules make, and lists every target."""

from __future__ import annotations

from toolaudit.targets import TARGETS
from toolaudit.targets.table import rules_table

from ..conftest import REPO

PAGE = REPO / "docs" / "targets.md"


def test_the_page_holds_the_table_the_rules_make() -> None:
    assert rules_table() in PAGE.read_text(encoding="utf-8"), (
        "regenerate the table in docs/targets.md from toolaudit.targets.table.rules_table()"
    )


def test_the_page_lists_every_target() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert all(f"| `{name}` |" in text for name in TARGETS)
