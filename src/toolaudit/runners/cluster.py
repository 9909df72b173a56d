"""The Dask cluster of a run: connecting to it (or starting one here), checking its
workers, and telling its faults from the audit's.

``distributed`` is imported only here, and only when a run asks for a cluster: the
default install has no Dask, and ``--dask`` without it stops with one line.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from toolaudit._version import __version__
from toolaudit.errors import OptionError, ToolAuditError

if TYPE_CHECKING:
    from distributed import Client

#: How long to wait for a scheduler to answer, and for a first worker to join it.
CONNECT_SECONDS = 30
#: How long an interrupted run waits for its tasks already running to end.
IDLE_SECONDS = 60
INSTALL_HINT = "pip install 'toolaudit[dask]'"

_LOCAL = re.compile(r"local(?::([0-9]+))?")
#: Where a local cluster's scheduler serves its HTTP routes: this machine, a free port.
LOCAL_HTTP_ADDRESS = "127.0.0.1:0"

#: What a cluster started here for one run changes in Dask's defaults; nobody looks at
#: its dashboard, and its tasks are long and hold little memory. (The workers take this
#: config with them.)
LOCAL_CLUSTER_CONFIG: Mapping[str, Any] = {
    # The statistical profiler samples each worker's stack every 10 ms: with the audit's
    # tight Python loop that cost 15% (measured).
    "distributed.worker.profile.enabled": False,
    # Dask has glibc give memory back at 64 KiB, which cost the audit's many small
    # objects 4% more CPU: the workers get the allocator of one process.
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    # Every event loop (scheduler, nanny, worker) checks its own health every 20 ms, the
    # system monitor samples every 500 ms and each worker its memory every 100 ms. On 1 GB
    # with --dask local:2 that was 2.8 s of CPU beside the audit's 40 (a worker's loop
    # takes the lock from its task); at these intervals 0.7 s (measured). A worker past
    # its memory limit is still stopped within a second.
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
}


class ClusterError(ToolAuditError):
    """The Dask cluster cannot run the audit: not installed, not reachable, or its
    workers cannot run this toolaudit."""


def distributed_module() -> Any:
    """``distributed``, or the one line that says how to install it."""
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            f"auditing on a Dask cluster needs dask[distributed], which is not installed: "
            f"{INSTALL_HINT}"
        ) from None
    return distributed


@contextmanager
def connect(address: str) -> Iterator[Client]:
    """A client of the cluster ``--dask`` names: ``local`` (one worker process per
    core, on this machine) or ``local:N``, else a scheduler's address
    (``tcp://10.0.0.5:8786``). A local cluster ends with the block."""
    distributed = distributed_module()
    local = _LOCAL.fullmatch(address)
    if local is None:
        try:
            client = distributed.Client(address, timeout=CONNECT_SECONDS)
        except (OSError, TimeoutError, ValueError) as error:
            message = f"--dask {address}: no Dask scheduler answers there ({error})"
            raise ClusterError(message) from None
        with client:
            yield client
        return
    workers = int(local.group(1)) if local.group(1) else max(1, os.cpu_count() or 1)
    if workers < 1:
        raise OptionError("--dask local:N needs at least one worker")
    import dask

    try:
        with dask.config.set(dict(LOCAL_CLUSTER_CONFIG)):
            cluster = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                # Any free port: with None the scheduler still serves its HTTP routes on
                # 8787, which a second run at once finds taken (Dask then warns).
                dashboard_address=LOCAL_HTTP_ADDRESS,
            )
    except Exception as error:  # whatever stopped the processes from starting
        raise ClusterError(f"--dask {address}: cannot start the workers: {error}") from error
    with cluster, distributed.Client(cluster) as client:
        from toolaudit.runners.local_workers import LeaveInterruptsToTheParent

        client.register_plugin(LeaveInterruptsToTheParent())
        yield client


def check_workers(client: Client) -> None:
    """Before anything is submitted: a worker is there, and every worker runs this
    toolaudit (summaries of two versions do not merge)."""
    try:
        client.wait_for_workers(1, timeout=CONNECT_SECONDS)
    except TimeoutError:
        message = f"no Dask worker joined the scheduler within {CONNECT_SECONDS} s"
        raise ClusterError(message) from None
    try:
        versions: dict[str, str] = client.run(_toolaudit_version)
    except Exception as error:  # a worker that cannot unpickle toolaudit's function
        raise ClusterError(
            f"the Dask workers cannot run toolaudit (is it installed there?): {error}"
        ) from None
    other = sorted({v for v in versions.values() if v != __version__})
    if other:
        raise ClusterError(
            f"the Dask workers run toolaudit {', '.join(other)}, this is {__version__}: "
            "install the same version on them"
        )


def _toolaudit_version() -> str:
    return __version__


def cluster_faults(wait: Callable[..., Any], *args: Any) -> Any:
    """``wait(*args)``, with a task that the cluster lost again and again (it killed
    every worker that ran it, or they died under it) said in one line."""
    try:
        return wait(*args)
    except distributed_module().KilledWorker as error:
        raise ClusterError(f"the cluster lost a task again and again ({error})") from None


def wait_idle(client: Client, name: str) -> None:
    """Until no worker runs a task whose key holds ``name`` any more (a cancelled task
    runs to its end, and may still write its part), or for IDLE_SECONDS at most."""
    deadline = time.monotonic() + IDLE_SECONDS
    while time.monotonic() < deadline:
        if not any(client.run(_running, name).values()):
            return
        time.sleep(0.05)


def _running(name: str, dask_worker: Any) -> int:
    """On a worker: how many tasks whose key holds ``name`` it is running."""
    return sum(
        1
        for key, task in dask_worker.state.tasks.items()
        if name in str(key) and task.state in ("executing", "cancelled", "long-running")
    )
