"""The optimal pairing of the calls a record made with the calls it should hold.

A minimum-cost assignment (the Hungarian method, exact on integer costs, in
O(n^2 m)): as many pairs as the smaller side has calls, and among those pairings
the cheapest. Greedy pairing (BFCL's) can pair a call with the wrong expected call
and then miss the right pairing for the others; this cannot.
"""

from __future__ import annotations

from collections.abc import Sequence


def best_pairing(costs: Sequence[Sequence[tuple[int, int]]]) -> list[tuple[int, int]]:
    """``(row, column)`` pairs of a cheapest complete pairing of the smaller side.

    ``costs[row][column]`` is ``(primary, secondary)``: a pairing minimises the sum of
    the primary costs first, then of the secondary ones. Pairs come sorted by row.
    """
    if not costs or not costs[0]:
        return []
    if len(costs) == 1 and len(costs[0]) == 1:  # one call made, one expected: most records
        return [(0, 0)]
    # Folding the two costs into one integer keeps the order exact: any difference in
    # the primary sum outweighs the largest possible secondary sum.
    weight = 1 + sum(secondary for row in costs for _, secondary in row)
    flat = [[primary * weight + secondary for primary, secondary in row] for row in costs]
    if len(flat) <= len(flat[0]):
        return sorted(_assignment(flat))
    transposed = [list(column) for column in zip(*flat, strict=True)]
    return sorted((row, column) for column, row in _assignment(transposed))


def _assignment(cost: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """A minimum-cost assignment of every row (rows <= columns) to a distinct column,
    by the Hungarian method with potentials (``u`` on rows, ``v`` on columns)."""
    rows, columns = len(cost), len(cost[0])
    # Potentials and slacks stay integers in value; typed float for the infinite start.
    u: list[float] = [0] * (rows + 1)
    v: list[float] = [0] * (columns + 1)
    row_of = [0] * (columns + 1)  # row_of[j]: the row (1-based) column j is assigned to
    way = [0] * (columns + 1)
    for row in range(1, rows + 1):
        row_of[0] = row
        column = 0
        least: list[float] = [float("inf")] * (columns + 1)
        used = [False] * (columns + 1)
        while row_of[column] != 0:
            used[column] = True
            current, next_column = row_of[column], 0
            delta = float("inf")
            for j in range(1, columns + 1):
                if used[j]:
                    continue
                reduced = cost[current - 1][j - 1] - u[current] - v[j]
                if reduced < least[j]:
                    least[j], way[j] = reduced, column
                if least[j] < delta:
                    delta, next_column = least[j], j
            for j in range(columns + 1):
                if used[j]:
                    u[row_of[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            column = next_column
        while column:  # flip the augmenting path back to its start
            previous = way[column]
            row_of[column] = row_of[previous]
            column = previous
    return [(row_of[j] - 1, j - 1) for j in range(1, columns + 1) if row_of[j]]
