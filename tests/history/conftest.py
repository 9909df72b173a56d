"""Every history this suite checks is checked twice where a fast path answers: by the
fast path and by the full reading, which must agree in every value (problems, outcomes,
calls). A fast path that decided otherwise than the full reading fails the test that
built the history."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from toolaudit.history.check import examine
from toolaudit.history.fast import FAST
from toolaudit.history.model import Checked

Fast = Callable[[list[Any], str, bool], Checked | None]


def agreeing(shape: str, fast: Fast) -> Fast:
    """``fast``, held to the full reading on each history it answers."""

    def checked(messages: list[Any], path: str, calls: bool) -> Checked | None:
        for listed in (True, False):
            answer = fast(messages, path, listed)
            if answer is not None:
                full = examine(messages, shape, path, calls=listed)[0]
                assert answer == full, f"the fast path of {shape} disagrees on {messages!r}"
        return fast(messages, path, calls)

    return checked


@pytest.fixture(scope="package", autouse=True)
def fast_paths_agree() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for shape, fast in list(FAST.items()):
            patch.setitem(FAST, shape, agreeing(shape, fast))
        yield
