"""What the worker processes of ``--dask local`` are told when they start.

Ctrl-C at a terminal reaches every process of its group, the local workers too;
they must leave it to the process that started them, which stops the run and
keeps what was finished (as ``--jobs`` does with its workers). Imported only by
:func:`toolaudit.runners.cluster.connect`, since it needs ``distributed``.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

from distributed import WorkerPlugin


class LeaveInterruptsToTheParent(WorkerPlugin):
    """Ignores SIGINT in each worker process (and in those started again after a death)."""

    name = "toolaudit-leave-interrupts-to-the-parent"

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
