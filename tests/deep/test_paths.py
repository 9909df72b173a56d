"""How deep errors' paths are counted: array indices collapsed, quoted names kept whole."""

from __future__ import annotations

import pytest

from toolaudit.deep.paths import collapsed


@pytest.mark.parametrize(
    ("path", "counted"),
    [
        ("city", "city"),
        ("tags[0]", "tags[]"),
        ("passengers[12].loyalty.number", "passengers[].loyalty.number"),
        ("grid[0][7]", "grid[][]"),
        ("a[x]", "a[x]"),  # not an index
        ("a[1x]", "a[1x]"),
        ('["max-results"][3]', '["max-results"][]'),
        ('["a[0]"].b[2]', '["a[0]"].b[]'),  # an index inside a quoted name is a name
        ('o["k"][0]["j"]', 'o["k"][]["j"]'),
        ('["unclosed', '["unclosed'),  # not a path deep mode wrote: as it is
    ],
)
def test_indices_are_collapsed_outside_quoted_names(path, counted):
    assert collapsed(path) == counted
