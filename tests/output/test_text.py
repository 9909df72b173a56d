"""Numbers in words: changes too small for one decimal are never shown as none."""

from __future__ import annotations


def test_small_changes_are_not_shown_as_none():
    from toolaudit.output.text import change, points

    assert change(0.0) == "0.0 pp"
    assert change(0.0001) == "+<0.1 pp" and change(-0.0001) == "-<0.1 pp"
    assert (
        change(0.157) == "+15.7 pp" and points(0.157) == "15.7 pp" and points(-0.0001) == "<0.1 pp"
    )
