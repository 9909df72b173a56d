"""Comparing two score files (``toolaudit audit --scores``): is NEW's accuracy lower than
BASE's, and is the drop more than noise?

The entries both files score (their shared ids) are paired: each id is a question both
sides answered, so the test is the exact McNemar test on the ids one side got right and
the other wrong, with Newcombe's interval for the paired difference (see
:mod:`toolaudit.results.significance`). Files with no id in common are compared as two
independent samples, with the two-proportion z-test, and said to be.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from toolaudit.errors import SummaryError
from toolaudit.results.compare import DEFAULT_ALPHA, Comparison, check_levels
from toolaudit.results.significance import (
    PairedCounts,
    Test,
    paired_test,
    smallest_detectable_drop,
    two_proportion_test,
)
from toolaudit.results.summary import Summary
from toolaudit.results.summary_file import read_summary_file

__all__ = [
    "AccuracyComparison",
    "AnyComparison",
    "compare_scores",
    "is_score_file",
    "load_compared",
    "read_scores",
]


@dataclass(frozen=True)
class AccuracyComparison:
    """BASE's scores against NEW's: accuracy on the shared ids (paired), or on all of each
    side's entries when they share none (unpaired).

    NEW regressed when its accuracy is lower by more than ``tolerance``; with
    ``fail_on_regression`` only when, in addition, the test finds the drop significant
    (p < ``alpha``).
    """

    base: Mapping[str, bool]
    new: Mapping[str, bool]
    base_label: str
    new_label: str
    tolerance: float = 0.0
    alpha: float = DEFAULT_ALPHA
    fail_on_regression: bool = False
    base_group: str | None = None
    new_group: str | None = None
    paired: PairedCounts | None = field(init=False)
    test: Test = field(init=False)

    def __post_init__(self) -> None:
        shared = self.base.keys() & self.new.keys()
        if shared:
            verdicts = Counter((self.base[id], self.new[id]) for id in shared)
            paired = PairedCounts(
                both_right=verdicts[True, True],
                only_base_right=verdicts[True, False],
                only_new_right=verdicts[False, True],
                both_wrong=verdicts[False, False],
            )
            object.__setattr__(self, "paired", paired)
            object.__setattr__(self, "test", paired_test(paired))
        else:
            object.__setattr__(self, "paired", None)
            object.__setattr__(
                self,
                "test",
                two_proportion_test(
                    self.base_correct, self.base_total, self.new_correct, self.new_total
                ),
            )

    @property
    def base_total(self) -> int:
        return self.paired.total if self.paired else len(self.base)

    @property
    def new_total(self) -> int:
        return self.paired.total if self.paired else len(self.new)

    @property
    def base_correct(self) -> int:
        return self.paired.base_correct if self.paired else sum(self.base.values())

    @property
    def new_correct(self) -> int:
        return self.paired.new_correct if self.paired else sum(self.new.values())

    @property
    def base_accuracy(self) -> float:
        return self.base_correct / self.base_total if self.base_total else 0.0

    @property
    def new_accuracy(self) -> float:
        return self.new_correct / self.new_total if self.new_total else 0.0

    @property
    def change(self) -> float:
        """New accuracy minus base accuracy: negative is worse."""
        if self.paired:  # one division: 10 ids lost of 100 is 0.1, as the tolerance says
            return (self.new_correct - self.base_correct) / self.paired.total
        return self.new_accuracy - self.base_accuracy

    @property
    def only_in_base(self) -> int:
        return len(self.base.keys() - self.new.keys())

    @property
    def only_in_new(self) -> int:
        return len(self.new.keys() - self.base.keys())

    @property
    def significant(self) -> bool:
        return self.test.p_value < self.alpha

    @property
    def regressed(self) -> bool:
        worse = -self.change > self.tolerance
        return worse and (self.significant or not self.fail_on_regression)

    @property
    def smallest_detectable_drop(self) -> float | None:
        """The smallest drop the paired test could flag at ``alpha`` (None: unpaired, or
        not even a drop on every shared id)."""
        if self.paired is None:
            return None
        return smallest_detectable_drop(self.paired.total, self.alpha)

    @property
    def too_few_ids(self) -> bool:
        """Whether the shared ids are too few for the test to flag a drop of ``tolerance``
        (with no tolerance: any drop at all), so that a pass says little."""
        if self.paired is None:
            return False
        smallest = self.smallest_detectable_drop
        return smallest is None or (self.tolerance > 0 and smallest > self.tolerance)

    @property
    def group(self) -> str | None:
        """The groups (models) compared, as people read them (None: whole files)."""
        if self.base_group is None and self.new_group is None:
            return None
        if self.base_group == self.new_group:
            return self.base_group
        return f"{self.base_group or 'all'} -> {self.new_group or 'all'}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "accuracy",
            "base": self.base_label,
            "new": self.new_label,
            "base_group": self.base_group,
            "new_group": self.new_group,
            "paired": self.paired is not None,
            "tolerance": self.tolerance,
            "alpha": self.alpha,
            "fail_on_regression": self.fail_on_regression,
            "regressed": self.regressed,
            "accuracy": {
                "base": {
                    "correct": self.base_correct,
                    "total": self.base_total,
                    "rate": self.base_accuracy,
                },
                "new": {
                    "correct": self.new_correct,
                    "total": self.new_total,
                    "rate": self.new_accuracy,
                },
                "change": self.change,
            },
            "pairs": self.paired.to_dict() if self.paired else None,
            "only_in_base": self.only_in_base,
            "only_in_new": self.only_in_new,
            **self.test.to_dict(),
            "significant": self.significant,
            "smallest_detectable_drop": self.smallest_detectable_drop,
            "too_few_ids": self.too_few_ids,
        }


#: What ``toolaudit compare`` compares: two summaries or two score files.
AnyComparison = Comparison | AccuracyComparison


def is_score_file(raw: bytes) -> bool:
    """Whether a file's text is a score file (JSON lines with ``id`` and ``correct``), told
    from a summary (one JSON object with ``toolaudit_version``) by its first line."""
    for line in raw.splitlines():
        if line.strip():
            try:
                first = orjson.loads(line)
            except orjson.JSONDecodeError:
                return False
            return isinstance(first, dict) and "id" in first and "correct" in first
    return False


def read_scores(raw: bytes, label: str, group: str | None = None) -> dict[str, bool]:
    """The verdict of each id of a score file (of one ``model`` only, with ``group``);
    :class:`SummaryError` names the line that is not a score, or an id scored twice."""
    verdicts: dict[str, bool] = {}
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            raise SummaryError(f"{label}: line {number}: not valid JSON ({error})") from None
        if not isinstance(row, dict) or type(row.get("correct")) is not bool or "id" not in row:
            raise SummaryError(f"{label}: line {number}: not a score (no id, or no correct)")
        if group is not None and str(row.get("model")) != group:
            continue
        id = str(row["id"])
        if id in verdicts:
            raise SummaryError(
                f"{label}: line {number}: id {id!r} is scored twice "
                "(scores of several models? choose one with --group)"
            )
        verdicts[id] = row["correct"]
    if group is not None and not verdicts:
        raise SummaryError(f"{label} has no scores of model {group!r}")
    return verdicts


def load_compared(
    path: str, *, storage_options: Mapping[str, Any] | None = None, group: str | None = None
) -> Summary | dict[str, bool]:
    """A file given to ``compare``: a summary, or a score file's verdicts by id (the
    file read once)."""
    raw = read_summary_file(path, storage_options)
    if is_score_file(raw):
        return read_scores(raw, path, group)
    return Summary.from_bytes(raw, path)


def compare_scores(
    base: Mapping[str, bool],
    new: Mapping[str, bool],
    *,
    base_label: str = "base",
    new_label: str = "new",
    tolerance: float = 0.0,
    alpha: float = DEFAULT_ALPHA,
    fail_on_regression: bool = False,
    base_group: str | None = None,
    new_group: str | None = None,
) -> AccuracyComparison:
    """Compare two score files' verdicts (id -> correct); OptionError for a tolerance
    outside 0..1 or an alpha outside (0, 1)."""
    check_levels(tolerance, alpha)
    return AccuracyComparison(
        base,
        new,
        base_label,
        new_label,
        tolerance,
        alpha,
        fail_on_regression,
        base_group,
        new_group,
    )
