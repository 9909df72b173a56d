from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLE_LOGS = REPO / "sample_logs"


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, so that paths in outputs are the ones users see."""
    monkeypatch.chdir(REPO)
    return REPO


@pytest.fixture(autouse=True)
def _pinned_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # Help and tables must not depend on the width of whoever runs the tests.
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("TERM", "dumb")


def update_golden() -> bool:
    """TOOLAUDIT_UPDATE_GOLDEN=1 rewrites golden files instead of comparing."""
    return os.environ.get("TOOLAUDIT_UPDATE_GOLDEN") == "1"
