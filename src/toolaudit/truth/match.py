"""Scoring one expected entry: the calls a record made against the calls it should hold.

One outcome per entry (:data:`OUTCOMES`) and, for an incorrect one, every mismatch with
a stable code: ``wrong_tool``, ``value:PATH``, ``missing:PATH``, ``unexpected:PATH``,
``missing_call:TOOL``, ``extra_call:TOOL``, and ``unreadable_arguments`` for a call whose
arguments could not be decoded. PATH is the argument's name, dotted into nested objects
(``filters.city``), with list items as ``[i]`` (``stops[2].city``): see
:mod:`toolaudit.truth.compare`. Parallel calls are paired with the expected ones by an
optimal assignment (:func:`toolaudit.truth.pairing.best_pairing`). See
docs/evaluation.md, "Expected calls".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from toolaudit.truth.compare import mismatches_of_call
from toolaudit.truth.entries import Accept, Expected, ExpectedCall
from toolaudit.truth.pairing import best_pairing
from toolaudit.values import shown


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


# The values made for every expected line and every record scored are slotted
# dataclasses, not frozen ones: a frozen one costs about 1 us more to make (a
# object.__setattr__ per field). Nothing changes them once made.
@dataclass(slots=True)
class MadeCall:
    """A call the model made: its position among the record's calls, its name as given,
    and its decoded arguments (an object), or :data:`UNREADABLE`."""

    index: int
    name: object
    arguments: object


@dataclass(slots=True)
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
    #: ``(tool, parameter, matched)`` for each top-level parameter of each expected call,
    #: in order: what per-parameter accuracy counts (not on the ``--scores`` line). Empty
    #: for ``no_record`` and when no particular call was expected.
    parameters: tuple[tuple[str, str, bool], ...] = ()

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

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> Score:
        """A score back from a ``--scores`` line (other keys, such as ``model``, ignored).

        Raises KeyError or ValueError for a line that is not one."""
        outcome = row["outcome"]
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}")
        return cls(
            id=str(row["id"]),
            category=row.get("category"),
            outcome=outcome,
            correct=bool(row["correct"]),
            mismatches=tuple(row.get("mismatches", ())),
            pairing=tuple((int(made), int(expected)) for made, expected in row.get("pairing", ())),
            bfcl_error_type=row.get("bfcl_error_type"),
        )


def no_record(expected: Expected) -> Score:
    """The score of an expected entry that no record has."""
    return Score(expected.id, expected.category, "no_record", False, (), ())


def score(
    expected: Expected,
    made: Sequence[MadeCall] | None,
    *,
    defaults: Mapping[str, Mapping[str, object]] | None = None,
) -> Score:
    """Score the calls a record made against its expected entry.

    ``made`` is None when the record's output could not be read as calls (then
    ``unparseable``, never an abstention). ``defaults`` (tool -> parameter -> default,
    from the schemas) lets a parameter left out count as its default.
    """
    id, category = expected.id, expected.category
    if made is None:
        return Score(id, category, "unparseable", False, (), (), None, _parameters(expected))
    if expected.calls is None:  # "any": at least one call, whichever
        outcome = "correct" if made else "missed"
        return Score(id, category, outcome, bool(made), (), ())
    if not expected.calls:
        if not made:
            return Score(id, category, "correct_abstention", True, (), ())
        extra = tuple(f"extra_call:{_tool(call.name)}" for call in made)
        return Score(id, category, "unwanted_call", False, extra, ())
    if not made:
        missing = tuple(f"missing_call:{call.name}" for call in expected.calls)
        return Score(id, category, "missed", False, missing, (), None, _parameters(expected))
    return _scored(expected, expected.calls, made, defaults or {})


def _scored(
    expected: Expected,
    calls: Sequence[ExpectedCall],
    made: Sequence[MadeCall],
    defaults: Mapping[str, Mapping[str, object]],
) -> Score:
    """Calls expected and calls made: pair them, and list every difference."""
    if len(calls) == 1 and len(made) == 1:  # most entries: one call, often right
        call, one = calls[0], made[0]
        listed = (
            []
            if QUICK_CORRECT and surely_correct(call, one)
            else mismatches_of_call(call.name, call.arguments, one.name, one.arguments, defaults)
        )
        if not listed:
            matched = tuple((call.name, name, True) for name in call.parameters)
            return Score(
                expected.id,
                expected.category,
                "correct",
                True,
                (),
                ((one.index, 0),),
                None,
                matched,
            )
        found = [[listed]]  # (compared once: the pairing below reads it)
    else:
        found = [
            [
                mismatches_of_call(call.name, call.arguments, one.name, one.arguments, defaults)
                for call in calls
            ]
            for one in made
        ]
    if expected.order == "strict":
        pairs = [(i, i) for i in range(min(len(made), len(calls)))]
    else:
        pairs = best_pairing([[_cost(listed) for listed in row] for row in found])
    made_of = {j: i for i, j in pairs}
    mismatches: list[str] = []
    parameters: list[tuple[str, str, bool]] = []
    for j, call in enumerate(calls):
        i = made_of.get(j)
        if i is None:
            mismatches.append(f"missing_call:{call.name}")
            parameters.extend((call.name, name, False) for name in call.arguments)
            continue
        listed = found[i][j]
        mismatches.extend(listed)
        compared = not _WHOLE_CALL.intersection(listed)
        parameters.extend(
            (call.name, name, compared and not _touches(listed, name)) for name in call.arguments
        )
    paired = set(made_of.values())
    mismatches.extend(
        f"extra_call:{_tool(one.name)}" for i, one in enumerate(made) if i not in paired
    )
    pairing = tuple(sorted(((made[i].index, j) for i, j in pairs), key=lambda pair: pair[1]))
    correct = not mismatches
    outcome = "correct" if correct else "incorrect"
    return Score(
        expected.id,
        expected.category,
        outcome,
        correct,
        tuple(mismatches),
        pairing,
        None,
        tuple(parameters),
    )


#: Whether a call that is surely right skips the comparison that lists differences (a
#: test turns it off, to compare).
QUICK_CORRECT = True


def surely_correct(call: ExpectedCall, one: MadeCall) -> bool:
    """Whether a made call is surely what ``call`` expects, told in C: the same name and
    arguments whose JSON text, keys sorted, is that of the expected literal values
    (where every argument expects one value, compared ``exact``). Equal texts are equal
    values under ``exact`` (``true`` and ``1`` are written apart); False says nothing
    (``1`` and ``1.0`` are written apart too, a default may stand in for a parameter
    left out): the comparison then decides."""
    arguments = one.arguments
    if one.name != call.name or type(arguments) is not dict:
        return False
    # Most entries: their values as the file gives them, kept as they are.
    literal = call.literal if call.literal is not None else _literal_arguments(call.arguments)
    if literal is None or len(arguments) != len(literal):
        return False
    dumps, sort_keys = orjson.dumps, orjson.OPT_SORT_KEYS  # (inline: once a record scored)
    try:
        return dumps(arguments, option=sort_keys) == dumps(literal, option=sort_keys)
    except TypeError:  # an integer past 64 bits, a number below a double's range
        return False


def _literal_arguments(accepts: Mapping[str, Accept]) -> dict[str, object] | None:
    """Each argument's one literal value, if each expects one (see :func:`_literal`)."""
    literal = {}
    for name, accept in accepts.items():
        value = _literal(accept)
        if value is _NOT_LITERAL:
            return None
        literal[name] = value
    return literal


_NOT_LITERAL: Final = object()


def _literal(accept: Accept) -> object:
    """The one value an argument expects, written as it is: a scalar or a list (whose
    items are compared as they are), compared ``exact``; else :data:`_NOT_LITERAL`."""
    values = accept.values
    if accept.compare != "exact" or len(values) != 1 or accept.optional:
        return _NOT_LITERAL
    value = values[0]
    return value if type(value) in _LITERALS else _NOT_LITERAL


#: The kinds of a literal expected value (an object may hold accept objects).
_LITERALS = frozenset({str, int, float, bool, type(None), list})


#: The mismatches of a pair whose arguments were not compared at all.
_WHOLE_CALL = frozenset({"wrong_tool", "unreadable_arguments"})


def _cost(mismatches: Sequence[str]) -> tuple[int, int]:
    """What a pair costs: first a wrong tool, then the number of mismatches."""
    return ("wrong_tool" in mismatches, len(mismatches))


def _touches(mismatches: Sequence[str], parameter: str) -> bool:
    """Whether a mismatch is about this parameter (or something inside it)."""
    for mismatch in mismatches:
        path = mismatch.partition(":")[2]
        if path == parameter or path.startswith((parameter + ".", parameter + "[")):
            return True
    return False


def _parameters(expected: Expected) -> tuple[tuple[str, str, bool], ...]:
    """Every expected parameter, none matched (no call was made, or none could be read)."""
    return tuple(
        (call.name, name, False) for call in expected.calls or () for name in call.parameters
    )


def _tool(name: object) -> str:
    """A made call's name as a mismatch code names it (a name that is no string, as JSON)."""
    return name if isinstance(name, str) else shown(name)
