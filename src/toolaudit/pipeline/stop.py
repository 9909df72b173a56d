"""Stopping an audit cleanly: Ctrl-C and SIGTERM wait for the end of the batch in progress."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

from toolaudit.errors import Terminated


class StopRequest:
    """Shared by whoever asks an audit to stop (a signal handler) and the audit loop.

    Raising in the middle of a batch could leave a line read but not counted,
    so while the loop is ``busy`` with a batch a request is kept as ``pending``
    and raised by :meth:`raise_pending` at the batch's end. Between batches
    (waiting for input, say) it is raised at once.
    """

    __slots__ = ("busy", "pending")

    def __init__(self) -> None:
        self.busy = False
        self.pending: type[KeyboardInterrupt] | None = None

    def request(self, interruption: type[KeyboardInterrupt] = KeyboardInterrupt) -> None:
        """Ask for a stop, as Ctrl-C would (``interruption`` is raised). A second request
        during the same batch raises at once: whoever asks twice will not wait for a
        batch that is slow to end (the readers count the lines read up to there)."""
        if self.busy and self.pending is None:
            self.pending = interruption
        else:
            raise interruption()

    def raise_pending(self) -> None:
        """At the end of a batch: raise the stop asked for during it, if any."""
        if self.pending is not None:
            raise self.pending()


@contextmanager
def stopped_by_signals(stop: StopRequest) -> Iterator[None]:
    """Within, Ctrl-C and SIGTERM stop the audit at the end of the batch of lines
    being audited, so that every line read is counted (see StopRequest)."""

    def handler(signum: int, frame: object) -> None:
        stop.request(Terminated if signum == signal.SIGTERM else KeyboardInterrupt)

    previous = {
        signum: signal.signal(signum, handler) for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for signum, previous_handler in previous.items():
            signal.signal(signum, previous_handler)
