"""``toolaudit audit --dask``: a local cluster started by the command itself gives the
files, the table and the exit code of one process; what cannot run stops with exit 2."""

from __future__ import annotations

import sys

import pytest

from toolaudit.runners import cluster

from ..conftest import SAMPLE, SAMPLE_SCHEMAS, invoke

#: Each test starts a Dask cluster on 127.0.0.1: left out of `make quick`.
pytestmark = pytest.mark.slow

pytest.importorskip("distributed")


def test_dask_local_gives_the_outputs_of_one_process(in_repo, tmp_path):
    one = invoke(
        "audit",
        SAMPLE,
        "-s",
        SAMPLE_SCHEMAS,
        "-r",
        str(tmp_path / "one.jsonl"),
        "--summary",
        str(tmp_path / "one.json"),
    )
    parts = tmp_path / "parts"
    on_dask = invoke(
        "audit",
        SAMPLE,
        "-s",
        SAMPLE_SCHEMAS,
        "--dask",
        "local:2",
        "--blocksize",
        "8KiB",
        "-r",
        str(parts),
        "--summary",
        str(tmp_path / "dask.json"),
    )
    assert (on_dask.exit_code, on_dask.stdout) == (one.exit_code, one.stdout) == (1, one.stdout)
    names = sorted(p.name for p in parts.iterdir())
    assert len(names) > 4 and names[0] == "part-00000.jsonl"
    report = b"".join((parts / name).read_bytes() for name in names)
    assert report == (tmp_path / "one.jsonl").read_bytes()
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "one.json").read_bytes()


def test_a_report_on_stdout_comes_back_in_order(in_repo):
    arguments = ["audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--errors-only", "-r", "-"]
    one = invoke(*arguments)
    on_dask = invoke(*arguments, "--dask", "local:2", "--blocksize", "4096")
    assert (on_dask.exit_code, on_dask.stdout) == (one.exit_code, one.stdout)
    assert one.stdout.count("\n") > 40


def test_dask_with_jobs_is_a_usage_error(in_repo):
    result = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--dask", "local:1", "--jobs", "2")
    assert result.exit_code == 2
    assert result.stderr == (
        "toolaudit: error: --dask and --jobs cannot be combined: the cluster's workers are the "
        "jobs\n"
    )


def test_a_bad_blocksize_stops_the_run(in_repo):
    result = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--dask", "local:1", "--blocksize", "x")
    assert result.exit_code == 2
    assert "expected bytes or a size such as 64MiB, not 'x'" in result.stderr


def test_a_blocksize_without_dask_is_refused_not_ignored(in_repo):
    result = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--blocksize", "1MiB")
    assert result.exit_code == 2
    assert result.stderr == (
        "toolaudit: error: --blocksize is for --dask: without it, --jobs decides how files "
        "are cut\n"
    )


def test_without_dask_installed_one_line_says_what_to_install(in_repo, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    result = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--dask", "local")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "toolaudit: error: auditing on a Dask cluster needs dask[distributed], which is not "
        "installed: pip install 'toolaudit[dask]'"
    ]


def test_a_scheduler_that_does_not_answer_stops_the_run(in_repo, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1)
    result = invoke("audit", SAMPLE, "-s", SAMPLE_SCHEMAS, "--dask", "tcp://127.0.0.1:9")
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "toolaudit: error: --dask tcp://127.0.0.1:9: no Dask scheduler answers there"
    )


def _worker_settings() -> dict[str, object]:
    import os

    import dask

    settings: dict[str, object] = {
        key: dask.config.get(key) for key in cluster.LOCAL_CLUSTER_CONFIG if "environ" not in key
    }
    settings["MALLOC_TRIM_THRESHOLD_"] = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    return settings


def test_the_workers_of_a_local_cluster_run_with_its_settings(monkeypatch):
    """Each of these cost the audit measurably (see LOCAL_CLUSTER_CONFIG): Dask's own
    defaults must not come back in the worker processes."""
    # The workers inherit this process's environment, which an earlier cluster of the
    # suite, with Dask's defaults, may have changed.
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    with cluster.connect("local:1") as client:
        (settings,) = client.run(_worker_settings).values()
    assert settings == {
        "distributed.worker.profile.enabled": False,
        "distributed.admin.tick.interval": "1s",
        "distributed.admin.system-monitor.interval": "2s",
        "distributed.worker.memory.monitor-interval": "1s",
        "MALLOC_TRIM_THRESHOLD_": None,
    }
