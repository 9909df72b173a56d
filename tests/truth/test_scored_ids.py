"""The typed path reads a record's id alone (:class:`toolaudit.pipeline.scored_lines.LineIds`),
a string id without parsing it for long integers: on hostile ids it reads what the
general path reads in the parsed record (:meth:`Expectations.id_of`). (A lone surrogate
is no case: msgspec refuses such a line, which the typed path then never reads.)"""

from __future__ import annotations

import pytest

from toolaudit.pipeline.scored_lines import LineIds
from toolaudit.schemas.files import loads_json
from toolaudit.truth.entries import ExpectedSet
from toolaudit.truth.expectations import Expectations

IDS = [
    b'"plain"',
    b'"\\u00e9t\\u00e9"',  # escapes
    b'"\\ud83d\\ude00"',  # a surrogate pair
    b'"a\\"b\\\\c"',
    b'"12345678901234567890123"',  # digits in a string: not a number
    b'"1e-400"',
    b"7",
    b"-0",
    b"12345678901234567890123",  # past 64 bits: read exactly
    b"1.0",
    b"true",
    b"null",
    b'{"x": 1}',
    b'["a"]',
]


@pytest.mark.parametrize("id", IDS)
@pytest.mark.parametrize("key", ["id", "metadata.eval_id"])
def test_an_id_read_alone_is_the_records(id: bytes, key: str) -> None:
    if key == "id":
        lines = [
            b'{"id": ' + id + b', "model": "m"}',
            b'{"id": "first", "id": ' + id + b"}",  # given twice: the last counts
            b'{"model": "m"}',  # none
        ]
    else:
        lines = [
            b'{"metadata": {"eval_id": ' + id + b'}, "id": "x"}',
            b'{"metadata": {"eval_id": "first", "eval_id": ' + id + b"}}",
            b'{"metadata": ' + id + b"}",  # not an object: no id
        ]
    ids = LineIds(key)
    expectations = Expectations(ExpectedSet(), key=key)
    for line in lines:
        assert ids.id_of(line) == expectations.id_of(loads_json(line), None), line
