"""The searches that tell a JSON line may hold a number orjson reads otherwise than the
exact parse (so that the readers parse it again exactly): never a miss, and no false alarm
for words that look like an exponent's start (``claude-sonnet``)."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from toolaudit.jsonutil import may_hold_tiny_numbers

#: Numbers below a double's range (each a tiny one), and numbers that are not.
TINY = ["1e-400", "-1.5E-0400", "2e-99999", "0.1e-324", "7E-1000"]
NOT_TINY = ["1e-99", "-2.5E-7", "3e400", "1e+400", "12", "1.0", "-0.0", "9E-12"]
WORDS = ["claude-sonnet-4-5", "one-time", "E-mail", "pre-400", "e-400", "x E-123", "re-e-"]


@given(
    st.lists(st.sampled_from(NOT_TINY), max_size=6),
    st.lists(st.sampled_from(WORDS), max_size=12),
    st.lists(st.sampled_from(TINY), max_size=2),
)
def test_a_tiny_number_is_always_found_and_words_raise_no_alarm(
    others: list[str], words: list[str], tiny: list[str]
) -> None:
    text = "[" + ",".join([*others, *tiny]) + "," + orjson.dumps(words).decode() + "]"
    assert may_hold_tiny_numbers(text.encode()) is bool(tiny)


def test_a_text_of_many_marks_is_searched_all_at_once() -> None:
    words = orjson.dumps(["one-" * 50, "claude-" * 50])
    assert not may_hold_tiny_numbers(words)
    assert may_hold_tiny_numbers(words[:-1] + b",1e-400]")
