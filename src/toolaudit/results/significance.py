"""Is a difference in accuracy (or in error rate) real, or noise? Standard tests, standard
library only.

- :func:`wilson_interval`: the Wilson score interval for one proportion
  (Wilson 1927; Newcombe 1998a, method 3).
- :func:`mcnemar_exact`: the exact McNemar test for paired outcomes: a two-sided
  binomial test of the discordant pairs against one half (McNemar 1947; the
  "exact conditional" form, Fagerland, Lydersen and Laake 2013).
- :func:`paired_difference_interval`: Newcombe's hybrid score interval for a
  difference of paired proportions (Newcombe 1998b, method 10).
- :func:`two_proportion_test`: the (pooled, uncorrected) two-proportion z-test for
  unpaired samples, equal to Pearson's chi-squared test of a 2x2 table, with
  Newcombe's hybrid score interval for the difference (Newcombe 1998a, method 10).
- :func:`smallest_detectable_drop`: the smallest drop the exact McNemar test can flag
  at all on a number of paired items.

References: E. B. Wilson, JASA 22 (1927) 209-212. Q. McNemar, Psychometrika 12 (1947)
153-157. R. G. Newcombe, "Interval estimation for the difference between independent
proportions: comparison of eleven methods", Stat. Med. 17 (1998) 873-890 (1998a), and
"Improved confidence intervals for the difference between binomial proportions based
on paired data", Stat. Med. 17 (1998) 2635-2650 (1998b). M. W. Fagerland, S. Lydersen,
P. Laake, "The McNemar test for binary matched-pairs data", BMC Med. Res. Methodol. 13
(2013) 91.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

#: The two-sided 95% normal quantile (1.959963984540054).
Z_95 = NormalDist().inv_cdf(0.975)

__all__ = [
    "Z_95",
    "PairedCounts",
    "Test",
    "mcnemar_exact",
    "paired_difference_interval",
    "smallest_detectable_drop",
    "two_proportion_test",
    "wilson_interval",
]


@dataclass(frozen=True)
class PairedCounts:
    """Two judgements of the same items: how many each pair of verdicts has."""

    both_right: int = 0
    only_base_right: int = 0
    only_new_right: int = 0
    both_wrong: int = 0

    @property
    def total(self) -> int:
        return self.both_right + self.only_base_right + self.only_new_right + self.both_wrong

    @property
    def base_correct(self) -> int:
        return self.both_right + self.only_base_right

    @property
    def new_correct(self) -> int:
        return self.both_right + self.only_new_right

    def to_dict(self) -> dict[str, int]:
        return {
            "both_right": self.both_right,
            "only_base_right": self.only_base_right,
            "only_new_right": self.only_new_right,
            "both_wrong": self.both_wrong,
        }


@dataclass(frozen=True)
class Test:
    """A test of two proportions: its name, its two-sided p-value, and a 95% interval for
    the difference (new minus base)."""

    name: str
    p_value: float
    low: float
    high: float

    def to_dict(self) -> dict[str, object]:
        return {"test": self.name, "p_value": self.p_value, "interval_95": [self.low, self.high]}


def wilson_interval(successes: int, total: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for ``successes / total`` (95% by default).

    Unlike the textbook Wald interval it stays inside [0, 1] and is not empty at 0 or
    ``total`` successes. No trials: the whole of [0, 1].
    """
    _check_count(successes, total)
    if total == 0:
        return (0.0, 1.0)
    p = successes / total
    z2 = z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    # At 0 and at total the bound is exactly the end of [0, 1]; rounding must not move it.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == total else min(1.0, centre + half)
    return (low, high)


def binomial_two_sided(k: int, n: int) -> float:
    """The exact two-sided p-value of ``k`` successes in ``n`` trials of probability 1/2:
    twice the smaller tail, at most 1 (the distribution is symmetric)."""
    _check_count(k, n)
    if n == 0:
        return 1.0
    smaller = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(smaller + 1))
    # Integer arithmetic to the last step: exact for any n (2**n is big, never rounded).
    return min(1.0, 2 * tail / 2**n)


def mcnemar_exact(counts: PairedCounts) -> float:
    """The exact McNemar p-value: are the discordant pairs split evenly between the two
    sides (base right only against new right only)? Concordant pairs carry no evidence."""
    discordant = counts.only_base_right + counts.only_new_right
    return binomial_two_sided(counts.only_base_right, discordant)


def paired_difference_interval(counts: PairedCounts, z: float = Z_95) -> tuple[float, float]:
    """Newcombe's hybrid score interval (1998b, method 10) for the difference of paired
    accuracies, new minus base: Wilson intervals of each side, combined with the
    (continuity-corrected) correlation of the pairs. No items: the whole of [-1, 1]."""
    n = counts.total
    if n == 0:
        return (-1.0, 1.0)
    a, b, c, d = (
        counts.both_right,
        counts.only_new_right,
        counts.only_base_right,
        counts.both_wrong,
    )
    # In Newcombe's notation side 1 is new (a + b right), side 2 base (a + c right).
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n, z)
    l2, u2 = wilson_interval(a + c, n, z)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    # The correlation of the two sides, with Newcombe's continuity correction: a positive
    # product difference is moved n/2 towards 0 (and stops there), a negative one is kept.
    product = a * d - b * c
    corrected = product - n / 2 if product > n / 2 else min(product, 0)
    phi = corrected / math.sqrt(margins) if margins else 0.0
    delta = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    epsilon = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    difference = p1 - p2
    return (max(-1.0, difference - delta), min(1.0, difference + epsilon))


def paired_test(counts: PairedCounts, z: float = Z_95) -> Test:
    """The exact McNemar test with Newcombe's paired interval, as one :class:`Test`."""
    low, high = paired_difference_interval(counts, z)
    return Test("exact McNemar", mcnemar_exact(counts), low, high)


def two_proportion_test(
    base_successes: int, base_total: int, new_successes: int, new_total: int, z: float = Z_95
) -> Test:
    """Unpaired samples: the pooled two-proportion z-test (two-sided) and Newcombe's hybrid
    score interval (1998a, method 10) for new minus base.

    The z-test, not Fisher's exact test, because the error-rate comparison counts
    calls by the million, where Fisher's sums are slow and the normal approximation
    is exact enough. No difference to test (an empty side, or both proportions at 0
    or at 1): p is 1.
    """
    _check_count(base_successes, base_total)
    _check_count(new_successes, new_total)
    name = "two-proportion z-test (unpaired)"
    if base_total == 0 or new_total == 0:
        return Test(name, 1.0, -1.0, 1.0)
    p1, p2 = new_successes / new_total, base_successes / base_total
    pooled = (base_successes + new_successes) / (base_total + new_total)
    variance = pooled * (1 - pooled) * (1 / base_total + 1 / new_total)
    p_value = math.erfc(abs(p1 - p2) / math.sqrt(variance) / math.sqrt(2)) if variance else 1.0
    l1, u1 = wilson_interval(new_successes, new_total, z)
    l2, u2 = wilson_interval(base_successes, base_total, z)
    difference = p1 - p2
    low = difference - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = difference + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return Test(name, min(1.0, p_value), max(-1.0, low), min(1.0, high))


def smallest_detectable_drop(items: int, alpha: float) -> float | None:
    """The smallest drop in accuracy the exact McNemar test can find significant (p <
    ``alpha``) on ``items`` paired items at all: with every discordant pair against the
    new side, k of them give p = 2 / 2**k, so the drop must be at least k / items for the
    smallest k with 2 / 2**k < alpha. A smaller drop is never flagged, whatever the data.
    None when even a drop on every item is not enough."""
    if not 0.0 < alpha <= 1.0:
        raise ValueError(f"alpha must be in (0, 1], not {alpha!r}")
    needed = 1
    while 2.0 ** (1 - needed) >= alpha:
        needed += 1
    return needed / items if needed <= items else None


def _check_count(successes: int, total: int) -> None:
    if not 0 <= successes <= total:
        raise ValueError(f"counts must satisfy 0 <= successes <= total, not {successes}/{total}")
