"""The significance tests against published values and hand computations, and their
properties: p-values are probabilities, intervals hold their estimate, swapping the sides
mirrors the result."""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolaudit.results.significance import (
    Z_95,
    PairedCounts,
    binomial_two_sided,
    mcnemar_exact,
    paired_difference_interval,
    paired_test,
    smallest_detectable_drop,
    two_proportion_test,
    wilson_interval,
)


def close(pair: tuple[float, float], expected: tuple[float, float]) -> bool:
    """Equal to the four decimals a paper prints."""
    return all(abs(got - want) < 5e-5 for got, want in zip(pair, expected, strict=True))


@pytest.mark.parametrize(
    ("successes", "total", "expected"),
    # Newcombe 1998a, Table I, method 3 (the Wilson score interval without correction).
    [
        (81, 263, (0.2553, 0.3662)),
        (15, 148, (0.0624, 0.1605)),
        (0, 20, (0.0, 0.1611)),
        (1, 29, (0.0061, 0.1718)),
    ],
)
def test_wilson_interval_equals_newcombes_table(successes, total, expected):
    assert close(wilson_interval(successes, total), expected)


def test_wilson_interval_at_the_ends_and_of_nothing():
    assert wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(0, 20)[0] == 0.0
    # 0 of n: the upper bound has a closed form, z^2 / (n + z^2).
    assert math.isclose(wilson_interval(0, 20)[1], Z_95**2 / (20 + Z_95**2))
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_z_95_is_the_normal_quantile():
    assert math.isclose(Z_95, 1.959963984540054)


def test_exact_binomial_p_values_by_hand():
    # Six discordant pairs all one way: 2 * (1/2)^6.
    assert binomial_two_sided(0, 6) == 2 / 64
    # 2 of 10: 2 * (C(10,0) + C(10,1) + C(10,2)) / 2^10 = 112 / 1024.
    assert binomial_two_sided(2, 10) == 112 / 1024
    assert binomial_two_sided(8, 10) == 112 / 1024
    assert binomial_two_sided(5, 10) == 1.0
    assert binomial_two_sided(0, 0) == 1.0


def test_exact_binomial_stays_exact_for_many_trials():
    # The same figure from fractions: no float overflow at 2**3000.
    expected = 2 * Fraction(sum(math.comb(3000, i) for i in range(1401)), 2**3000)
    assert math.isclose(binomial_two_sided(1400, 3000), float(expected), rel_tol=1e-12)


CAVO = PairedCounts(both_right=59, only_new_right=16, only_base_right=6, both_wrong=80)


def test_paired_figures_equal_fagerland_lydersen_laake():
    """Cavo et al. (2012), the paired example of Fagerland, Lydersen and Laake, Statistical
    Analysis of Contingency Tables (2017), ch. 8: estimate -0.0621 with the new side as the
    table's columns; Newcombe's interval -0.1186 to -0.0046; exact McNemar P = 0.0525."""
    swapped = PairedCounts(59, only_base_right=16, only_new_right=6, both_wrong=80)
    assert close(paired_difference_interval(swapped), (-0.1186, -0.0046))
    assert close(paired_difference_interval(CAVO), (0.0046, 0.1186))
    assert round(mcnemar_exact(CAVO), 4) == 0.0525
    test = paired_test(CAVO)
    assert test.name == "exact McNemar" and test.p_value == mcnemar_exact(CAVO)


def test_paired_interval_of_nothing():
    assert paired_difference_interval(PairedCounts()) == (-1.0, 1.0)
    assert mcnemar_exact(PairedCounts(both_right=5)) == 1.0


@pytest.mark.parametrize(
    ("base", "new", "expected"),
    # Newcombe 1998a, Table II, method 10: 56/70 - 48/80 and 9/10 - 3/10.
    [((48, 80), (56, 70), (0.0524, 0.3339)), ((3, 10), (9, 10), (0.1705, 0.8090))],
)
def test_unpaired_interval_equals_newcombes_table(base, new, expected):
    test = two_proportion_test(*base, *new)
    assert close((test.low, test.high), expected)
    assert test.name == "two-proportion z-test (unpaired)"


def test_unpaired_p_value_is_the_pooled_z_test():
    # 56/70 against 48/80 by hand: pooled 104/150; z from the standard library's normal.
    pooled = 104 / 150
    z = (56 / 70 - 48 / 80) / math.sqrt(pooled * (1 - pooled) * (1 / 70 + 1 / 80))
    expected = 2 * (1 - NormalDist().cdf(z))
    assert math.isclose(two_proportion_test(48, 80, 56, 70).p_value, expected, rel_tol=1e-9)


def test_unpaired_without_anything_to_test():
    assert two_proportion_test(0, 0, 3, 10).p_value == 1.0
    assert two_proportion_test(0, 10, 0, 10).p_value == 1.0


def test_smallest_detectable_drop():
    # p = 2 / 2^k < 0.05 first at k = 6; 2 / 2^k < 0.01 first at k = 8.
    assert smallest_detectable_drop(100, 0.05) == 0.06
    assert smallest_detectable_drop(100, 0.01) == 0.08
    assert smallest_detectable_drop(5, 0.05) is None
    assert binomial_two_sided(0, 6) < 0.05 <= binomial_two_sided(0, 5)
    with pytest.raises(ValueError):
        smallest_detectable_drop(10, 0.0)


counts = st.integers(min_value=0, max_value=60)


@given(counts, counts, counts, counts)
def test_paired_properties(a, b, c, d):
    pairs = PairedCounts(a, b, c, d)
    mirror = PairedCounts(a, c, b, d)
    p = mcnemar_exact(pairs)
    assert 0.0 <= p <= 1.0 and p == mcnemar_exact(mirror)
    low, high = paired_difference_interval(pairs)
    estimate = (c - b) / pairs.total if pairs.total else 0.0
    assert -1.0 <= low <= estimate + 1e-12 and estimate - 1e-12 <= high <= 1.0
    mirrored = paired_difference_interval(mirror)
    assert math.isclose(mirrored[0], -high, abs_tol=1e-12)
    assert math.isclose(mirrored[1], -low, abs_tol=1e-12)


@given(st.integers(0, 200), st.integers(0, 200), st.integers(0, 200), st.integers(0, 200))
def test_unpaired_properties(x1, extra1, x2, extra2):
    n1, n2 = x1 + extra1, x2 + extra2
    test = two_proportion_test(x1, n1, x2, n2)
    mirror = two_proportion_test(x2, n2, x1, n1)
    assert 0.0 <= test.p_value <= 1.0 and math.isclose(test.p_value, mirror.p_value)
    if n1 and n2:
        estimate = x2 / n2 - x1 / n1
        assert test.low <= estimate + 1e-12 and estimate - 1e-12 <= test.high
        assert math.isclose(mirror.low, -test.high, abs_tol=1e-12)


@given(st.integers(0, 500), st.integers(0, 500))
def test_wilson_properties(successes, extra):
    total = successes + extra
    low, high = wilson_interval(successes, total)
    assert 0.0 <= low <= high <= 1.0
    if total:
        assert low <= successes / total <= high
        other = wilson_interval(extra, total)
        assert math.isclose(other[0], 1 - high, abs_tol=1e-12)
