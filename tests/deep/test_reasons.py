"""A reason's words that depend on the schema alone are kept, and kept words are the
words: by the limit's own type, for keys with no hash, past the number kept."""

from __future__ import annotations

import pytest

from toolaudit.deep import reasons
from toolaudit.deep.reasons import sentence
from toolaudit.schemas.loading import schema_set

REASONS = [
    ("constraint", "maxLength", 1, "ab"),
    ("constraint", "maxLength", 1.0, "ab"),
    ("constraint", "maximum", 10, 11),
    ("constraint", "maximum", 10.0, 11),
    ("constraint", "maximum", True, 11),
    ("constraint", "pattern", "^a$", "b"),
    ("type", frozenset({"string"}), 1),
    ("type", frozenset({"integer", "null"}), "1"),
]


def test_limits_equal_as_keys_are_each_worded_as_they_came() -> None:
    # 1 == 1.0 == True: kept by the value alone, the first worded would stand for all.
    assert sentence(("constraint", "maxLength", 1, "ab")) == 'at most 1 character, got 2: "ab"'
    assert sentence(("constraint", "maxLength", 1.0, "ab")) == 'at most 1.0 character, got 2: "ab"'
    assert sentence(("constraint", "maximum", 10.0, 11)) == "maximum 10.0, got 11"
    assert sentence(("constraint", "maximum", 10, 11)) == "maximum 10, got 11"
    # -0.0 == 0.0, of one type: each still shown as it came, in either order.
    assert sentence(("constraint", "maximum", 0.0, 1)) == "maximum 0.0, got 1"
    assert sentence(("constraint", "maximum", -0.0, 1)) == "maximum -0.0, got 1"
    assert sentence(("constraint", "minimum", -0.0, -1)) == "minimum -0.0, got -1"
    assert sentence(("constraint", "minimum", 0.0, -1)) == "minimum 0.0, got -1"


def test_kept_words_are_the_words_worded_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = [sentence(reason) for reason in REASONS * 2]
    monkeypatch.setattr(reasons, "MOST_KEPT", 0)
    for name, word in (
        ("_TYPE_HEADS", reasons._expected_type),
        ("_RULES", reasons._rule),
        ("_PATTERN_HEADS", reasons._pattern_head),
    ):
        monkeypatch.setattr(reasons, name, reasons._SchemaWords(word))
    assert [sentence(reason) for reason in REASONS * 2] == kept
    assert not reasons._RULES  # nothing kept past MOST_KEPT


def test_parts_with_no_hash_are_worded_as_their_hashable_twins_are() -> None:
    assert sentence(("type", {"string"}, 1)) == sentence(("type", frozenset({"string"}), 1))
    assert sentence(("unexpected", ["b", "a"])) == sentence(("unexpected", ("b", "a")))
    assert sentence(("unexpected", [])) == "not declared: this object takes no properties"
    assert sentence(("constraint", "maximum", [1], 2)) == "maximum [1], got 2"


def test_an_objects_undeclared_property_lists_its_names_each_time() -> None:
    schemas = schema_set(
        {
            "t": {
                "parameters": {
                    "type": "object",
                    "properties": {
                        "a": {
                            "type": "object",
                            "properties": {"x": {}},
                            "additionalProperties": False,
                        },
                        "b": {
                            "type": "object",
                            "properties": {"y": {}},
                            "additionalProperties": False,
                        },
                    },
                }
            }
        },
        deep=True,
    )
    assert schemas.validator is not None
    tool = schemas.validator.tools["t"]
    for _ in range(2):
        problems = tool.check({"a": {"z": 1}, "b": {"z": 1}})
        assert tool.explain_problems(({"a": {"z": 1}, "b": {"z": 1}}, problems)) == {
            "unexpected:a.z": "not a declared property (declared: x)",
            "unexpected:b.z": "not a declared property (declared: y)",
        }
