"""Scoring one expected entry: the calls a record made against the calls it should hold.

One outcome per entry (:data:`OUTCOMES`) and, for an incorrect one, every mismatch with
a stable code: ``wrong_tool``, ``value:PATH``, ``missing:PATH``, ``unexpected:PATH``,
``missing_call:TOOL``, ``extra_call:TOOL``. PATH is the argument's name, dotted into
nested objects (``filters.city``), with list items as ``[i]`` (``stops[2].city``).
Parallel calls are paired with the expected ones by an optimal assignment (see
:func:`pair_calls`). See docs/evaluation.md, "Expected calls".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from toolaudit.truth.expected import Expected


class _Unreadable:
    """The type of :data:`UNREADABLE`."""

    def __repr__(self) -> str:
        return "UNREADABLE"


#: A made call's arguments when they could not be decoded into an object.
UNREADABLE: Final = _Unreadable()

#: Every outcome of an entry, in the order summaries list them.
OUTCOMES = (
    "correct",
    "incorrect",
    "missed",
    "correct_abstention",
    "unwanted_call",
    "unparseable",
    "no_record",
)


@dataclass(frozen=True)
class MadeCall:
    """A call the model made: its position among the record's calls, its name as given,
    and its decoded arguments (an object), or :data:`UNREADABLE`."""

    index: int
    name: object
    arguments: object


@dataclass(frozen=True)
class Score:
    """One expected entry, scored.

    ``mismatches`` lists every difference found (empty when correct); ``pairing`` holds
    ``(made call index, expected call index)`` pairs, by expected index. ``bfcl_error_type``
    is BFCL's ``error_type`` under ``--match bfcl`` (None otherwise, and when correct).
    """

    id: str
    category: str | None
    outcome: str
    correct: bool
    mismatches: tuple[str, ...]
    pairing: tuple[tuple[int, int], ...]
    bfcl_error_type: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The score as a ``--scores`` line holds it (without the model, the audit's to add)."""
        row: dict[str, Any] = {
            "id": self.id,
            "category": self.category,
            "outcome": self.outcome,
            "correct": self.correct,
            "mismatches": list(self.mismatches),
            "pairing": [list(pair) for pair in self.pairing],
        }
        if self.bfcl_error_type is not None:
            row["bfcl_error_type"] = self.bfcl_error_type
        return row


def no_record(expected: Expected) -> Score:
    """The score of an expected entry that no record has."""
    return Score(expected.id, expected.category, "no_record", False, (), ())


def score(
    expected: Expected,
    made: Sequence[MadeCall] | None,
    *,
    defaults: Mapping[str, Mapping[str, object]] | None = None,
) -> Score:
    """Score the calls a record made (None: its output could not be read as calls)."""
    raise NotImplementedError
