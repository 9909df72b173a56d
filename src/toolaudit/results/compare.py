"""Comparing two summaries: which model (or prompt version) calls tools better, and
did it regress?"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolaudit.errors import OptionError, SummaryError
from toolaudit.results.significance import Test, two_proportion_test
from toolaudit.results.summary import Summary

#: The significance level of ``--alpha`` unless told otherwise.
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True)
class RateChange:
    """One line of a comparison: a count over calls, in the base and in the new summary."""

    name: str
    base_count: int
    base_calls: int
    new_count: int
    new_calls: int

    @property
    def base_rate(self) -> float:
        return self.base_count / self.base_calls if self.base_calls else 0.0

    @property
    def new_rate(self) -> float:
        return self.new_count / self.new_calls if self.new_calls else 0.0

    @property
    def change(self) -> float:
        """New rate minus base rate: positive is worse."""
        return self.new_rate - self.base_rate

    @property
    def comparable(self) -> bool:
        """Both sides have calls: a tool called on one side only has no rate to compare."""
        return bool(self.base_calls and self.new_calls)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "base": {"count": self.base_count, "calls": self.base_calls, "rate": self.base_rate},
            "new": {"count": self.new_count, "calls": self.new_calls, "rate": self.new_rate},
            "change": self.change if self.comparable else None,
        }


@dataclass(frozen=True)
class Comparison:
    """BASE against NEW: the overall error rate, per tool and per error kind.

    Tools come worst first by their weight in the change (failures over all
    calls); error kinds worst first by their change per call.

    ``overall`` counts failed units (invalid calls and malformed records) over
    audited units, as ``Summary.error_rate`` does. NEW regressed when its error
    rate exceeds BASE's by more than ``tolerance`` (an absolute difference).
    """

    base: Summary
    new: Summary
    base_label: str
    new_label: str
    tolerance: float = 0.0
    base_group: str | None = None
    new_group: str | None = None
    alpha: float = DEFAULT_ALPHA
    fail_on_regression: bool = False
    overall: RateChange = field(init=False)
    by_tool: list[RateChange] = field(init=False)
    by_kind: list[RateChange] = field(init=False)

    def __post_init__(self) -> None:
        base, new = self.base, self.new
        object.__setattr__(
            self,
            "overall",
            RateChange(
                "error rate",
                base.invalid + base.malformed_records,
                base.calls + base.malformed_records,
                new.invalid + new.malformed_records,
                new.calls + new.malformed_records,
            ),
        )
        tools = []
        for name in sorted(set(base.by_tool) | set(new.by_tool)):
            mine, theirs = base.by_tool.get(name), new.by_tool.get(name)
            tools.append(
                RateChange(
                    name,
                    mine.invalid if mine else 0,
                    mine.calls if mine else 0,
                    theirs.invalid if theirs else 0,
                    theirs.calls if theirs else 0,
                )
            )
        # Tools in order of their weight in the change of the error rate: a tool
        # called once that failed once matters less than a busy one that got worse.
        base_total, new_total = max(base.calls, 1), max(new.calls, 1)
        tools.sort(
            key=lambda row: (-(row.new_count / new_total - row.base_count / base_total), row.name)
        )
        object.__setattr__(self, "by_tool", tools)
        base_kinds, new_kinds = base.by_kind, new.by_kind
        kinds = [
            RateChange(kind, base_kinds.get(kind, 0), base.calls, new_kinds.get(kind, 0), new.calls)
            for kind in sorted(set(base_kinds) | set(new_kinds))
        ]
        object.__setattr__(self, "by_kind", _worst_first(kinds))

    @property
    def overall_test(self) -> Test:
        """The two error rates as two independent proportions: the z-test's p-value and
        Newcombe's interval for new minus base."""
        rate = self.overall
        return two_proportion_test(rate.base_count, rate.base_calls, rate.new_count, rate.new_calls)

    @property
    def regressed(self) -> bool:
        worse = self.overall.change > self.tolerance
        return worse and (self.overall_test.p_value < self.alpha or not self.fail_on_regression)

    @property
    def group(self) -> str | None:
        """The group compared, as people read it: "a" or "a -> b" (None: whole summaries)."""
        if self.base_group is None and self.new_group is None:
            return None
        if self.base_group == self.new_group:
            return self.base_group
        return f"{self.base_group or 'all'} -> {self.new_group or 'all'}"

    @property
    def same_schemas(self) -> bool:
        return self.base.schemas_digest == self.new.schemas_digest

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": self.base_label,
            "new": self.new_label,
            "base_group": self.base_group,
            "new_group": self.new_group,
            "same_schemas": self.same_schemas,
            "tolerance": self.tolerance,
            "regressed": self.regressed,
            "alpha": self.alpha,
            "fail_on_regression": self.fail_on_regression,
            "overall": {**self.overall.to_dict(), **self.overall_test.to_dict()},
            "by_tool": [row.to_dict() for row in self.by_tool],
            "by_kind": [row.to_dict() for row in self.by_kind],
        }


def compare(
    base: Summary,
    new: Summary,
    *,
    base_label: str = "base",
    new_label: str = "new",
    tolerance: float = 0.0,
    base_group: str | None = None,
    new_group: str | None = None,
    alpha: float = DEFAULT_ALPHA,
    fail_on_regression: bool = False,
) -> Comparison:
    """Compare two summaries, or a --group-by group of each (two models of one audit, say).

    ``tolerance`` (0..1, absolute: 0.01 is one point) is how much higher NEW's
    error rate may be before it counts as a regression; OptionError otherwise. With
    ``fail_on_regression`` a rise counts only when the two-proportion z-test finds it
    significant (p < ``alpha``) as well.
    """
    check_levels(tolerance, alpha)
    if base.deep != new.deep:
        deep, plain = (base_label, new_label) if base.deep else (new_label, base_label)
        raise SummaryError(
            f"cannot compare {deep} (audited with --deep) with {plain} (audited without): "
            "deep mode finds errors plain mode cannot see; audit both the same way"
        )
    if base_group is not None:
        base = _group(base, base_group, base_label)
    if new_group is not None:
        new = _group(new, new_group, new_label)
    return Comparison(
        base,
        new,
        base_label,
        new_label,
        tolerance,
        base_group,
        new_group,
        alpha,
        fail_on_regression,
    )


def _group(summary: Summary, key: str, label: str) -> Summary:
    if not summary.group_by:
        raise SummaryError(f"{label} is not grouped (audit it with --group-by)")
    group = summary.groups.get(key)
    if group is None:
        known = ", ".join(sorted(summary.groups)) or "none"
        raise SummaryError(f"{label} has no group {key!r} (its groups: {known})")
    return group


def _worst_first(rows: list[RateChange]) -> list[RateChange]:
    return sorted(rows, key=lambda row: (-row.change, row.name))


def check_levels(tolerance: float, alpha: float) -> None:
    """OptionError unless ``tolerance`` is a rate (0..1) and ``alpha`` a level in (0, 1)."""
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)):
        raise OptionError(f"tolerance must be a rate from 0 to 1, not {tolerance!r}")
    if not 0.0 <= tolerance <= 1.0:
        raise OptionError(f"tolerance must be a rate from 0 to 1, not {tolerance!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 1.0:
        raise OptionError(f"alpha must be a level between 0 and 1, not {alpha!r}")
