"""The stack a batch of lines may use, the same wherever the audit is called from.

How deep a record's values can be walked, and how a value nested deeply is shown, depend
on the frames left below Python's recursion limit. A process of ``--jobs`` (or a caller
deep in its own stack) reads its lines from another depth than one process does: with
the limit set from where a batch is read, a line gives the same rows in every process.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import FrameType

#: The frames a batch's reading may use above the frame that reads it (Python's default
#: recursion limit, as if the audit were the whole program).
FRAMES = 1_000


@contextmanager
def frames_for_a_batch(frames: int = FRAMES) -> Iterator[None]:
    """Python's recursion limit, for the block, ``frames`` above the caller's level."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_levels_in_use() + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _levels_in_use() -> int:
    """The levels of the recursion limit in use where this is called: the limit less the
    levels a probe can still go down. (Counting frames is not enough: C calls between
    them, such as a generator's resumption, hold levels too, not as many in every
    process.) The probe, a thousand calls, runs once for each stack of calls."""
    stack = []
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        stack.append((frame.f_code, frame.f_lasti))
        frame = frame.f_back
    key = tuple(stack)
    levels = _IN_USE.get(key)
    if levels is None:
        if len(_IN_USE) >= 64:  # (an audit is called from a few places at most)
            _IN_USE.clear()
        levels = _IN_USE[key] = _probe() - 1  # (the probe is called one level deeper)
    return levels


#: The levels in use under each stack of calls seen (code and place of each frame).
_IN_USE: dict[tuple[tuple[object, int], ...], int] = {}


def _probe() -> int:
    """The levels of the recursion limit in use where this is called."""
    free = 0

    def down() -> None:
        nonlocal free
        free += 1
        down()

    limit = sys.getrecursionlimit()
    probed = min(limit, 20_000)  # (a limit raised far would make the probe go far too)
    sys.setrecursionlimit(probed)
    try:
        with suppress(RecursionError):
            down()
    finally:
        sys.setrecursionlimit(limit)
    return probed - free
